"""A counter's shift report (painted on paper or a PDF by ``report_paper``), shown in a
dialog with Print…, Save as PDF… and, after a close, Open folder (``ShiftReportDialog``), and
the close of a shift from the Counter tab (``close_shift``: the count so far, confirmed,
frozen in the ledger, its PDF saved by itself in Documents/Shift reports, then the report
with Print… focused). The lines are desk/shift_report.py's, the same on screen and on
paper; the shift's number is drawn in the fixed font (ui/fixed_text.py). Nothing is painted
on paper or a PDF, nor written, on the GUI thread (``report_paper``)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import (
    QDesktopServices,
    QPageLayout,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from ...desk.formats import time_in
from ...desk.shift_report import heading
from ...desk.tasks import TaskSet
from ...i18n import _, staff
from ...ledger import LedgerError
from ...ledger.counter import Figures, SaleQuery, Shift, ShiftClosed
from ..dialogs import confirm, run_dialog, shown
from ..elided import ElidedLabel
from ..fixed_text import use_fixed
from ..printing import REFUSED, printed
from . import report_paper
from .report_paper import FIXED, report_lines

log = logging.getLogger("paydesk.ui.counter.report")


class ShiftReportDialog(QDialog):
    """One shift's report on screen, with Print… and Save as PDF…. ``figures``: the shift's
    frozen ones when omitted (a closed shift); an open shift's count so far otherwise.
    ``saved``: opened just after Close shift, where its PDF was saved by itself (a Path,
    with Open folder), or why it could not be (an OSError); Print… has the focus then (the
    staff choose the printer)."""

    def __init__(
        self,
        shift: Shift,
        figures: Figures | None = None,
        *,
        profile: str | None = None,
        tasks: TaskSet | None = None,
        parent: QWidget | None = None,
        saved: Path | OSError | None = None,
    ):
        super().__init__(parent)
        self.shift, self.profile = shift, profile
        self.figures = figures if figures is not None else (shift.figures or Figures())
        self.tasks = tasks.child(self) if tasks is not None else TaskSet(self)
        self.setObjectName("shift-report")
        self.setWindowTitle(heading(shift))
        self.setAccessibleName(heading(shift))
        layout = QVBoxLayout(self)
        shown_heading = heading(shift) if shift.closed else _("{heading} (open)").format(heading=heading(shift))
        self.heading = QLabel(shown_heading)
        self.heading.setObjectName("shift-report-heading")
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        big = self.heading.font()
        big.setPointSizeF(big.pointSizeF() * 1.4)
        big.setBold(True)
        self.heading.setFont(big)
        self.heading.setAccessibleName(self.heading.text())
        layout.addWidget(self.heading)
        form = QFormLayout()
        self.values: dict[str, QLabel] = {}  # by their labels, as shown
        fixed = {_(word) for word in FIXED}
        for row, (label, value) in enumerate(self.lines()):
            shown_value = QLabel(value)
            shown_value.setObjectName(f"shift-report-line-{row}")
            shown_value.setTextFormat(Qt.TextFormat.PlainText)
            said = _("{label}: {value}").format(label=label, value=value)
            shown_value.setAccessibleName(said)
            shown_value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            if label in fixed:
                use_fixed(shown_value)
            form.addRow(_("{label}:").format(label=label), shown_value)
            self.values[label] = shown_value
        layout.addLayout(form)
        # where the report went (a long path): two lines kept, shown or not (the buttons
        # stay under the mouse), the middle elided so the file's name shows, the whole on hover
        self.message = ElidedLabel("", mode=Qt.TextElideMode.ElideMiddle, keep_room=True, lines=2)
        self.message.setObjectName("shift-report-message")
        self.message.hide()
        layout.addWidget(self.message)
        buttons = QDialogButtonBox()
        self.print_button = buttons.addButton(_("Print…"), QDialogButtonBox.ButtonRole.ActionRole)
        self.save_button = buttons.addButton(_("Save as PDF…"), QDialogButtonBox.ButtonRole.ActionRole)
        self.folder_button = buttons.addButton(_("Open folder"), QDialogButtonBox.ButtonRole.ActionRole)
        self.close_button = buttons.addButton(_("Close"), QDialogButtonBox.ButtonRole.RejectRole)
        for button, name in (
            (self.print_button, "shift-report-print"),
            (self.save_button, "shift-report-save"),
            (self.folder_button, "shift-report-folder"),
            (self.close_button, "shift-report-close"),
        ):
            button.setObjectName(name)
            button.setAccessibleName(button.text().rstrip("…"))
            button.setAutoDefault(False)
        self.saved = saved if isinstance(saved, Path) else None
        self.folder_button.setVisible(self.saved is not None)
        self.folder_button.clicked.connect(self.open_folder)
        if saved is None:  # a reprint (finance's window): Close is what Enter does
            self.close_button.setDefault(True)
        else:  # just closed: the paper next; Enter opens the print dialog
            self.print_button.setDefault(True)
            self.print_button.setFocus(Qt.FocusReason.OtherFocusReason)
        self.print_button.clicked.connect(lambda: self.tasks.replace("print", self.print_report()))
        self.save_button.clicked.connect(lambda: self.tasks.replace("save", self.save_pdf()))
        self.close_button.clicked.connect(self.reject)
        layout.addWidget(buttons)
        if isinstance(saved, Path):
            self.say(_("Saved the report as PDF to {path}").format(path=saved))
        elif saved is not None:
            self.say(
                _("Could not save the report as PDF in {folder}: {error}. Save it with Save as PDF…").format(
                    folder=report_paper.folder(), error=saved.strerror or saved
                )
            )

    def lines(self) -> list[tuple[str, str]]:
        return report_lines(self.shift, self.figures, self.profile)

    def say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setAccessibleName(text)
        self.message.setVisible(bool(text))

    async def save_pdf(self) -> Path | None:
        from ..transactions.actions import save_path

        path = await save_path(
            self, _("Save the shift report as PDF"), [_("PDF (*.pdf)")], report_paper.report_name(self.shift)
        )
        if path is None:
            return None
        data = await report_paper.render(self.shift, self.figures, self.profile)
        try:
            await report_paper.write(path, data)
        except OSError as error:
            self.say(_("Could not save {name}: {error}").format(name=path.name, error=error.strerror or error))
            return None
        self.say(_("Saved the report to {path}").format(path=path))
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
        # the dialog is gone: the printer is painted (and spooled, or its PDF file written)
        # in a worker thread, never on the GUI thread
        self.say(_("Printing…"))
        if not await report_paper.print_on(printer, self.shift, self.lines()):
            self.say(_(REFUSED))
            return False
        self.say(printed(printer))
        return True

    def open_folder(self) -> None:
        """The folder the report was saved in, in the system's file manager."""
        if self.saved is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.saved.parent)))

    def done(self, result: int) -> None:  # Qt's name
        self.tasks.cancel()
        super().done(result)


