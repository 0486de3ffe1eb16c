"""The TEST watermark of the desk's link panel and the counter display, and the one across
a printed page (a receipt, a shift report)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import QWidget


class Watermark(QWidget):
    """TEST written across the background, so a test link is never mistaken for a real one.
    It lies under the QR code (which paints its own white square), never over it, so the
    code still scans."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setObjectName("test-watermark")

    _cache: tuple[tuple, QPixmap] | None = None  # the drawing of the last size

    def paintEvent(self, event: QPaintEvent) -> None:
        """TEST, tiled across the whole background: visible around everything on top. Drawn
        once per size (a full screen of text takes milliseconds), then copied."""
        ratio = self.devicePixelRatioF()
        key = (self.width(), self.height(), ratio, self.font().key())
        if self._cache is None or self._cache[0] != key:
            pixmap = QPixmap(max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio)))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(Qt.GlobalColor.transparent)
            self._draw(QPainter(pixmap))
            self._cache = (key, pixmap)
        painter = QPainter(self)
        area = event.rect()  # only what is repainted (the code's square, a label)
        painter.drawPixmap(
            area,
            self._cache[1],
            QRectF(area.x() * ratio, area.y() * ratio, area.width() * ratio, area.height() * ratio).toRect(),
        )
        painter.end()

    def _draw(self, painter: QPainter) -> None:
        painter.setPen(QColor(245, 166, 35, 150))
        font = QFont(self.font())
        font.setPointSize(max(18, min(self.width(), self.height()) // 14))
        font.setBold(True)
        painter.setFont(font)
        step_x = painter.fontMetrics().horizontalAdvance("TEST") * 2
        step_y = painter.fontMetrics().height() * 3
        painter.translate(self.width() / 2, self.height() / 2)
        painter.rotate(-30)
        reach = int((self.width() + self.height()) * 0.8)
        for row, y in enumerate(range(-reach, reach, step_y)):
            offset = (row % 2) * step_x // 2
            for x in range(-reach - offset, reach, step_x):
                painter.drawText(x, y, "TEST")
        painter.end()


def paint_page_mark(painter: QPainter, page: QRectF) -> None:
    """TEST once across a printed page (a receipt, a shift report), faint and at an angle,
    under what is painted after it; the painter's state is left as it was."""
    unit = page.width() / 100
    painter.save()
    mark = QFont()
    mark.setPixelSize(int(unit * 24))
    mark.setBold(True)
    painter.setFont(mark)
    painter.setPen(QColor(245, 166, 35, 110))
    painter.translate(page.center())
    painter.rotate(-30)
    painter.drawText(
        QRectF(-page.width(), -unit * 20, page.width() * 2, unit * 40), Qt.AlignmentFlag.AlignCenter, "TEST"
    )
    painter.restore()
