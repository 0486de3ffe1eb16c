"""Text a person reads back, types or copies (references, keys, URLs, card numbers and
hashes), drawn so each character is itself: in a monospaced face that tells 0 from O and
1 from l, with no ligatures and no shaping ("cﬀb" read from a PDF is not "cffb").

One place for it: ``fixed_font()`` for a QFont, ``use_fixed()`` for a widget,
``fixed_html()`` for a reference inside a rich-text sentence (a message box's),
``fixed_option()`` for how it is laid out where it is painted (receipts, printouts), with
the painter's font set to ``fixed_font()``: shaping is the font's to turn off;
``draw_one_line()`` to paint a reference on paper: on one line, made smaller to fit, never
broken;
``OneLineDelegate`` for a list's cells that hold it (the model gives the font and the
tooltip): one line, never broken.
"""

from __future__ import annotations

import html
from functools import lru_cache

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, Qt
from PySide6.QtGui import QFont, QFontDatabase, QFontMetricsF, QPainter, QTextOption
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem, QWidget

# faces known to slash or dot the zero and to give 1 and l distinct shapes, best first;
# the system's fixed face when none is installed
FACES = (
    "DejaVu Sans Mono",
    "Cascadia Mono",
    "Consolas",
    "Menlo",
    "SF Mono",
    "Source Code Pro",
    "Noto Sans Mono",
    "Liberation Mono",
)
# OpenType features that join or swap glyphs: all off
NO_LIGATURES = ("liga", "clig", "dlig", "hlig", "calt", "rlig")


@lru_cache(maxsize=1)
def _face() -> str:
    installed = set(QFontDatabase.families())
    for face in FACES:
        if face in installed:
            return face
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()


def fixed_font(base: QFont | None = None, *, pixel_size: int | None = None, point_size: float | None = None) -> QFont:
    """``base`` (size, weight) in the fixed face, with ligatures and shaping off."""
    font = QFont(base) if base is not None else QFont()
    font.setFamilies([_face()])
    font.setStyleHint(QFont.StyleHint.TypeWriter)
    font.setFixedPitch(True)
    font.setKerning(False)
    font.setStyleStrategy(QFont.StyleStrategy(font.styleStrategy() | QFont.StyleStrategy.PreferNoShaping))
    for tag in NO_LIGATURES:
        font.setFeature(QFont.Tag(tag), 0)
    if pixel_size is not None:
        font.setPixelSize(pixel_size)
    if point_size is not None:
        font.setPointSizeF(point_size)
    return font


def is_fixed(font: QFont) -> bool:
    """Does ``font`` draw text as ``fixed_font`` does (what the tests check of a widget)?"""
    return (
        font.family() == _face()
        and font.fixedPitch()
        and bool(font.styleStrategy() & QFont.StyleStrategy.PreferNoShaping)
        and all(font.featureValue(QFont.Tag(tag)) == 0 for tag in NO_LIGATURES)
    )


def use_fixed(*widgets: QWidget) -> None:
    """Show these widgets' text in the fixed font, at their own size."""
    for widget in widgets:
        widget.setFont(fixed_font(widget.font()))


def fixed_option(alignment: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft, wrap: bool = True) -> QTextOption:
    """How a reference is painted: wrapped anywhere when it must (it has no words), laid
    out as it is (no shaping: each character its own glyph)."""
    option = QTextOption(alignment)
    option.setWrapMode(QTextOption.WrapMode.WrapAnywhere if wrap else QTextOption.WrapMode.NoWrap)
    return option


def draw_one_line(
    painter: QPainter, box: QRectF, text: str, alignment: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft
) -> float:
    """Paint ``text`` (a reference) in the painter's font, which is ``fixed_font``'s, on one
    line in ``box``: made smaller until it fits the box's width, never wrapped (a reference
    broken after a hyphen reads as two). Returns the height of the line drawn."""
    font = QFont(painter.font())
    metrics = QFontMetricsF(font, painter.device())
    need = metrics.horizontalAdvance(text)
    if need > box.width() > 0:
        if font.pixelSize() > 0:
            font.setPixelSize(max(1, int(font.pixelSize() * box.width() / need)))
        else:
            font.setPointSizeF(font.pointSizeF() * box.width() / need)
        metrics = QFontMetricsF(font, painter.device())
        while metrics.horizontalAdvance(text) > box.width() and font.pixelSize() > 1:
            font.setPixelSize(font.pixelSize() - 1)  # rounded down once more, if need be
            metrics = QFontMetricsF(font, painter.device())
    kept = painter.font()
    painter.setFont(font)
    painter.drawText(box, text, fixed_option(alignment, wrap=False))
    painter.setFont(kept)
    return metrics.height()


def fixed_html(text: str) -> str:
    """``text`` as a rich-text span in the fixed face (kerning off), escaped: a reference
    inside a message box's sentence (the rest of which is given through ``html.escape``)."""
    return f"<span style=\"font-family: '{_face()}'; font-kerning: none;\">{html.escape(text)}</span>"


class OneLineDelegate(QStyledItemDelegate):
    """A list's cell of fixed text (a reference, a URL) drawn on one line: never wrapped (a
    reference broken at a hyphen reads as two), elided in the middle when its column is too
    narrow, so its start and its end both show; the model gives the whole of it as the
    cell's tooltip, and the fixed font."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        option.features &= ~QStyleOptionViewItem.ViewItemFeature.WrapText
        option.textElideMode = Qt.TextElideMode.ElideMiddle
