"""End of day: the links made on a chosen day (local time) in this profile and mode, and what
has become of them: how many are paid, failed, cancelled, refunded, still open; per currency
what was collected, given back (refunded or reversed), the fees, and the net. Before the
day is counted, its paid payments are read again with the service (a refund since is
counted as one). Exported as CSV with the rows behind it, and printable. The figures are
read again for every export and print, so they agree with the rows."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from datetime import date, timedelta
from pathlib import Path
from typing import cast

from PySide6.QtCore import QDate, QRectF, Qt, QTimer
from PySide6.QtGui import QFont, QPainter
from PySide6.QtWidgets import (
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from ...desk.day import COUNTS, counts, fees_text, heading, local_midnight, printed_lines, refunds_text, write_day_csv
from ...desk.formats import amount_in, number_in
from ...desk.tasks import TaskSet
from ...desk.transactions import TransactionsController
from ...i18n import ENGLISH, N_, Words, _, ngettext, staff
from ...ledger import CurrencyTotal, DaySummary, LedgerError, LinkQuery
from .. import widgets
from ..as_of import AsOf
from ..dialogs import run_dialog
from ..elided import ElidedLabel
from ..passing import Passing
from ..printing import REFUSED, printed
from ..screen_fit import resize_within_screen
from ..signals import signals_of
from ..table import RIGHT, Column, HeadedModel
from .actions import CSV, name_filter, save_path

TOTALS = (N_("Currency"), N_("Paid"), N_("Collected"), N_("Fees"), N_("Refunded"), N_("Net"))  # through _()


class TotalsModel(HeadedModel):
    """The day's totals, a row per currency; the figures to the right."""

    def __init__(self) -> None:
        super().__init__()
        self.totals: list[CurrencyTotal] = []
        words = staff()
        self.columns = (
            Column(_(TOTALS[0]), lambda t: t.currency),
            Column(_(TOTALS[1]), lambda t: number_in(t.paid, words), align=RIGHT),
            Column(_(TOTALS[2]), lambda t: amount_in(t.collected, words), align=RIGHT),
            Column(_(TOTALS[3]), fees_text, align=RIGHT),
            Column(_(TOTALS[4]), refunds_text, align=RIGHT),
            Column(_(TOTALS[5]), lambda t: amount_in(t.net, words), align=RIGHT),
        )

    def listed(self) -> list[CurrencyTotal]:
        return self.totals

    def load(self, totals: list[CurrencyTotal]) -> None:
        self.beginResetModel()
        self.totals = list(totals)
        self.endResetModel()


