"""End of day: the links made on a chosen day (local time) in this profile and mode, and what
has become of them: how many are paid, failed, cancelled, refunded, still open; per currency
what was collected, given back (refunded or reversed), the fees, and the net. Before the
day is counted, its paid payments are read again with the service (a refund since is
counted as one). Exported as CSV with the rows behind it, and printable. The figures are
read again for every export and print, so they agree with the rows."""

from __future__ import annotations

import asyncio
import csv
import os
from datetime import date, datetime, time, timedelta
from pathlib import Path

from PySide6.QtCore import QDate, QRectF, Qt, QTimer
from PySide6.QtGui import QFont, QPainter
from PySide6.QtWidgets import (
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from ...desk.tasks import TaskSet
from ...desk.texts import money_text
from ...desk.transactions import TransactionsController
from ...ledger import DaySummary, LinkQuery
from ..dialogs import run_dialog
from ..signals import signals_of
from .actions import save_path

TOTALS = ("Currency", "Paid", "Collected", "Fees", "Refunded", "Net")
COUNTS = (("Links made", None), ("Paid", ("success",)), ("Failed", ("failed",)),
          ("Cancelled", ("cancelled",)), ("Refunded or reversed", ("refunded", "reversed")),
          ("Still open", ("pending", "creating", "unknown")), ("Not created", ("rejected",)))


def counts(summary: DaySummary) -> list[tuple[str, int]]:
    return [(label, summary.created if states is None else sum(summary.states[s] for s in states))
            for label, states in COUNTS]


def fees_text(total) -> str:
    """The fees, saying when the service has not told all of them yet."""
    text = money_text(total.fees)
    if total.fees_known < total.fees_of:
        text += f" (known for {total.fees_known} of {total.fees_of})"
    return text


def refunds_text(total) -> str:
    return f"{total.refunded}: {money_text(total.refunded_amount)}" if total.refunded else "0"


def heading(profile_name: str, mode: str, day: date) -> str:
    zone = datetime.now().astimezone().strftime("%Z (UTC%z)")
    return (f"{profile_name}, {mode.upper()} mode: links made on {day:%A %d %B %Y}, "
            f"local time {zone}, and what has become of them")


def summary_rows(summary: DaySummary) -> list[list[str]]:
    rows = [["summary", "", label, str(n), "", ""] for label, n in counts(summary)]
    for t in summary.totals:
        rows += [["collected", t.currency, "paid", str(t.paid), f"{t.collected:.2f}",
                  f"{t.fees:.2f}" + ("" if t.fees_known == t.fees_of else
                                     f" (known for {t.fees_known} of {t.fees_of})")],
                 ["refunded", t.currency, "refunded or reversed", str(t.refunded),
                  f"{t.refunded_amount:.2f}", ""],
                 ["net", t.currency, "collected less fees", "", f"{t.net:.2f}", ""]]
    return rows


class EndOfDayDialog(QDialog):
    def __init__(self, controller: TransactionsController, tasks: TaskSet, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.tasks = tasks.child(self)
        self.setObjectName("end-of-day")
        self.setWindowTitle("End of day")
        self.summary: DaySummary | None = None
        layout = QVBoxLayout(self)
        self.heading = QLabel("")
        self.heading.setObjectName("end-of-day-heading")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.heading)
        form = QFormLayout()
        self.day = QDateEdit(QDate.currentDate())
        self.day.setObjectName("end-of-day-date")
        self.day.setAccessibleName("Day")
        self.day.setCalendarPopup(True)
        self.day.setDisplayFormat("yyyy-MM-dd")
        form.addRow("&Day:", self.day)
        self.figures: dict[str, QLabel] = {}
        for label, _ in COUNTS:
            value = QLabel("")
            value.setObjectName("end-of-day-" + label.lower().replace(" ", "-"))
            form.addRow(label + ":", value)
            self.figures[label] = value
        layout.addLayout(form)
        self.totals = QTableWidget(0, len(TOTALS))
        self.totals.setObjectName("end-of-day-totals")
        self.totals.setAccessibleName("Collected per currency")
        self.totals.setHorizontalHeaderLabels(list(TOTALS))
        self.totals.verticalHeader().hide()
        self.totals.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        layout.addWidget(self.totals)
        self.message = QLabel("")
        self.message.setObjectName("end-of-day-message")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.message)
        buttons = QDialogButtonBox()
        self.export = buttons.addButton("Export CSV…", QDialogButtonBox.ButtonRole.ActionRole)
        self.print = buttons.addButton("Print…", QDialogButtonBox.ButtonRole.ActionRole)
        self.close_button = buttons.addButton("Close", QDialogButtonBox.ButtonRole.RejectRole)
        for button, name in ((self.export, "end-of-day-export"), (self.print, "end-of-day-print"),
                             (self.close_button, "end-of-day-close")):
            button.setObjectName(name)
            button.setAccessibleName(button.text().rstrip("…"))
        self.export.clicked.connect(lambda: self.tasks.replace("export", self.export_csv()))
        self.print.clicked.connect(lambda: self.tasks.replace("print", self.print_summary()))
        self.close_button.clicked.connect(self.reject)
        layout.addWidget(buttons)
        self.day.dateChanged.connect(self.start)
        # live, like the table: a state the scheduler learns is counted within a second
        self.again = QTimer(self, singleShot=True, interval=500)
        self.again.timeout.connect(lambda: self.tasks.replace("load", self.load()))
        signals_of(controller.session.hub).linkChanged.connect(self.again.start)
        self.resize(520, 480)

    def chosen_day(self) -> date:
        return self.day.date().toPython()

    def _heading(self) -> str:
        session = self.controller.session
        return heading(session.profile.name, session.mode, self.chosen_day())

    async def load(self) -> DaySummary:
        summary = await self.controller.day_summary(self.chosen_day())
        self.summary = summary
        self.heading.setText(self._heading())
        self.heading.setAccessibleName(self._heading())
        for label, n in counts(summary):
            self.figures[label].setText(str(n))
            self.figures[label].setAccessibleName(f"{label}: {n}")
        self.totals.setRowCount(len(summary.totals))
        for row, total in enumerate(summary.totals):
            for col, text in enumerate((total.currency, str(total.paid),
                                        money_text(total.collected), fees_text(total),
                                        refunds_text(total), money_text(total.net))):
                item = QTableWidgetItem(text)
                if col:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.totals.setItem(row, col, item)
        return summary

    def _query(self) -> LinkQuery:
        session = self.controller.session
        day = self.chosen_day()
        return LinkQuery(session.profile.id, session.mode,
                         created_from=datetime.combine(day, time.min).astimezone(),
                         created_to=datetime.combine(day + timedelta(days=1), time.min).astimezone(),
                         sort="created", descending=False)

    async def export_csv(self) -> Path | None:
        """One CSV: what it is, the summary, an empty line, then every row of the day."""
        session = self.controller.session
        path = await save_path(self, "Export the day", ["CSV (*.csv)"],
                               f"paydesk-{session.mode}-end-of-day-{self.chosen_day()}.csv")
        if path is None:
            return None
        summary = await self.count()  # the figures as they are now, as the rows will be
        rows_path = path.with_name(path.name + ".rows")
        written = await self.controller.export(self._query(), rows_path, report=False)
        title = self._heading()

        def combine() -> None:  # beside the target, put in place when whole
            partial = path.with_name(path.name + ".part")
            with open(partial, "w", encoding="utf-8-sig", newline="") as out:
                writer = csv.writer(out)
                writer.writerow(["section", "currency", "what", "count", "amount", "fees"])
                writer.writerow(["title", "", title, "", "", ""])
                writer.writerows(summary_rows(summary))
                writer.writerow([])
                out.write(rows_path.read_text("utf-8-sig"))
            os.replace(partial, path)
            rows_path.unlink()

        await asyncio.to_thread(combine)
        self.say(f"Exported the day's figures and {written} records to {path.name}")
        return path

    def start(self) -> None:
        """The figures at once, as the ledger has them; again once the day's paid payments
        have been read again with the service."""
        self.tasks.replace("load", self.load())
        self.tasks.replace("recheck", self.count())

    async def count(self) -> DaySummary:
        """The figures, after the day's paid payments are read again with the service."""
        self.message.setText("Reading the day's paid payments again with the service…")
        progress = await self.controller.recheck_day(self.chosen_day())
        if progress.total:
            text = f"Read the day's {progress.total} paid payments again: {progress.report()}"
            if progress.failed:
                text += " (those are counted as PayDesk last knew them)"
        else:
            text = ""
        self.message.setText(text)
        self.message.setAccessibleName(text or "No message")
        return await self.load()

    def say(self, text: str) -> None:
        """What was done, in the window and in the status bar."""
        self.message.setText(text)
        self.message.setAccessibleName(text)
        self.controller.session.report(text)

    async def print_summary(self) -> bool:
        from PySide6.QtPrintSupport import QPrintDialog, QPrinter

        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        dialog = QPrintDialog(printer, self)
        dialog.setObjectName("print-dialog")
        if not await run_dialog(dialog):
            return False
        summary = await self.count()  # the figures as they are now
        painter = QPainter()
        if not painter.begin(printer):
            self.heading.setText("Could not print: the printer refused the page")
            return False
        area = printer.pageLayout().paintRectPixels(printer.resolution())
        unit = area.width() / 100
        font = QFont()
        font.setPixelSize(int(unit * 3))
        painter.setFont(font)
        lines = [f"End of day {self.chosen_day()}", self._heading(), ""]
        lines += [f"{label}: {n}" for label, n in counts(summary)] + [""]
        lines += [f"{t.currency}: {t.paid} paid, collected {money_text(t.collected)}, "
                  f"fees {fees_text(t)}, refunded or reversed {refunds_text(t)}, "
                  f"net {money_text(t.net)}" for t in summary.totals]
        for i, line in enumerate(lines):
            painter.drawText(QRectF(0, i * unit * 5, area.width(), unit * 5),
                             Qt.AlignmentFlag.AlignLeft, line)
        painter.end()
        return True

    def done(self, result: int) -> None:  # Qt's name
        self.tasks.cancel()
        super().done(result)


async def open_end_of_day(controller: TransactionsController, tasks: TaskSet, parent) -> EndOfDayDialog:
    dialog = EndOfDayDialog(controller, tasks, parent)
    dialog.start()
    await run_dialog(dialog)
    return dialog
