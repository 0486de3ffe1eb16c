"""What every table of PayDesk shares: fixed column headers and rows from a list (the
models), and the whole text of a cell its column cuts, said in a tooltip (the views); a
cell of fixed text (a reference, a URL: the model gives it ``fixed_text``'s font) is drawn
on one line, never broken at a hyphen, elided in its middle when its column is narrow."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QAbstractItemView, QStyledItemDelegate, QStyleOptionViewItem, QToolTip

from .fixed_text import is_fixed


class HeadedModel(QAbstractTableModel):
    """A flat table with the column headers ``HEADERS``; its rows are ``listed()``."""

    HEADERS: tuple[str, ...] = ()

    def listed(self) -> list:
        raise NotImplementedError

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt's name
        return 0 if parent.isValid() else len(self.listed())

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None


class CutTextTips(QStyledItemDelegate):
    """A cell whose text its column cuts (elided, or wrapped past the row's height) says the
    whole text in its tooltip, above the model's own tooltip when it has one. A cell in the
    fixed face (a reference, a URL) is one line: a row as tall as two lines would show a
    reference broken after a hyphen as two; elided in the middle, its start and end show."""

    def initStyleOption(self, option: QStyleOptionViewItem,  # noqa: N802 - Qt's name
                        index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        if is_fixed(option.font):
            option.features &= ~QStyleOptionViewItem.ViewItemFeature.WrapText
            option.textElideMode = Qt.TextElideMode.ElideMiddle

    def cuts(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> bool:
        need = self.sizeHint(option, index)
        return need.width() > option.rect.width() or need.height() > option.rect.height()

    def helpEvent(self, event: QHelpEvent, view: QAbstractItemView,  # noqa: N802 - Qt's name
                  option: QStyleOptionViewItem,
                  index: QModelIndex | QPersistentModelIndex) -> bool:
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
