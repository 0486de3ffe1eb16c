"""The link on screen: its QR code, amount, title, reference and live state, and what to do with it."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QRectF, QUrl, Qt, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication, QPainter, QPageLayout
from PySide6.QtWidgets import (QFileDialog, QGridLayout, QLabel, QPushButton,
                               QVBoxLayout, QWidget)

from ...ledger import LinkRecord
from ..dialogs import finished
from ..fixed_text import use_fixed
from .qr import QrWidget
from .states import money, state_words
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


def paint_state(label: QLabel, record: LinkRecord) -> None:
    words, colour = state_words(record)
    label.setText(words)
    label.setAccessibleName(f"State: {words}")
    label.setStyleSheet(f"color: white; background: {colour}; border-radius: 6px; padding: 6px 12px;")


class LinkPanel(QWidget):
    counterRequested = Signal(object)  # show this LinkRecord on the counter display

    def __init__(self, tasks):
        super().__init__()
        self.tasks = tasks.child(self)  # saving and printing end with the panel
        self.setObjectName("link-panel")
        self.record: LinkRecord | None = None
        column = QVBoxLayout(self)
        self.state = state_label("link-state", 20)
        column.addWidget(self.state)
        self.qr = QrWidget()
        self.qr.setObjectName("link-qr")
        column.addWidget(self.qr, 1)
        self.amount = state_label("link-amount", 18)
        self.amount.setStyleSheet("")
        column.addWidget(self.amount)
        self.title = QLabel("")
        self.title.setObjectName("link-title")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        column.addWidget(self.title)
        self.reference = QLabel("")
        self.reference.setObjectName("link-reference")
        self.reference.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.reference.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        use_fixed(self.reference)
        column.addWidget(self.reference)
        self.error = QLabel("")
        self.error.setObjectName("link-error")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b3261e;")
        column.addWidget(self.error)
        grid = QGridLayout()
        self.buttons: dict[str, QPushButton] = {}
        for i, (key, text, slot) in enumerate((
                ("copy-link", "Copy link", self.copy_link),
                ("copy-qr", "Copy QR image", self.copy_qr),
                ("save-png", "Save PNG…", lambda: self.tasks.spawn(self.save("png"))),
                ("save-svg", "Save SVG…", lambda: self.tasks.spawn(self.save("svg"))),
                ("print", "Print…", lambda: self.tasks.spawn(self.print_qr())),
                ("open", "Open in browser", self.open_in_browser),
                ("counter", "Show on counter display",
                 lambda: self.counterRequested.emit(self.record)))):
            button = QPushButton(text)
            button.setObjectName(key)
            button.setAccessibleName(text.rstrip("…"))
            button.clicked.connect(slot)
            grid.addWidget(button, i // 4, i % 4)
            self.buttons[key] = button
        column.addLayout(grid)
        self.watermark = Watermark(self)
        self.watermark.lower()
        self.show_record(None)

    def set_test(self, test: bool) -> None:
        self.watermark.setVisible(test)
        self.watermark.lower()

    def resizeEvent(self, event) -> None:  # noqa: N802
        self.watermark.setGeometry(self.rect())
        super().resizeEvent(event)

    def show_record(self, record: LinkRecord | None) -> None:
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
                label.setAccessibleName("No link yet")
            return
        self.qr.set_text(record.checkout_url)
        paint_state(self.state, record)
        self.amount.setText(money(record))
        self.amount.setAccessibleName(f"Amount {money(record)}")
        self.title.setText(record.title)
        self.title.setAccessibleName(record.title or "No title")
        self.reference.setText(f"Reference {record.tx_ref}")
        self.reference.setAccessibleName(f"Reference {record.tx_ref}")
        problem = record.error or ""
        if record.state == "creating" and problem:
            problem += ". PayDesk keeps trying with the same reference; nothing will be paid twice."
        self.error.setText(problem)

    def update_record(self, record: LinkRecord) -> None:
        if self.record and (self.record.profile_id, self.record.tx_ref) == (record.profile_id, record.tx_ref):
            self.show_record(record)

    def copy_link(self) -> None:
        if self.record and self.record.checkout_url:
            QGuiApplication.clipboard().setText(self.record.checkout_url)

    def copy_qr(self) -> None:
        if self.qr.code:
            QGuiApplication.clipboard().setImage(self.qr.code.image())

    async def save(self, kind: str) -> str | None:
        if not self.qr.code:
            return None
        dialog = QFileDialog(self, f"Save the QR code as {kind.upper()}")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(f"{kind.upper()} image (*.{kind})")
        dialog.setDefaultSuffix(kind)
        dialog.selectFile(f"{self.record.tx_ref}.{kind}")
        self.file_dialog = dialog
        if not await finished(dialog):
            return None
        path = dialog.selectedFiles()[0]
        code = self.qr.code
        if kind == "svg":
            data = code.svg()
            await asyncio.to_thread(lambda: open(path, "wb").write(data))
        else:
            image = code.image(1200)
            await asyncio.to_thread(image.save, path, "PNG")
        return path

    async def print_qr(self) -> bool:
        from PySide6.QtPrintSupport import QPrintDialog, QPrinter

        if not self.qr.code:
            return False
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setPageOrientation(QPageLayout.Orientation.Portrait)
        dialog = QPrintDialog(printer, self)
        self.print_dialog = dialog
        if not await finished(dialog):
            return False
        painter = QPainter(printer)
        page = printer.pageLayout().paintRectPixels(printer.resolution())
        side = min(page.width(), page.height()) * 0.7
        self.qr.code.paint(painter, QRectF((page.width() - side) / 2, page.height() * 0.1, side, side))
        painter.drawText(QRectF(0, page.height() * 0.1 + side + 40, page.width(), 200),
                         Qt.AlignmentFlag.AlignHCenter, f"{money(self.record)}\n{self.record.title}\n"
                         f"{self.record.tx_ref}")
        painter.end()
        return True

    def open_in_browser(self) -> None:
        if self.record and self.record.checkout_url:
            QDesktopServices.openUrl(QUrl(self.record.checkout_url))


