"""A QR code painted module by module with QPainter, crisp at any size, with a quiet zone."""

from __future__ import annotations

import re
from functools import lru_cache

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from ...i18n import _

QUIET = 4  # modules of white around the code, as the standard asks
DARK_RUN = re.compile(rb"\x00+")  # dark modules side by side in the encoder's grid


class QrCode:
    """The modules of one text's code, and ways to draw and export it.

    Encoded by zxing-cpp (its writer, zint, in C): error correction M, the smallest version
    that holds the text (digits and capitals in their own compact segments), the mask the
    standard's penalty rules pick among the eight. In C the choice takes about 0.2 ms, where
    segno's in Python took 3 to 5, on the way from a counter's Enter to the customer's
    screen (docs/BENCHMARKS.md, "The customer's code encoded in C"). Its texts are ASCII
    (checkout URLs, references: desk/checks.py); zint would write others in Latin-1 or a
    national character set, without saying which (no ECI)."""

    def __init__(self, text: str):
        import zxingcpp  # imported at the first code, not on the way to the window's first paint

        self.text = text
        code = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.QRCode, ec_level="M")
        image = code.to_image(scale=1, add_quiet_zones=False)  # a module a byte: 0 dark, 255 light
        self.size = int(image.shape[0])
        cells = memoryview(image).tobytes()  # type: ignore[arg-type]  # a buffer; its stub omits it
        # the dark runs of each row, (row, first column, length): what is painted and exported
        side = self.size
        self.runs = [
            (r, run.start() - r * side, run.end() - run.start())
            for r in range(side)
            for run in DARK_RUN.finditer(cells, r * side, (r + 1) * side)
        ]

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
        for r, c, length in self.runs:
            painter.fillRect(x0 + (c + QUIET) * module, y0 + (r + QUIET) * module, length * module, module, black)

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
        """The code as an SVG file: a white square with the quiet zone, the dark runs as one
        path, ten pixels a module at its own size, crisp at any scale."""
        total = self.size + 2 * QUIET
        path = "".join(f"M{c + QUIET} {r + QUIET}h{length}v1h-{length}z" for r, c, length in self.runs)
        return (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{total * 10}" height="{total * 10}" '
            f'viewBox="0 0 {total} {total}" shape-rendering="crispEdges">'
            f'<rect width="{total}" height="{total}" fill="#fff"/><path fill="#000" d="{path}"/></svg>\n'
        ).encode()


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
