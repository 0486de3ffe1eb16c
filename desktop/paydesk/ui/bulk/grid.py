"""The dry run's two lists: every checked row of the file as an editable grid (a cell with a
problem is red, its message its tooltip), and every problem as a line ("Row 7, email: Not an
e-mail address") that takes the grid to its cell.

Both hold the rows of one file in memory (at most 50,000, as read): nothing here is in the
ledger yet. Editing a cell does not check anything itself: ``edited`` says which cell of
which file row now holds what, and the window checks again (off the GUI thread) and hands the
checked rows back with ``set_rows``."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor

from ...desk.bulk.check import BulkRow
from ...desk.bulk.sheet import Problem
from ...i18n import _
from ..fixed_text import fixed_font
from ..table import Column, HeadedModel, Index

PROBLEM_BACKGROUND = QColor("#f9dedc")
PROBLEM_TEXT = QColor("#8c1d18")
ROW_ONLY = "row"  # a problem of the row as a whole (no column of it): said in the list only
# a reference and the addresses: read back and copied, in the fixed face, on one line
# (ui/table.py draws a fixed cell so: never broken at a hyphen)
FIXED_FIELDS = ("tx_ref", "callback_url", "return_url")


def field_title(field: str) -> str:
    """How a field is headed: its name in the template ("tx_ref"), extras as "meta.<name>"."""
    return field


def problem_text(problem: Problem) -> str:
    if problem.column and problem.column != ROW_ONLY:
        return _("Row {row}, {column}: {message}").format(
            row=problem.row, column=problem.column, message=problem.message
        )
    return _("Row {row}: {message}").format(row=problem.row, message=problem.message)


class RowsModel(QAbstractTableModel):
    """The checked rows, one column per mapped field, in the file's order."""

    edited = Signal(int, str, str)  # (file row number, field, the text now in the cell)

    def __init__(self) -> None:
        super().__init__()
        self.fields: list[str] = []
        self.rows: list[BulkRow] = []
        self._problems: dict[tuple[int, str], str] = {}  # (row index, field): messages
        self._red = QBrush(PROBLEM_BACKGROUND)
        self._red_text = QBrush(PROBLEM_TEXT)
        self._fixed = fixed_font()

    def show(self, fields: list[str], rows: list[BulkRow]) -> None:
        """A new dry run: these columns and rows."""
        self.beginResetModel()
        self.fields = list(fields)
        self._take(rows)
        self.endResetModel()

    def set_rows(self, rows: list[BulkRow]) -> None:
        """The same rows checked again (an edit): repainted in place."""
        if len(rows) != len(self.rows):
            self.show(self.fields, rows)
            return
        self._take(rows)
        if rows and self.fields:
            self.dataChanged.emit(self.index(0, 0), self.index(len(rows) - 1, len(self.fields) - 1))
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, len(rows) - 1)

    def _take(self, rows: list[BulkRow]) -> None:
        self.rows = rows
        self._problems = {}
        for index, row in enumerate(rows):
            for problem in row.problems:
                key = (index, problem.column)
                said = self._problems.get(key)
                self._problems[key] = f"{said}\n{problem.message}" if said else problem.message

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.fields)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            if (
                role == Qt.ItemDataRole.ToolTipRole
                and orientation == Qt.Orientation.Vertical
                and 0 <= section < len(self.rows)
                and self.rows[section].problems
            ):
                return "\n".join(problem_text(p) for p in self.rows[section].problems)
            return None
        if orientation == Qt.Orientation.Horizontal:
            return field_title(self.fields[section]) if 0 <= section < len(self.fields) else None
        return str(self.rows[section].number) if 0 <= section < len(self.rows) else None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, field = self.rows[index.row()], self.fields[index.column()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return row.values.get(field, "")
        problem = self._problems.get((index.row(), field))
        if role == Qt.ItemDataRole.ToolTipRole:
            return problem
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._red if problem else None
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._red_text if problem else None
        if role == Qt.ItemDataRole.FontRole:
            return self._fixed if field in FIXED_FIELDS else None
        if role == Qt.ItemDataRole.AccessibleDescriptionRole:
            return _("Problem: {problem}").format(problem=problem) if problem else None
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or role != Qt.ItemDataRole.EditRole:
            return False
        row, field = self.rows[index.row()], self.fields[index.column()]
        text = str(value)
        if row.values.get(field, "") == text:
            return False
        row.values[field] = text  # shown at once; its problems once checked again
        self.dataChanged.emit(index, index)
        self.edited.emit(row.number, field, text)
        return True

    def cell_of(self, problem: Problem) -> QModelIndex:
        """Where a problem is in the grid (its row's first cell when its column is not)."""
        row = next((i for i, r in enumerate(self.rows) if r.number == problem.row), None)
        if row is None:
            return QModelIndex()
        column = self.fields.index(problem.column) if problem.column in self.fields else 0
        return self.index(row, column)


class ProblemsModel(HeadedModel):
    """Every problem of the dry run, by row, as a line of text."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[Problem] = []
        self.columns = (Column("", problem_text),)  # one line each, in a list: no header shown

    def listed(self) -> list[Problem]:
        return self.problems

    def show(self, rows: list[BulkRow]) -> None:
        self.beginResetModel()
        self.problems = [p for row in rows for p in row.problems]
        self.endResetModel()

    def at(self, row: int) -> Problem | None:
        return self.problems[row] if 0 <= row < len(self.problems) else None