def profile_name(session: Any, profile_id: str) -> str | None:
    profile = session.settings.profile(profile_id)
    return profile.name if profile is not None else None


async def _tell(parent: QWidget | None, title: str, text: str) -> None:
    box = QMessageBox(QMessageBox.Icon.Information, title, text, parent=parent)
    box.setObjectName("close-shift-told")
    ok = box.addButton(_("OK"), QMessageBox.ButtonRole.AcceptRole)
    ok.setAccessibleName(_("OK"))
    async with shown(box):
        pass


async def close_shift(controller: Any, parent: QWidget | None) -> Shift | None:
    """Close this counter's shift, as the staff confirms it: the count so far ("Close shift"
    / "Cancel"), then the close (frozen in the ledger), then the report to print or save.
    The closed shift, or None when nothing was closed."""
    title = _("Close shift")
    session = controller.session
    profile = session.profile
    if profile is None:
        return None
    book = controller.book
    try:
        session.refuse_while_down()  # nothing could be counted nor frozen: said at once
    except LedgerError as refused:
        await _tell(parent, title, str(refused))
        return None
    try:
        shift = await book.current_shift(controller.name, profile.id, session.mode)
        if shift is None:
            await _tell(
                parent,
                title,
                _("Counter {name} has no open shift: its next sale opens one.").format(name=controller.name),
            )
            return None
        figures = await book.figures(SaleQuery(shift_id=shift.id))
    except LedgerError as error:
        await _tell(parent, title, str(error))  # the one sentence: nothing frozen
        return None
    count = "\n".join(
        _("{label}: {value}").format(label=label, value=value)
        for label, value in report_lines(shift, figures, profile.name, closed=False)
    )
    if not await confirm(
        parent,
        title,
        _("Close the shift of counter {counter}?").format(counter=shift.counter),
        _("The count so far, frozen once closed:\n\n{count}").format(count=count),
        title,
        _("Cancel"),
        object_name="confirm-close-shift",
    ):
        return None
    saved: Path | OSError | None = None
    try:
        closed = await controller.close_shift(shift.id)  # the shift confirmed, never another
        try:  # the paper needs a printer chosen by the staff; the PDF is kept by itself
            saved = await report_paper.save_closed(closed, closed.figures or Figures(), profile.name)
        except OSError as error:
            log.warning("the report of shift %s was not saved: %s", closed.id, error)
            saved = error
    except ShiftClosed:  # closed meanwhile (another window or desk): its close stands
        try:
            closed = await book.shift(shift.id)
        except LedgerError as error:
            await _tell(parent, title, str(error))  # the one sentence: its close stands
            return None
        if closed is None:
            return None
        await _tell(
            parent,
            title,
            _("This shift was closed already (by {who}, {when}): here is its report.").format(
                who=closed.closed_actor or closed.closed_by, when=time_in(closed.closed_at, staff())
            ),
        )
    except LedgerError as error:
        await _tell(parent, title, str(error))  # the one sentence: nothing frozen
        return None
    dialog = ShiftReportDialog(closed, profile=profile.name, tasks=session.tasks, parent=parent, saved=saved)
    await run_dialog(dialog)
    return closed
