"""The link on screen: its QR code, amount, title, reference and live state, and what to do with it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import QByteArray, QRectF, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QGuiApplication,
    QImage,
    QImageWriter,
    QPageLayout,
    QPainter,
    QResizeEvent,
)
from PySide6.QtWidgets import QFileDialog, QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ...desk.formats import money_in
from ...desk.states import state_words
from ...desk.tasks import TaskSet
from ...desk.texts import ledger_words
from ...i18n import N_, Words, _, customer, staff
from ...ledger import LinkRecord
from .. import files
from ..dialogs import run_dialog, shown
from ..elided import ElidedLabel
from ..fitted import FittedLabel
from ..fixed_text import use_fixed
from ..printing import printed
from .qr import QrCode, QrWidget
from .watermark import Watermark


def state_label(name: str, point_size: int) -> QLabel:
    label = QLabel("")
    label.setObjectName(name)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    font = label.font()
    font.setPointSize(point_size)
    font.setBold(True)
    label.setFont(font)
    return label


def selectable_when_shown(label: QLabel) -> None:
    """Text to copy can be selected (and so takes focus) only while there is some: an empty
    label is no stop for the keyboard nor a nameless thing to a screen reader."""
    label.setTextInteractionFlags(
        Qt.TextInteractionFlag.TextSelectableByMouse if label.text() else Qt.TextInteractionFlag.NoTextInteraction
    )


def paint_state(label: QLabel, record: LinkRecord) -> None:
    words, colour = state_words(record)
    label.setText(words)
    label.setAccessibleName(_("State: {state}").format(state=words))
    label.setStyleSheet(f"color: white; background: {colour}; border-radius: 6px; padding: 6px 12px;")


TEST_PRINT = N_("TEST: not a real payment. This code can only be paid with test cards.")


def paint_page(painter: QPainter, page: QRectF, code: QrCode, record: LinkRecord, test: bool, words: Words) -> None:
    """The printed page: the code, what it is for, and in test mode a TEST mark above and
    below it, so a printed test code is never taken for a real one; in ``words``, the
    customer's language (the customer scans it)."""
    side = min(page.width(), page.height()) * 0.6
    top = page.height() * 0.14
    line = painter.fontMetrics().height()
    if test:
        big = painter.font()
        big.setBold(True)
        big.setPointSizeF(big.pointSizeF() * 2.2)
        painter.save()
        painter.setFont(big)
        painter.setPen(QColor("#b35c00"))
        painter.drawText(QRectF(0, top - line * 4.5, page.width(), line * 3.5), Qt.AlignmentFlag.AlignCenter, "TEST")
        painter.restore()
    code.paint(painter, QRectF((page.width() - side) / 2, top, side, side))
    text = f"{money_in(record.amount, record.currency, words)}\n{record.title}\n{record.tx_ref}"
    if test:
        text += f"\n\n{words.gettext(TEST_PRINT)}"
    painter.drawText(QRectF(0, top + side + line * 2, page.width(), line * 8), Qt.AlignmentFlag.AlignHCenter, text)


def _save_png(image: QImage, path: str) -> bool:
    """``image`` written to ``path`` as a PNG, whatever its name ends with (through a writer:
    QImage.save's stub and its binding disagree on the format's type)."""
    return QImageWriter(path, QByteArray(b"PNG")).write(image)


