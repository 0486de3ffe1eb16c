"""Recent links of the current profile and mode, with their live states."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from ...ledger import LinkRecord
from .states import money, shown

COLUMNS = ("Reference", "Amount", "Title", "State", "Created")
MAX_ROWS = 100  # older links are in the ledger (the Transactions tab)


class RecentLinks(QTableWidget):
    chosen = Signal(object)  # a LinkRecord

    def __init__(self):
        super().__init__(0, len(COLUMNS))
        self.setObjectName("recent-links")
        self.setAccessibleName("Recent links")
        self.setHorizontalHeaderLabels(COLUMNS)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.verticalHeader().hide()
        # fixed widths: sizing columns to their contents costs a pass over every row on
        # every change, which grows with the list
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, width in enumerate((240, 110, 200, 190)):
            self.setColumnWidth(column, width)
        header.setStretchLastSection(True)
        self.records: list[LinkRecord] = []
        self.itemSelectionChanged.connect(self._selected)

    def load(self, records: list[LinkRecord]) -> None:
        self.records = list(records)
        self.setRowCount(len(self.records))
        for row, record in enumerate(self.records):
            self._fill(row, record)

    def _fill(self, row: int, record: LinkRecord) -> None:
        words, colour = shown(record.state)
        local = record.created_at.astimezone().strftime("%d %b %H:%M")
        for col, text in enumerate((record.tx_ref, money(record), record.title, words, local)):
            item = QTableWidgetItem(text)
            if col == 3:
                item.setForeground(QColor(colour))
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            if col == 1:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(row, col, item)

    def upsert(self, record: LinkRecord) -> None:
        for row, existing in enumerate(self.records):
            if existing.tx_ref == record.tx_ref and existing.profile_id == record.profile_id:
                self.records[row] = record
                self._fill(row, record)
                return
        self.records.insert(0, record)
        self.insertRow(0)
        self._fill(0, record)
        while len(self.records) > MAX_ROWS:
            self.records.pop()
            self.removeRow(self.rowCount() - 1)

    def state_of(self, tx_ref: str) -> str | None:
        for row, record in enumerate(self.records):
            if record.tx_ref == tx_ref:
                return self.item(row, 3).text()
        return None

    def _selected(self) -> None:
        rows = {i.row() for i in self.selectedItems()}
        if len(rows) == 1:
            self.chosen.emit(self.records[rows.pop()])
