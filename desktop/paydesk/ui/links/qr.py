"""A QR code painted module by module with QPainter, crisp at any size, with a quiet zone."""

from __future__ import annotations

import io

import segno
from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget

QUIET = 4  # modules of white around the code, as the standard asks


class QrCode:
    """The matrix of one text (segno), and ways to draw and export it."""

    def __init__(self, text: str):
        self.text = text
        self._qr = segno.make(text, error="m", micro=False)
        self.matrix = [list(row) for row in self._qr.matrix]
        self.size = len(self.matrix)

    def paint(self, painter: QPainter, area: QRectF) -> None:
        """White square with the quiet zone, modules in black, aligned to whole pixels."""
        total = self.size + 2 * QUIET
        side = min(area.width(), area.height())
        module = max(1, int(side // total))
        drawn = module * total
        x0 = int(area.x() + (area.width() - drawn) / 2)
        y0 = int(area.y() + (area.height() - drawn) / 2)
        painter.fillRect(x0, y0, drawn, drawn, QColor("white"))
        black = QColor("black")
        for r, row in enumerate(self.matrix):
            y = y0 + (r + QUIET) * module
            run_start = None
            for c, dark in enumerate(row + [0]):
                if dark and run_start is None:
                    run_start = c
                elif not dark and run_start is not None:
                    painter.fillRect(x0 + (run_start + QUIET) * module, y,
                                     (c - run_start) * module, module, black)
                    run_start = None

    def image(self, pixels: int = 600) -> QImage:
        total = self.size + 2 * QUIET
        side = max(total, (pixels // total) * total)
        image = QImage(side, side, QImage.Format.Format_RGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        self.paint(painter, QRectF(0, 0, side, side))
        painter.end()
        return image

    def svg(self) -> bytes:
        out = io.BytesIO()
        self._qr.save(out, kind="svg", border=QUIET, scale=10, xmldecl=True)
        return out.getvalue()


class QrWidget(QWidget):
    def __init__(self, parent=None, minimum: int = 160):
        super().__init__(parent)
        self.code: QrCode | None = None
        self.setMinimumSize(minimum, minimum)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAccessibleName("QR code of the payment link")

    def set_text(self, text: str | None) -> None:
        self.code = QrCode(text) if text else None
        self.setAccessibleDescription(text or "")
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(320, 320)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return width

    def paintEvent(self, event) -> None:  # noqa: N802
        if self.code is None:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        self.code.paint(painter, QRectF(self.rect()))
        painter.end()