class EndOfDayDialog(QDialog):
    def __init__(self, controller: TransactionsController, tasks: TaskSet, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.tasks = tasks.child(self)
        self.setObjectName("end-of-day")
        self.setWindowTitle(_("End of day"))
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
        self.day.setAccessibleName(_("Day"))
        self.day.setCalendarPopup(True)
        self.day.setDisplayFormat("yyyy-MM-dd")
        form.addRow(_("&Day:"), self.day)
        self.figures: dict[str, QLabel] = {}  # by COUNTS' key, shown in the staff's words
        for label, _states, _voided in COUNTS:
            value = QLabel("")
            value.setObjectName("end-of-day-" + label.lower().replace(" ", "-"))
            form.addRow(_("{caption}:").format(caption=_(label)), value)
            self.figures[label] = value
        layout.addLayout(form)
        self.totals_model = TotalsModel()
        self.totals = widgets.record_table("end-of-day-totals", self.totals_model, _("Collected per currency"))
        # each column as wide as its figures, the last to the edge: Net is never behind a
        # scroll bar
        self.totals.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(self.totals)
        # what was done (a file's long path): two lines kept, the middle elided so the
        # file's name shows, the whole on hover
        self.message = ElidedLabel("", mode=Qt.TextElideMode.ElideMiddle, keep_room=True, lines=2)
        self.message.setObjectName("end-of-day-message")
        layout.addWidget(self.message)
        buttons = QDialogButtonBox()
        self.export = buttons.addButton(_("Export CSV…"), QDialogButtonBox.ButtonRole.ActionRole)
        self.print = buttons.addButton(_("Print…"), QDialogButtonBox.ButtonRole.ActionRole)
        self.close_button = buttons.addButton(_("Close"), QDialogButtonBox.ButtonRole.RejectRole)
        for button, name in (
            (self.export, "end-of-day-export"),
            (self.print, "end-of-day-print"),
            (self.close_button, "end-of-day-close"),
        ):
            button.setObjectName(name)
            button.setAccessibleName(button.text().rstrip("…"))
        self.export.clicked.connect(lambda: self.tasks.replace("export", self.export_csv()))
        self.print.clicked.connect(lambda: self.tasks.replace("print", self.print_summary()))
        self.close_button.clicked.connect(self.reject)
        layout.addWidget(buttons)
        self.day.dateChanged.connect(self.start)
        # live, like the table: a state the scheduler learns is counted within a second
        self.again = QTimer(self, singleShot=True, interval=500)
        self.again.timeout.connect(lambda: self.tasks.replace("load", self._kept(self.load())))
        signals = signals_of(controller.session.hub)
        signals.linkChanged.connect(self._changed)
        signals.saleChanged.connect(self._changed)  # a sale voided at a counter
        # a shared ledger out of reach: the figures as of when it went
        self.as_of = AsOf(controller.session, self)
        self.as_of.changed.connect(self._show_heading)
        self.passing = Passing(controller.session, self)  # the ledger's words go when it is back
        self._show_heading()
        resize_within_screen(self, 640, 520)

    def chosen_day(self) -> date:
        return cast(date, self.day.date().toPython())  # a QDate's Python value is a date

    def _changed(self) -> None:
        """A record changed: read the figures again within 500 ms. Not restarted while it
        runs, so that a steady stream of changes still refreshes them (at most every 500 ms)."""
        if not self.again.isActive():
            self.again.start()

    def _heading(self, words: Words | None = None) -> str:
        """What is counted, in the staff's language (``words``: another's, the CSV's)."""
        session = self.controller.session
        profile, mode = session.active()
        return heading(profile.name, mode, self.chosen_day(), words)

    def _show_heading(self) -> None:
        text = self._heading() + self.as_of.suffix()
        self.heading.setText(text)
        self.heading.setAccessibleName(text)

    async def load(self) -> DaySummary:
        summary = await self.controller.day_summary(self.chosen_day())
        self.summary = summary
        self._show_heading()
        words = staff()
        for label, n in counts(summary):
            count = number_in(n, words)
            self.figures[label].setText(count)
            self.figures[label].setAccessibleName(_("{what}: {value}").format(what=_(label), value=count))
        self.totals_model.load(summary.totals)
        return summary

    def _query(self) -> LinkQuery:
        session = self.controller.session
        day = self.chosen_day()
        profile, mode = session.active()
        return LinkQuery(
            profile.id,
            mode,
            created_from=local_midnight(day),
            created_to=local_midnight(day + timedelta(days=1)),
            sort="created",
            descending=False,
        )

    async def export_csv(self) -> Path | None:
        """One CSV: what it is, the summary, an empty line, then every row of the day."""
        session = self.controller.session
        if self._refused_now():  # the save dialog is not opened
            return None
        path = await save_path(
            self, _("Export the day"), [name_filter(*CSV)], f"paydesk-{session.mode}-end-of-day-{self.chosen_day()}.csv"
        )
        if path is None:
            return None
        rows_path = path.with_name(path.name + ".rows")
        try:
            summary = await self.count()  # the figures as they are now, as the rows will be
            written = await self.controller.export(self._query(), rows_path, report=False, file_name=path.name)
        except LedgerError as refused:  # gone meanwhile: nothing is written
            self._said(refused)
            return None
        title = self._heading(Words(ENGLISH))  # the file's words are English, as its columns

        await asyncio.to_thread(write_day_csv, path, title, summary, rows_path)
        self.say(
            ngettext(
                "Exported the day's figures and {n} record to {path}",
                "Exported the day's figures and {n} records to {path}",
                written,
            ).format(n=number_in(written, staff()), path=path)
        )
        return path

    def start(self) -> None:
        """The figures at once, as the ledger has them; again once the day's paid payments
        have been read again with the service."""
        self.tasks.replace("load", self._kept(self.load()))
        self.tasks.replace("recheck", self._kept(self.count()))

    async def _kept(self, reading: Awaitable[DaySummary]) -> None:
        """Read the figures; a ledger out of reach leaves them as they were (the heading
        says as of when) and says why."""
        try:
            await reading
        except LedgerError as error:
            self._said(error)

    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setAccessibleName(text or _("No message"))

    def _said(self, error: LedgerError) -> None:
        """The ledger's sentence, until it answers again."""
        self._say(str(error))
        self.passing.said(self.message, str(error), error, lambda: self._say(""))

    def _refused_now(self) -> bool:
        return self.passing.refused_now(self.message, self._say, lambda: self._say(""))

    async def count(self) -> DaySummary:
        """The figures, after the day's paid payments are read again with the service."""
        self.message.setText(_("Reading the day's paid payments again with the service…"))
        progress = await self.controller.recheck_day(self.chosen_day())
        text = ""
        if progress.total:
            text = ngettext(
                "Read the day's {n} paid payment again: {report}",
                "Read the day's {n} paid payments again: {report}",
                progress.total,
            ).format(n=number_in(progress.total, staff()), report=progress.report())
            if progress.failed:
                text = ngettext(
                    "{said} (the one not checked is counted as PayDesk last knew it)",
                    "{said} (those not checked are counted as PayDesk last knew them)",
                    progress.failed,
                ).format(said=text)
        self.message.setText(text)
        self.message.setAccessibleName(text or _("No message"))
        return await self.load()

    def say(self, text: str) -> None:
        """What was done, in the window and in the status bar."""
        self.message.setText(text)
        self.message.setAccessibleName(text)
        self.controller.session.report(text)

    async def print_summary(self) -> bool:
        from PySide6.QtPrintSupport import QPrintDialog, QPrinter

        if self._refused_now():  # the print dialog is not opened
            return False
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        dialog = QPrintDialog(printer, self)
        dialog.setObjectName("print-dialog")
        if not await run_dialog(dialog):
            return False
        try:
            summary = await self.count()  # the figures as they are now
        except LedgerError as refused:  # gone meanwhile: nothing printed
            self._said(refused)
            return False
        painter = QPainter()
        if not painter.begin(printer):
            self.say(_(REFUSED))
            return False
        area = printer.pageLayout().paintRectPixels(printer.resolution())
        unit = area.width() / 100
        font = QFont()
        font.setPixelSize(int(unit * 3))
        painter.setFont(font)
        lines = printed_lines(self.chosen_day(), self._heading(), summary)
        for i, line in enumerate(lines):
            painter.drawText(QRectF(0, i * unit * 5, area.width(), unit * 5), Qt.AlignmentFlag.AlignLeft, line)
        painter.end()
        self.say(printed(printer))
        return True

    def done(self, result: int) -> None:  # Qt's name
        self.tasks.cancel()
        super().done(result)


async def open_end_of_day(controller: TransactionsController, tasks: TaskSet, parent: QWidget | None) -> EndOfDayDialog:
    dialog = EndOfDayDialog(controller, tasks, parent)
    dialog.start()
    await run_dialog(dialog)
    return dialog
