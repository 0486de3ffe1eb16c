"""The layout audit's check of scroll areas (``sideways``): "scrolled, not squeezed" must not
hide text. A scroll area (a QScrollArea, a list or table, a text box) whose content is wider
than what it shows needs a person to scroll sideways to read it: End of day's Net behind a
horizontal scroll bar, a state and its buttons past the right edge of the Transactions
details pane. Each such area is a finding that names the texts it hides (the labels and
buttons of its widget seen through its viewport, or the columns of a table, past its side);
so is one whose content is taller than it shows with no scroll bar to reach the rest.

What is meant to scroll sideways (a wide ledger whose columns a person sizes) is listed in
``tests/ui/layout_audit.py``'s ``EXCEPTIONS`` with its reason."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableView,
    QWidget,
)

from tests.ui.layout_checks import text_of

MAX_NAMED = 6  # the hidden texts a finding names; "and N more" for the rest


def scroll_areas(widgets: Iterable[QWidget]) -> list[QAbstractScrollArea]:
    """The scroll areas a person sees among ``widgets`` (a table's header is its table's)."""
    return [
        w
        for w in widgets
        if isinstance(w, QAbstractScrollArea) and not isinstance(w, QHeaderView) and w.width() > 0 and w.height() > 0
    ]


def _beyond(seen: QRect, rect: QRect) -> bool:
    """Whether ``rect`` reaches past the left or right side of ``seen`` (what the viewport
    shows), where a person must scroll sideways to read it."""
    return rect.width() > 0 and (rect.left() < seen.left() or rect.right() > seen.right())


def _text_rect(widget: QWidget) -> QRect:
    """Where the widget's text is drawn, in its own coordinates: a one-line label's text
    where its alignment puts it (a label wider than its text leaves the rest empty); the
    whole widget for the others (a button cut at a side is cut, whatever its text)."""
    if not isinstance(widget, QLabel) or widget.wordWrap():
        return widget.rect()
    inside = widget.contentsRect().adjusted(widget.margin(), 0, -widget.margin(), 0)
    need = min(widget.sizeHint().width() - (widget.width() - inside.width()), inside.width())
    align = widget.alignment()
    if align & Qt.AlignmentFlag.AlignRight:
        left = inside.right() + 1 - need
    elif align & Qt.AlignmentFlag.AlignHCenter:
        left = inside.left() + (inside.width() - need) // 2
    else:
        left = inside.left()
    return QRect(left, 0, max(need, 1), widget.height())


def _hidden_in_widget(area: QScrollArea) -> list[str]:
    """The texts of the area's widget that its viewport cuts at a side, as it is scrolled."""
    content = area.widget()
    if content is None:
        return []
    viewport = area.viewport()
    seen = viewport.rect()
    found = []
    for widget in content.findChildren(QWidget):
        if widget.isWindow() or not widget.isVisible() or widget.width() <= 0:
            continue
        text = text_of(widget)
        if not text:
            continue
        rect = _text_rect(widget).translated(widget.mapTo(viewport, QPoint(0, 0)))
        if _beyond(seen, rect):
            found.append(text)
    return found


def _hidden_columns(view: QTableView) -> list[str]:
    """The table's columns that reach past its viewport's side, by their headers."""
    model, header = view.model(), view.horizontalHeader()
    if model is None:
        return []
    seen = view.viewport().rect()
    found = []
    for column in range(model.columnCount()):
        if view.isColumnHidden(column) or view.columnWidth(column) <= 0:
            continue
        rect = QRect(header.sectionViewportPosition(column), 0, view.columnWidth(column), 1)
        if _beyond(seen, rect):
            title = model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
            found.append(str(title) if title else f"column {column}")
    return found


def _content_width(area: QAbstractScrollArea) -> int:
    if isinstance(area, QScrollArea) and area.widget() is not None:
        return area.widget().width()
    if isinstance(area, QTableView):
        return area.horizontalHeader().length()
    bar = area.horizontalScrollBar()
    return area.viewport().width() + bar.maximum() - bar.minimum()


def _named(texts: list[str]) -> str:
    named = " | ".join(texts[:MAX_NAMED])
    return named + (f" | and {len(texts) - MAX_NAMED} more" if len(texts) > MAX_NAMED else "")


def sideways(areas: Iterable[QAbstractScrollArea]) -> list[tuple[QAbstractScrollArea, str, str]]:
    """(area, the texts it hides, sizes) for each scroll area a person must scroll sideways
    to read, or whose content is cut at the bottom with no scroll bar to reach it."""
    found = []
    for area in areas:
        bar = area.horizontalScrollBar()
        if bar.maximum() > bar.minimum():
            if isinstance(area, QScrollArea):
                hidden = _hidden_in_widget(area)
            elif isinstance(area, QTableView):
                hidden = _hidden_columns(area)
            else:
                hidden = []
            how = "with a scroll bar" if bar.isVisible() else "with no scroll bar: the rest cannot be reached"
            found.append(
                (
                    area,
                    _named(hidden),
                    f"its content is {_content_width(area)} px wide, it shows "
                    f"{area.viewport().width()} px: scrolled sideways {how}",
                )
            )
        down = area.verticalScrollBar()
        if down.maximum() > down.minimum() and not down.isVisible():
            found.append(
                (
                    area,
                    "",
                    f"its content is taller than the {area.viewport().height()} "
                    "px it shows, with no scroll bar to reach the rest",
                )
            )
    return found
