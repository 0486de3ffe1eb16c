"""A counter's shift report: painted on paper or a PDF (``paint``, ``pdf_bytes``), shown in a
dialog with Print… and Save as PDF… (``ShiftReportDialog``), and the close of a shift from
the Counter tab (``close_shift``: the count so far, confirmed, frozen in the ledger, then the
report). The lines are desk/shift_report.py's, the same on screen and on paper; the shift's
number is drawn in the fixed font (ui/fixed_text.py). Files are written off the GUI thread."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPageLayout, QPageSize, QPainter, QPdfWriter, QTextOption
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from ...desk.shift_report import heading, lines
from ...desk.tasks import TaskSet
from ...desk.texts import local_time
from ...ledger import LedgerError
from ...ledger.counter import Figures, SaleQuery, Shift, ShiftClosed
from ..dialogs import confirm, run_dialog, shown
from ..fixed_text import fixed_font, fixed_option, use_fixed

log = logging.getLogger("paydesk.ui.counter.report")
FIXED = {"Shift"}  # read back and typed (finance asks for "shift 12"): the fixed font


def report_lines(shift: Shift, figures: Figures, profile: str | None = None) -> list[tuple[str, str]]:
    """desk/shift_report.py's lines, with the shift's number after the counter's name."""
    said = lines(shift, figures, profile or "")
    return said[:1] + [("Shift", str(shift.id))] + said[1:]


def _words() -> QTextOption:
    option = QTextOption(Qt.AlignmentFlag.AlignLeft)
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    return option


def paint(painter: QPainter, rect: QRectF, heading: str, lines: list[tuple[str, str]],
          test: bool = False) -> None:
    """Paint a report in ``rect`` (device pixels): the heading, then a label and its value a
    line; TEST across the page for a test-mode shift."""
    unit = rect.width() / 100  # layout in hundredths of the width
    if test:
        painter.save()
        mark = QFont()
        mark.setPixelSize(int(unit * 24))
        mark.setBold(True)
        painter.setFont(mark)
        painter.setPen(QColor(245, 166, 35, 110))
        painter.translate(rect.center())
        painter.rotate(-30)
        painter.drawText(QRectF(-rect.width(), -unit * 20, rect.width() * 2, unit * 40),
                         Qt.AlignmentFlag.AlignCenter, "TEST")
        painter.restore()
    title = QFont()
    title.setPixelSize(int(unit * 4.5))
    title.setBold(True)
    painter.setFont(title)
    painter.setPen(QColor("black"))
    top = rect.top() + unit * 3
    painter.drawText(QRectF(rect.left(), top, rect.width(), unit * 8),
                     heading + (" — TEST" if test else ""), _words())
    y = top + unit * 11
    step = min(unit * 4.2, (rect.bottom() - y) / max(len(lines), 1))  # one page, always
    body = QFont()
    body.setPixelSize(int(min(unit * 2.6, step * 0.7)))
    body.setFeature(QFont.Tag("liga"), 0)
    label_font = QFont(body)
    label_font.setBold(True)
    fixed = fixed_font(body)
    for label, value in lines:
        painter.setFont(label_font)
        painter.drawText(QRectF(rect.left(), y, unit * 34, step), label, _words())
        painter.setFont(fixed if label in FIXED else body)
        option = fixed_option() if label in FIXED else _words()
        painter.drawText(QRectF(rect.left() + unit * 36, y, unit * 64, step), value, option)
        y += step


