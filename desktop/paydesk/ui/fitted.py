"""A label of a few loud words (a link's state) on one line, its letters made smaller where
its room is narrower than its words: a longer language's "WAITING FOR PAYMENT" never widens
the window, and is never cut (nor wrapped under the code)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

LEAST_POINTS = 9  # smaller than this is not read at a glance: the words are elided then


class FittedLabel(QLabel):
    def __init__(self, font: QFont, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.full = QFont(font)  # the font it is drawn in when there is room
        self.setFont(self.full)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.words = ""

    def setText(self, text: str) -> None:
        self.words = text
        self._fit()

    def text_shown(self) -> str:
        return super().text()

    def sizeHint(self) -> QSize:
        metrics = QFontMetrics(self.full)
        margins = self.contentsMargins()
        extra = margins.left() + margins.right() + 2 * self.margin() + 24  # the badge's padding
        height = metrics.height() + margins.top() + margins.bottom() + 2 * self.margin() + 10
        return QSize(metrics.horizontalAdvance(self.words) + extra, height)

    def minimumSizeHint(self) -> QSize:
        return QSize(QFontMetrics(self.full).averageCharWidth() * 6, self.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        room = self.contentsRect().width() - 2 * self.margin() - 24
        font = QFont(self.full)
        points = font.pointSizeF() if font.pointSizeF() > 0 else 12.0
        while points > LEAST_POINTS and QFontMetrics(font).horizontalAdvance(self.words) > room:
            points -= 1
            font.setPointSizeF(points)
        self.setFont(font)
        metrics = QFontMetrics(font)
        shown = self.words
        if metrics.horizontalAdvance(shown) > room > 0:
            shown = metrics.elidedText(shown, Qt.TextElideMode.ElideRight, room)
        super().setText(shown)
        self.setToolTip(self.words if shown != self.words else "")
