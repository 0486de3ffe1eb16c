"""A QR code painted module by module with QPainter, crisp at any size, with a quiet zone."""

from __future__ import annotations

import io
from functools import lru_cache

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from ...i18n import _

QUIET = 4  # modules of white around the code, as the standard asks


class QrCode:
    """The matrix of one text (segno), and ways to draw and export it."""

    def __init__(self, text: str):
        import segno  # imported at the first code, not on the way to the window's first paint

        self.text = text
        self._qr = segno.make(text, error="m", micro=False)
        self.matrix = [list(row) for row in self._qr.matrix]
        self.size = len(self.matrix)

    def paint(self, painter: QPainter, area: QRectF, dark: QColor | None = None) -> None:
        """White square with the quiet zone, modules in black (or ``dark``), aligned to
        whole pixels."""
        total = self.size + 2 * QUIET
        side = min(area.width(), area.height())
        module = max(1, int(side // total))
        drawn = module * total
        x0 = int(area.x() + (area.width() - drawn) / 2)
        y0 = int(area.y() + (area.height() - drawn) / 2)
        painter.fillRect(x0, y0, drawn, drawn, QColor("white"))
        black = dark or QColor("black")
        for r, row in enumerate(self.matrix):
            y = y0 + (r + QUIET) * module
            run_start = None
            for c, module_dark in enumerate(row + [0]):
                if module_dark and run_start is None:
                    run_start = c
                elif not module_dark and run_start is not None:
                    painter.fillRect(x0 + (run_start + QUIET) * module, y, (c - run_start) * module, module, black)
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


@lru_cache(maxsize=16)
def code_of(text: str) -> QrCode:
    """The code of ``text``, encoded once: the same link on several screens (the staff's
    mirror and the customer's display) costs one encoding, not one per screen."""
    return QrCode(text)


DIMMED = QColor(222, 222, 222)  # too faint to scan: a settled link's code


class QrWidget(QWidget):
    """The code of a link. Once the link is settled (PAID, failed, cancelled...) the code is
    dimmed and crossed by the state's words, so nobody scans a code that can no longer be
    paid; the words say why."""

    def __init__(self, parent: QWidget | None = None, minimum: int = 160) -> None:
        super().__init__(parent)
        self.code: QrCode | None = None
        self.done: str | None = None  # the settled state's words, drawn across the code
        self.paid = False  # settled as paid: the words in green, else in red
        self.setMinimumSize(minimum, minimum)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAccessibleName(_("QR code of the payment link"))

    def set_text(self, text: str | None) -> None:
        if self.code is None or text != self.code.text:
            self.code = code_of(text) if text else None
        self.setAccessibleDescription(text or "")
        self.set_done(None)

    def set_done(self, words: str | None, paid: bool = False) -> None:
        """Dim the code and mark it with ``words`` (None: a live code, black, scannable), in
        green when ``paid`` (the state, not its words: they are the reader's language)."""
        self.done = words if self.code is not None else None
        self.paid = paid and self.done is not None
        self.setAccessibleName(
            _("QR code of the payment link: {state}, no longer payable").format(state=self.done)
            if self.done
            else _("QR code of the payment link")
        )
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(320, 320)

    # No height for width: the code is drawn as the largest square its room holds, centred.
    # Asking a layout for as much height as width, it was given it where there was none, and
    # the code was drawn under the words below it (the customer view beside the amount box).

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.code is None:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        area = QRectF(self.rect())
        self.code.paint(painter, area, DIMMED if self.done else None)
        if self.done:
            self._mark(painter, area, self.done)
        painter.end()

    def _mark(self, painter: QPainter, area: QRectF, done: str) -> None:
        """The state's words on a band across the middle of the code."""
        side = min(area.width(), area.height())  # the code's square, centred in the area
        band = QRectF(area.center().x() - side / 2, area.center().y() - side * 0.16, side, side * 0.32)
        painter.fillRect(band, QColor(255, 255, 255, 235))
        font = QFont(self.font())
        font.setBold(True)
        font.setPixelSize(max(10, int(side * 0.13)))
        while font.pixelSize() > 10 and QFontMetrics(font).horizontalAdvance(done) > side * 0.92:
            font.setPixelSize(font.pixelSize() - 1)
        painter.setFont(font)
        painter.setPen(QColor("#1b7f3b") if self.paid else QColor("#b3261e"))
        painter.drawText(band, Qt.AlignmentFlag.AlignCenter, done)
