"""What every table of PayDesk shares: fixed column headers and rows from a list (the
models), and the whole text of a cell its column cuts, said in a tooltip (the views); a
cell of fixed text (a reference, a URL: the model gives it ``fixed_text``'s font) is drawn
on one line, never broken at a hyphen, elided in its middle when its column is narrow; and
columns as wide as what they hold, one of them taking the rest (``fit_columns``), so a
list fits its view rather than scroll sideways."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, TypeAlias

from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QHelpEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolTip,
)

from ..desk.texts import local_time
from .fixed_text import is_fixed

Index: TypeAlias = QModelIndex | QPersistentModelIndex  # what Qt's model methods are given
ROOM = 8  # px beside a sample's text: a column is never as tight as its widest cell


RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter  # an amount's cells


PENDING = "…"  # the first cell of a row not read yet


@dataclass(frozen=True)
class Column:
    """One column of a ``HeadedModel``: its header, a row's text in it, and how that text
    looks: ``font`` (the fixed face of a reference, a state's bold), ``align``, a row's
    ``colour`` (a colour's name; None: the view's) and a row's ``tip`` (None: none), or,
    with ``whole_tip``, the cell's whole text (a column that may cut it: one line, elided)."""

    header: str
    text: Callable[[Any], str]
    font: QFont | None = None
    align: Qt.AlignmentFlag | None = None
    colour: Callable[[Any], str | None] | None = None
    tip: Callable[[Any], str | None] | None = None
    whole_tip: bool = False

    def tooltip(self, row: Any) -> str | None:
        if self.tip is not None:
            return self.tip(row)
        return (self.text(row) or None) if self.whole_tip else None


@lru_cache(maxsize=64)
def _colour(name: str) -> QColor:
    return QColor(name)


class HeadedModel(QAbstractTableModel):
    """A flat table whose rows are ``listed()`` (or, for one that holds only the rows looked
    at, ``row_at``: None for a row not read yet, its first cell saying so), its columns
    declared once in ``columns``: every model's ``data`` is this one."""

    columns: tuple[Column, ...] = ()

    def listed(self) -> list[Any]:
        raise NotImplementedError

    def row_at(self, row: int) -> Any | None:
        """What row ``row`` shows (None: not read yet)."""
        return self.listed()[row]

    def text(self, row: Any, column: int) -> str:
        """What ``row`` shows in ``column``."""
        return self.columns[column].text(row)

    def headers(self) -> tuple[str, ...]:
        return tuple(c.header for c in self.columns)

    def rows_changed(self, first: int, last: int | None = None) -> None:
        """Rows ``first`` to ``last`` (or ``first`` alone) repainted in place, every column."""
        self.dataChanged.emit(self.index(first, 0), self.index(first if last is None else last, len(self.columns) - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.listed())

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.ToolTipRole,  # a header its column cuts, said whole
        ):
            return self.columns[section].header if 0 <= section < len(self.columns) else None
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.column() >= len(self.columns):
            return None
        row, column = self.row_at(index.row()), self.columns[index.column()]
        if row is None:  # not read yet: asked for, and repainted when it is in
            return PENDING if role == Qt.ItemDataRole.DisplayRole and index.column() == 0 else None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return column.text(row)
        if role == Qt.ItemDataRole.ForegroundRole and column.colour is not None:
            name = column.colour(row)
            return None if name is None else _colour(name)
        if role == Qt.ItemDataRole.FontRole:
            return column.font
        if role == Qt.ItemDataRole.TextAlignmentRole and column.align is not None:
            return int(column.align)
        if role == Qt.ItemDataRole.ToolTipRole:
            return column.tooltip(row)
        return None


class CutTextTips(QStyledItemDelegate):
    """A cell whose text its column cuts (elided, or wrapped past the row's height) says the
    whole text in its tooltip, above the model's own tooltip when it has one. A cell in the
    fixed face (a reference, a URL) is one line: a row as tall as two lines would show a
    reference broken after a hyphen as two; elided in the middle, its start and end show."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: Index) -> None:
        super().initStyleOption(option, index)
        if is_fixed(option.font):
            option.features &= ~QStyleOptionViewItem.ViewItemFeature.WrapText
            option.textElideMode = Qt.TextElideMode.ElideMiddle

    def cuts(self, option: QStyleOptionViewItem, index: Index) -> bool:
        need = self.sizeHint(option, index)
        return need.width() > option.rect.width() or need.height() > option.rect.height()

    def helpEvent(self, event: QHelpEvent, view: QAbstractItemView, option: QStyleOptionViewItem, index: Index) -> bool:
        if event is not None and event.type() == QEvent.Type.ToolTip and index.isValid():
            text = index.data(Qt.ItemDataRole.DisplayRole)
            if isinstance(text, str) and text and self.cuts(option, index):
                own = index.data(Qt.ItemDataRole.ToolTipRole)
                tip = f"{text}\n{own}" if isinstance(own, str) and own and own != text else text
                QToolTip.showText(event.globalPos(), tip, view, option.rect)
                return True
        return super().helpEvent(event, view, option, index)


def tips_for_cut_text(*views: QAbstractItemView) -> None:
    """Each view's cells say in a tooltip the whole text their column cuts."""
    for view in views:
        view.setItemDelegate(CutTextTips(view))


def fit_columns(
    view: QTableView, samples: Sequence[str | Sequence[str]], stretch: int, fonts: Mapping[int, QFont] | None = None
) -> dict[int, int]:
    """Each column of ``view`` but ``stretch`` as wide as the wider of its header and its
    sample (the longest its cells usually hold: a time, an amount, a reference; of several,
    the widest: a state's words), measured in
    the column's font (``fonts``: the model's font for that column, else the view's);
    ``stretch`` (a title, a name) takes the rest, its cut text said whole in a tooltip. So
    the columns fit the view instead of one of them past its edge, behind a sideways
    scroll. A person can still drag the others' edges. Returns each column's width for its
    sample alone (``HeadersGiveWay``)."""
    header = view.horizontalHeader()
    header.setStretchLastSection(False)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    margin = 2 * (view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1)
    fonts = fonts or {}
    cells: dict[int, int] = {}
    for column, sample in enumerate(samples):
        if column == stretch:
            continue
        metrics = QFontMetrics(fonts.get(column, view.font()))
        texts = (sample,) if isinstance(sample, str) else sample
        cell = cells[column] = max((metrics.horizontalAdvance(t) for t in texts), default=0) + margin + ROOM
        view.setColumnWidth(column, max(cell, header.sectionSizeHint(column)))
    return cells


class HeadersGiveWay(QObject):
    """The columns ``fit_columns`` sized, as wide as their headers where the view has room;
    where it has not (a narrow screen, a longer language), the columns whose header is wider
    than their cells give up the difference, in proportion (the header cut, whole in its
    tooltip), down to their cells' width, so that ``least`` px are left to the column that
    takes the rest and the list does not scroll sideways."""

    def __init__(self, view: QTableView, cells: dict[int, int], least: int) -> None:
        super().__init__(view)
        self.view, self.cells, self.least = view, cells, least
        self.whole = {column: view.columnWidth(column) for column in cells}
        view.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt's name
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def fit(self) -> None:
        over = sum(self.whole.values()) + self.least - self.view.viewport().width()
        spare = {column: max(0, width - self.cells[column]) for column, width in self.whole.items()}
        total = sum(spare.values())
        for column, width in self.whole.items():
            given = min(spare[column], -(-spare[column] * over // total)) if over > 0 and total else 0
            self.view.setColumnWidth(column, width - given)


def bold_font() -> QFont:
    """The bold face a state column is drawn in."""
    font = QFont()
    font.setBold(True)
    return font


# the longest a cell usually holds, for fit_columns: a reference PayDesk makes under an
# 8-letter prefix (in the fixed face), an amount, a local time (with seconds: a card's)
REFERENCE_SAMPLE = "ABCDEFGH-261122-K7QM4X-0042R9"
AMOUNT_SAMPLE = "GBP 12,500.00"
TIME_SAMPLE = local_time(datetime(2026, 12, 28, 23, 58, 58, tzinfo=UTC))
