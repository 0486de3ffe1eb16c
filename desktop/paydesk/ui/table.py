"""What every table model of PayDesk shares: fixed column headers, and rows from a list."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt


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