class LinkPanel(QWidget):
    said = Signal(str)  # what a button just did ("Link copied to the clipboard")

    def __init__(self, tasks: TaskSet) -> None:
        super().__init__()
        self.tasks = tasks.child(self)  # saving and printing end with the panel
        self.setObjectName("link-panel")
        self.record: LinkRecord | None = None
        column = QVBoxLayout(self)
        # one line, smaller letters where narrow: a longer language's words never widen the window
        self.state = FittedLabel(state_label("link-state", 20).font())
        self.state.setObjectName("link-state")
        column.addWidget(self.state)
        self.qr = QrWidget()
        self.qr.setObjectName("link-qr")
        column.addWidget(self.qr, 1)
        self.amount = state_label("link-amount", 18)
        self.amount.setStyleSheet("")
        column.addWidget(self.amount)
        self.title = ElidedLabel("")  # a long title elided, whole in its tooltip: never wider than the pane
        self.title.setObjectName("link-title")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        column.addWidget(self.title)
        self.reference = QLabel("")
        self.reference.setObjectName("link-reference")
        self.reference.setAlignment(Qt.AlignmentFlag.AlignCenter)
        selectable_when_shown(self.reference)
        use_fixed(self.reference)
        column.addWidget(self.reference)
        self.error = QLabel("")
        self.error.setObjectName("link-error")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b3261e;")
        column.addWidget(self.error)
        grid = QGridLayout()
        self.buttons: dict[str, QPushButton] = {}
        for i, (key, text, slot) in enumerate(
            (
                ("copy-link", _("Copy link"), self.copy_link),
                ("copy-qr", _("Copy QR image"), self.copy_qr),
                ("save-png", _("Save PNG…"), lambda: self.tasks.spawn(self.save("png"))),
                ("save-svg", _("Save SVG…"), lambda: self.tasks.spawn(self.save("svg"))),
                ("print", _("Print…"), lambda: self.tasks.spawn(self.print_qr())),
                ("open", _("Open in browser"), self.open_in_browser),
            )
        ):
            button = QPushButton(text)
            button.setObjectName(key)
            button.setAccessibleName(text.rstrip("…"))
            button.clicked.connect(slot)
            grid.addWidget(button, i // 4, i % 4)
            self.buttons[key] = button
        column.addLayout(grid)
        # what the last button did (where a file went: a long path) on one kept line, the
        # middle elided so the file's name shows, the whole on hover and in the status bar
        self.outcome = ElidedLabel("", mode=Qt.TextElideMode.ElideMiddle, keep_room=True)
        # a line of 80 characters at least: a file's name of 60 whole after a longer
        # language's words (the pane is as wide, its title elided, its state drawn smaller)
        self.outcome.setMinimumWidth(self.outcome.fontMetrics().averageCharWidth() * 80)
        self.outcome.setObjectName("link-done")
        self.outcome.setAccessibleDescription(_("What the last button did"))
        column.addWidget(self.outcome)
        self.test = True
        self.customer = customer(None)  # the customer's words (the printed page): the profile's
        self.watermark = Watermark(self)
        self.watermark.lower()
        self.show_record(None)

    def set_test(self, test: bool) -> None:
        self.test = test
        self.watermark.setVisible(test)
        self.watermark.lower()

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.watermark.setGeometry(self.rect())
        super().resizeEvent(event)

    def show_record(self, record: LinkRecord | None) -> None:
        if record is None or self.record is None or record.key != self.record.key:
            self.say("")  # what was done was done to another link
        self.record = record
        has_url = bool(record and record.checkout_url)
        for button in self.buttons.values():
            button.setEnabled(has_url)
        if record is None:
            self.qr.set_text(None)
            for label in (self.state, self.amount, self.title, self.reference, self.error):
                label.setText("")
            self.state.setStyleSheet("")
            for label in (self.state, self.reference, self.amount, self.title):
                label.setAccessibleName("")  # it shows nothing: named by nothing
                label.setAccessibleDescription(_("No link yet"))
            selectable_when_shown(self.reference)
            return
        self.qr.set_text(record.checkout_url)
        paid = record.state == "success" and record.voided_at is None  # not paid after a void
        self.qr.set_done(state_words(record).words if record.final else None, paid)
        paint_state(self.state, record)
        amount = money_in(record.amount, record.currency, staff())
        self.amount.setText(amount)
        self.amount.setAccessibleName(_("Amount {amount}").format(amount=amount))
        for label in (self.state, self.reference, self.amount, self.title):
            label.setAccessibleDescription("")
        self.title.setText(record.title)
        self.title.setAccessibleName(record.title or _("No title"))
        self.reference.setText(_("Reference {reference}").format(reference=record.tx_ref))
        self.reference.setAccessibleName(self.reference.text())
        selectable_when_shown(self.reference)
        problem = ledger_words(record.error)
        if record.state == "creating" and problem:
            problem = _("{problem}. PayDesk keeps trying with the same reference; nothing will be paid twice.").format(
                problem=problem
            )
        self.error.setText(problem)

    def update_record(self, record: LinkRecord) -> None:
        """The link shown, changed (not by a word older than the one shown, heard late)."""
        if self.record and self.record.key == record.key and not record.older_than(self.record):
            self.show_record(record)

    def say(self, text: str) -> None:
        """What a button just did, under the buttons (and in the status bar)."""
        self.outcome.setText(text)
        self.outcome.setAccessibleName(text)  # its name is what it shows
        if text:
            self.said.emit(text)

    def copy_link(self) -> None:
        if self.record and self.record.checkout_url:
            QGuiApplication.clipboard().setText(self.record.checkout_url)
            self.say(_("Link copied to the clipboard"))

    def copy_qr(self) -> None:
        if self.qr.code:
            QGuiApplication.clipboard().setImage(self.qr.code.image())
            self.say(_("QR image copied to the clipboard"))

    async def save(self, kind: str) -> str | None:
        record = self.record
        if not self.qr.code or record is None:
            return None
        dialog = QFileDialog(self, _("Save the QR code as {kind}").format(kind=kind.upper()))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(_("{kind} image (*.{suffix})").format(kind=kind.upper(), suffix=kind))
        dialog.setDefaultSuffix(kind)
        await files.open_in_start_folder(dialog, f"{record.tx_ref}.{kind}")
        self.file_dialog = dialog
        async with shown(dialog) as result:  # one dialog per save, not one kept per save
            if not result:
                return None
            path = dialog.selectedFiles()[0]
        files.remember(path)
        code = self.qr.code
        try:
            if kind == "svg":
                await asyncio.to_thread(Path(path).write_bytes, code.svg())
            elif not await asyncio.to_thread(_save_png, code.image(1200), path):
                raise OSError(_("the image could not be written"))
        except OSError as error:
            self.say(_("Not saved: {why}").format(why=error.strerror or error))
            return None
        self.say(_("Saved {kind} to {path}").format(kind=kind.upper(), path=path))
        return path

    async def print_qr(self) -> bool:
        from PySide6.QtPrintSupport import QPrintDialog, QPrinter

        code, record = self.qr.code, self.record
        if code is None or record is None:
            return False
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setPageOrientation(QPageLayout.Orientation.Portrait)
        dialog = QPrintDialog(printer, self)
        self.print_dialog = dialog
        if not await run_dialog(dialog):
            return False
        painter = QPainter(printer)
        page = printer.pageLayout().paintRectPixels(printer.resolution())
        paint_page(painter, QRectF(0, 0, page.width(), page.height()), code, record, self.test, self.customer)
        painter.end()
        self.say(printed(printer))
        return True

    def open_in_browser(self) -> None:
        if self.record and self.record.checkout_url:
            QDesktopServices.openUrl(QUrl(self.record.checkout_url))