def pdf_bytes(shift: Shift, figures: Figures, profile: str | None = None) -> bytes:
    """The report as a one-page A4 PDF, in memory (the caller writes it off the GUI thread)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout.Unit.Millimeter)
    writer.setResolution(300)
    writer.setTitle(heading(shift))
    writer.setCreator("PayDesk")
    painter = QPainter(writer)
    area = writer.pageLayout().paintRectPixels(writer.resolution())
    paint(painter, QRectF(0, 0, area.width(), area.height()), heading(shift),
          report_lines(shift, figures, profile), shift.mode == "test")
    painter.end()
    buffer.close()
    return bytes(data)


def file_name(shift: Shift) -> str:
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in shift.counter)
    return f"shift-{safe}-{shift.id}.pdf"


class ShiftReportDialog(QDialog):
    """One shift's report on screen, with Print… and Save as PDF…. ``figures``: the shift's
    frozen ones when omitted (a closed shift); an open shift's count so far otherwise."""

    def __init__(self, shift: Shift, figures: Figures | None = None, *,
                 profile: str | None = None, tasks: TaskSet | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.shift, self.profile = shift, profile
        self.figures = figures if figures is not None else (shift.figures or Figures())
        self.tasks = tasks.child(self) if tasks is not None else TaskSet(self)
        self.setObjectName("shift-report")
        self.setWindowTitle(heading(shift))
        self.setAccessibleName(heading(shift))
        layout = QVBoxLayout(self)
        self.heading = QLabel(heading(shift) + ("" if shift.closed else " (open)"))
        self.heading.setObjectName("shift-report-heading")
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        big = self.heading.font()
        big.setPointSizeF(big.pointSizeF() * 1.4)
        big.setBold(True)
        self.heading.setFont(big)
        self.heading.setAccessibleName(self.heading.text())
        layout.addWidget(self.heading)
        form = QFormLayout()
        self.values: dict[str, QLabel] = {}
        for label, value in self.lines():
            shown_value = QLabel(value)
            shown_value.setObjectName("shift-report-" + label.lower().replace(" ", "-"))
            shown_value.setTextFormat(Qt.TextFormat.PlainText)
            shown_value.setAccessibleName(f"{label}: {value}")
            shown_value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            if label in FIXED:
                use_fixed(shown_value)
            form.addRow(label + ":", shown_value)
            self.values[label] = shown_value
        layout.addLayout(form)
        self.message = QLabel("")
        self.message.setObjectName("shift-report-message")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.hide()
        layout.addWidget(self.message)
        buttons = QDialogButtonBox()
        self.print_button = buttons.addButton("Print…", QDialogButtonBox.ButtonRole.ActionRole)
        self.save_button = buttons.addButton("Save as PDF…",
                                             QDialogButtonBox.ButtonRole.ActionRole)
        self.close_button = buttons.addButton("Close", QDialogButtonBox.ButtonRole.RejectRole)
        for button, name in ((self.print_button, "shift-report-print"),
                             (self.save_button, "shift-report-save"),
                             (self.close_button, "shift-report-close")):
            button.setObjectName(name)
            button.setAccessibleName(button.text().rstrip("…"))
            button.setAutoDefault(False)
        self.close_button.setDefault(True)
        self.print_button.clicked.connect(lambda: self.tasks.replace("print", self.print_report()))
        self.save_button.clicked.connect(lambda: self.tasks.replace("save", self.save_pdf()))
        self.close_button.clicked.connect(self.reject)
        layout.addWidget(buttons)

    def lines(self) -> list[tuple[str, str]]:
        return report_lines(self.shift, self.figures, self.profile)

    def say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setAccessibleName(text)
        self.message.setVisible(bool(text))

    async def save_pdf(self) -> Path | None:
        from ..transactions.actions import save_path

        path = await save_path(self, "Save the shift report as PDF", ["PDF (*.pdf)"],
                               file_name(self.shift))
        if path is None:
            return None
        data = pdf_bytes(self.shift, self.figures, self.profile)
        try:
            await asyncio.to_thread(path.write_bytes, data)
        except OSError as error:
            self.say(f"Could not save {path.name}: {error.strerror or error}")
            return None
        self.say(f"Saved the report to {path}")
        return path

    async def print_report(self) -> bool | None:
        """Print through the system's dialog: True printed, None cancelled, False refused."""
        from PySide6.QtPrintSupport import QPrintDialog, QPrinter

        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setPageOrientation(QPageLayout.Orientation.Portrait)
        printer.setDocName(heading(self.shift))
        dialog = QPrintDialog(printer, self)
        dialog.setObjectName("print-dialog")
        self.print_dialog = dialog
        async with shown(dialog) as code:
            if not code:
                return None
            painter = QPainter()
            if not painter.begin(printer):
                self.say("Could not print: the printer refused the page")
                return False
            area = printer.pageLayout().paintRectPixels(printer.resolution())
            paint(painter, QRectF(0, 0, area.width(), area.height()), heading(self.shift),
                  self.lines(), self.shift.mode == "test")
            painter.end()
        self.say("Sent to the printer")
        return True

    def done(self, result: int) -> None:  # Qt's name
        self.tasks.cancel()
        super().done(result)


def profile_name(session: Any, profile_id: str) -> str | None:
    profile = session.settings.profile(profile_id)
    return profile.name if profile is not None else None


async def _tell(parent: QWidget | None, title: str, text: str) -> None:
    box = QMessageBox(QMessageBox.Icon.Information, title, text, parent=parent)
    box.setObjectName("close-shift-told")
    ok = box.addButton("OK", QMessageBox.ButtonRole.AcceptRole)
    ok.setAccessibleName("OK")
    async with shown(box):
        pass


async def close_shift(controller: Any, parent: QWidget | None) -> Shift | None:
    """Close this counter's shift, as the staff confirms it: the count so far ("Close shift"
    / "Cancel"), then the close (frozen in the ledger), then the report to print or save.
    The closed shift, or None when nothing was closed."""
    session = controller.session
    profile = session.profile
    if profile is None:
        return None
    book = controller.book
    try:
        shift = await book.current_shift(controller.name, profile.id, session.mode)
        if shift is None:
            await _tell(parent, "Close shift", f"Counter {controller.name} has no open shift: "
                        "its next sale opens one.")
            return None
        figures = await book.figures(SaleQuery(shift_id=shift.id))
    except LedgerError as error:
        await _tell(parent, "Close shift", f"The counter's shift could not be read: {error}")
        return None
    count = "\n".join(f"{label}: {value}" for label, value in
                      report_lines(shift, figures, profile.name) if label != "Closed")
    if not await confirm(parent, "Close shift", f"Close the shift of counter {shift.counter}?",
                         f"The count so far, frozen once closed:\n\n{count}",
                         "Close shift", "Cancel", object_name="confirm-close-shift"):
        return None
    try:
        closed = await controller.close_shift(shift.id)  # the shift confirmed, never another
    except ShiftClosed:  # closed meanwhile (another window or desk): its close stands
        try:
            closed = await book.shift(shift.id)
        except LedgerError as error:
            await _tell(parent, "Close shift", f"The shift's close could not be read: {error}")
            return None
        if closed is None:
            return None
        await _tell(parent, "Close shift", "This shift was closed already (by "
                    f"{closed.closed_by}, {local_time(closed.closed_at)}): here is its report.")
    except LedgerError as error:
        await _tell(parent, "Close shift", f"The shift was not closed: {error}")
        return None
    dialog = ShiftReportDialog(closed, profile=profile.name, tasks=session.tasks, parent=parent)
    await run_dialog(dialog)
    return closed
