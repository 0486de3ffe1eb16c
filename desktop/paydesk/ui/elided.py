"""A label that never widens its window nor grows taller: its text is elided ("Keys
checked: so…") where it has less room than the text needs, and then says the whole text in
its tooltip. It is one line high, or as many lines as asked (``lines``: the text wraps
within them, the last one elided; ``mode`` ElideMiddle keeps a file's path's last part,
its file's name, in sight). ``text()`` is always the whole text (what a screen
reader and the tests read).

Used where a line of text must not push its neighbours around: the status bar's labels (a
long message must not raise the window's minimum width past the screen) and the message
under a field (its room is kept, shown or not, so nothing moves under the mouse)."""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QRect, QSize, Qt
from PySide6.QtGui import QFontMetricsF, QPainter, QPaintEvent, QResizeEvent, QTextLayout, QTextOption
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QWidget

LEAST_CHARS = 4  # the least a label asks for: a few characters and the ellipsis
EVERY_LINE = 1 << 20  # a WrappedLabel's lines: as many as its text needs


class ElidedLabel(QLabel):
    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
        *,
        keep_room: bool = False,
        lines: int = 1,
    ):
        """``keep_room``: hidden, it keeps its room (a message that comes and goes moves
        nothing); ``lines``: how many lines high it is."""
        super().__init__("", parent)
        self.mode = mode
        self.lines = max(1, lines)
        self._own_tip = ""  # a tooltip of its own, shown while the text fits
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(False)
        # as wide as its text where there is room, down to a few characters where not
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        policy.setRetainSizeWhenHidden(keep_room)
        self.setSizePolicy(policy)
        self.setText(text)

    # -- the text and its tooltip --------------------------------------------------------

    def setText(self, text: str) -> None:
        super().setText(text)
        self._tip()

    def setToolTip(self, tip: str) -> None:
        self._own_tip = tip
        self._tip()

    def full_width(self) -> int:
        """The width the whole text needs on one line, in whole pixels (a fraction rounded
        up: rounded down, the text would be elided in the very room it asked for)."""
        return math.ceil(QFontMetricsF(self.font()).horizontalAdvance(self.text()))

    def shown_lines(self) -> tuple[list[str], bool]:
        """The lines as drawn in the room there is, and whether the text was cut to fit
        (its last line elided)."""
        text, width = self.text(), max(1, self.contentsRect().width())
        if "\n" not in text and self.full_width() <= width:
            return [text], False
        if self.lines == 1:
            return [self._elide(text.replace("\n", " "), width)], True
        layout = QTextLayout(text.replace("\n", "\u2028"), self.font())
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(option)
        layout.beginLayout()
        shown: list[str] = []
        start = 0
        while len(shown) < self.lines - 1:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(width)
            end = line.textStart() + line.textLength()
            shown.append(text[line.textStart() : end].strip())
            start = end
        layout.endLayout()
        rest = text[start:].replace("\n", " ").strip()
        if not rest:
            return shown, False
        last = self._elide(rest, width)
        return [*shown, last], last != rest

    def _elide(self, text: str, width: int) -> str:
        """``text`` on a line of ``width``, elided in the label's mode; elided in the middle,
        a file's path keeps its file's name whole (the folders before it shortened) where
        the line has room for the name."""
        metrics = self.fontMetrics()
        cut = max(text.rfind("/"), text.rfind("\\"))
        if self.mode == Qt.TextElideMode.ElideMiddle and cut > 0:
            name = text[cut:]
            room = width - metrics.horizontalAdvance(name)
            # the name whole whenever it fits beside an ellipsis: the words before it (a
            # longer language's) shortened first, down to the ellipsis alone
            if metrics.horizontalAdvance(text) > width and room >= metrics.horizontalAdvance("…"):
                return metrics.elidedText(text[:cut], Qt.TextElideMode.ElideRight, room) + name
        return metrics.elidedText(text, self.mode, width)

    def elided(self) -> bool:
        return bool(self.text()) and self.shown_lines()[1]

    def _tip(self) -> None:
        tip = self.text() if self.elided() else self._own_tip
        if tip != super().toolTip():
            super().setToolTip(tip)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._tip()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        self._tip()

    # -- its size ------------------------------------------------------------------------

    def _height(self) -> int:
        margins = self.contentsMargins()
        metrics = self.fontMetrics()
        return metrics.height() + (self.lines - 1) * metrics.lineSpacing() + margins.top() + margins.bottom()

    def _extra_width(self) -> int:
        margins = self.contentsMargins()
        return margins.left() + margins.right()  # a frame's width is among them

    def sizeHint(self) -> QSize:
        return QSize(self.full_width() + self._extra_width(), self._height())

    def minimumSizeHint(self) -> QSize:
        least = self.fontMetrics().horizontalAdvance("M" * LEAST_CHARS + "…")
        return QSize(min(least, self.full_width()) + self._extra_width(), self._height())

    def heightForWidth(self, width: int) -> int:
        return self._height()

    def hasHeightForWidth(self) -> bool:
        return False

    # -- drawing -------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        QFrame.paintEvent(self, event)  # the frame and the style's background
        painter = QPainter(self)
        area = self.contentsRect()
        align = self.alignment()
        lines, _ = self.shown_lines()
        if self.lines == 1:
            if not align & Qt.AlignmentFlag.AlignVertical_Mask:
                align |= Qt.AlignmentFlag.AlignVCenter
            rects = [area]
        else:  # from the top, a line each
            align = (align & Qt.AlignmentFlag.AlignHorizontal_Mask) | Qt.AlignmentFlag.AlignTop
            step = self.fontMetrics().lineSpacing()
            rects = [QRect(area.x(), area.y() + i * step, area.width(), step) for i in range(len(lines))]
        for rect, line in zip(rects, lines):
            self.style().drawItemText(
                painter, rect, int(align.value), self.palette(), self.isEnabled(), line, self.foregroundRole()
            )
        painter.end()


class WrappedLabel(ElidedLabel):
    """A label of as many lines as its text needs at its width, broken between words, or
    inside a word longer than its line (an e-mail address, a URL, a file's path): never cut,
    never widening its window, never scrolled sideways. (A QLabel that wraps asks for its
    longest word's width, and a long address asked the Transactions details pane for more
    than a 1024 px screen gives it.)"""

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(text, parent, lines=EVERY_LINE)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def _line_count(self, width: int) -> int:
        text = self.text()
        if not text:
            return 1
        layout = QTextLayout(text.replace("\n", "\u2028"), self.font())
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(option)
        layout.beginLayout()
        count = 0
        while (line := layout.createLine()).isValid():
            line.setLineWidth(max(1, width))
            count += 1
        layout.endLayout()
        return max(1, count)

    def heightForWidth(self, width: int) -> int:
        margins = self.contentsMargins()
        inside = width - margins.left() - margins.right()
        metrics = self.fontMetrics()
        return (
            metrics.height() + (self._line_count(inside) - 1) * metrics.lineSpacing() + margins.top() + margins.bottom()
        )

    def hasHeightForWidth(self) -> bool:
        return True

    def sizeHint(self) -> QSize:
        width = self.full_width() + self._extra_width()
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        # one line high, as a QLabel that wraps: its height at a width is heightForWidth's
        least = super().minimumSizeHint()
        return QSize(least.width(), self.heightForWidth(self.sizeHint().width()))
