"""The Batches window's two lists, read from the batch book a page at a time (never every row):

- ``BatchesModel``: a profile and mode's batches, newest first, each with its figures
  (created, refused, paid so far), counted again when the batch changes.
- ``BatchRowsModel``: one batch's rows by file row number, with the state derived from each
  row's link, the references and the checkout URL (in fixed text: they are copied; drawn on
  one line by ``fixed_text.OneLineDelegate``, the whole text in the cell's tooltip)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor

from ...desk.tasks import TaskSet
from ...desk.texts import local_time, utc_time
from ...ledger.batch import Batch, BatchBook, BatchFigures, BatchRow
from ..fixed_text import fixed_font
from ..paging import PagedModel
from ..table import Index

PAGE = 100
ROWS_PAGE = 200
LOUD = QColor("#b3261e")
POLICY_WORDS = {"skip": "valid rows, rest skipped", "all": "all or nothing"}
STATE_WORDS = {
    "waiting": "Waiting",
    "creating": "Creating",
    "created": "Created",
    "paid": "Paid",
    "refused": "Refused",
    "failed": "Failed",
    "skipped": "Skipped",
}


def state_word(state: str) -> str:
    return STATE_WORDS.get(state.lower(), state)


class BatchesModel(PagedModel):
    HEADERS = ("Name", "File", "When", "By", "Rows", "Created", "Refused", "Paid so far", "Left", "Policy")
    PAGE_TASK = "batches: next page"
    TIPPED = (0, 1, 3, 9)  # words that may be elided: the whole of them in the tooltip

    def __init__(self, book: BatchBook, tasks: TaskSet):
        super().__init__(tasks)
        self.book = book
        self.rows: list[tuple[Batch, BatchFigures | None]] = []

    def listed(self) -> list:
        return self.rows

    async def _with_figures(self, batches: list[Batch]) -> list[tuple[Batch, BatchFigures | None]]:
        return [(b, await self.book.figures(b.id)) for b in batches]

    async def load(self, query: tuple[str, str]) -> None:
        """The first page of ``query`` (profile id, mode)."""
        batches = await self.book.batches(query[0], query[1], limit=PAGE)
        rows = await self._with_figures(batches)
        self.beginResetModel()
        self.rows = rows
        self.first_page(query, rows, batches[-1].id if batches else None, len(batches) == PAGE)
        self.endResetModel()
        self.loaded.emit()

    async def read_page(self, query: tuple[str, str], before: int) -> tuple[list, Any, bool]:
        batches = await self.book.batches(query[0], query[1], before=before, limit=PAGE)
        return (await self._with_figures(batches), batches[-1].id if batches else before, len(batches) == PAGE)

    def at(self, row: int) -> Batch | None:
        return self.rows[row][0] if 0 <= row < len(self.rows) else None

    def row_of(self, batch_id: int) -> int | None:
        return next((row for row, (b, _) in enumerate(self.rows) if b.id == batch_id), None)

    def ids(self) -> list[int]:
        return [b.id for b, _ in self.rows]

    def changed(self, batch: Batch, figures: BatchFigures) -> None:
        """A batch's figures counted again (or a new batch: on top)."""
        if self.query is None or (batch.profile_id, batch.mode) != self.query:
            return
        row = self.row_of(batch.id)
        if row is not None:
            self.rows[row] = (batch, figures)
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))
            return
        if self.rows and batch.id < self.rows[-1][0].id:
            return  # older than every row shown: read with its page
        at = next((i for i, (b, _) in enumerate(self.rows) if b.id < batch.id), len(self.rows))
        self.beginInsertRows(QModelIndex(), at, at)
        self.rows.insert(at, (batch, figures))
        self.endInsertRows()

    @staticmethod
    def text(batch: Batch, figures: BatchFigures | None, column: int) -> str:
        f = figures
        values = (
            batch.name,
            batch.file_name,
            local_time(batch.made_at),
            batch.made_by,
            f"{batch.rows:,}",
            f"{f.created + f.paid:,}" if f else "",
            f"{f.refused:,}" if f else "",
            f"{f.paid:,}" if f else "",
            f"{f.waiting + f.creating:,}" if f else "",
            POLICY_WORDS.get(batch.policy, batch.policy),
        )
        return values[column]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        batch, figures = self.rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self.text(batch, figures, index.column())
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 2:
            return utc_time(batch.made_at) or None
        if role == Qt.ItemDataRole.ToolTipRole and index.column() in self.TIPPED:
            return self.text(batch, figures, index.column()) or None  # elided on one line
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 6 and figures and figures.refused:
            return LOUD
        return None


class BatchRowsModel(PagedModel):
    HEADERS = (
        "Row",
        "State",
        "Reference",
        "Service reference",
        "Amount",
        "Currency",
        "E-mail",
        "Name",
        "Title",
        "Checkout URL",
        "Error",
        "E-mail sent",
    )
    PAGE_TASK = "batch rows: next page"
    FIXED = (2, 3, 9)  # references and the URL: one line, fixed face, whole in the tooltip
    REFERENCES = (2, 3)
    TIPPED = (*FIXED, 7, 8, 10, 11)  # may be elided: the whole text in the tooltip

    def __init__(self, book: BatchBook, tasks: TaskSet):
        super().__init__(tasks)
        self.book = book
        self.rows: list[BatchRow] = []
        self._fixed = fixed_font()

    def listed(self) -> list:
        return self.rows

    async def load(self, batch_id: int | None) -> None:
        rows = await self.book.rows(batch_id, limit=ROWS_PAGE) if batch_id is not None else []
        self.beginResetModel()
        self.rows = rows
        self.first_page(batch_id, rows, rows[-1].number if rows else None, len(rows) == ROWS_PAGE)
        self.endResetModel()
        self.loaded.emit()

    async def read_page(self, batch_id: int, after: int) -> tuple[list, Any, bool]:
        rows = await self.book.rows(batch_id, after=after, limit=ROWS_PAGE)
        return rows, rows[-1].number if rows else after, len(rows) == ROWS_PAGE

    async def refresh(self) -> None:
        """The rows shown read again (states change as links are created and paid), a page
        at a time, each repainted in place."""
        batch_id, after, done = self.query, None, 0
        while batch_id is not None and done < len(self.rows):
            page = await self.book.rows(batch_id, after=after, limit=ROWS_PAGE)
            if batch_id != self.query or not page:
                return
            for row in page:
                if done < len(self.rows) and self.rows[done].number == row.number:
                    self.rows[done] = row
                done += 1
            self.dataChanged.emit(
                self.index(max(done - len(page), 0), 0),
                self.index(min(done, len(self.rows)) - 1, len(self.HEADERS) - 1),
            )
            after = page[-1].number

    def at(self, row: int) -> BatchRow | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None

    @staticmethod
    def text(row: BatchRow, column: int) -> str:
        record, values = row.record, row.values
        if column == 0:
            return str(row.number)
        if column == 1:
            return state_word(row.state)
        if column == 2:
            return row.tx_ref
        if column == 3:
            return (record.reference or "") if record else ""
        if column == 4:
            return values.get("amount", "")
        if column == 5:
            return values.get("currency", "")
        if column == 6:
            return values.get("email", "")
        if column == 7:
            return " ".join(v for v in (values.get("first_name", ""), values.get("last_name", "")) if v)
        if column == 8:
            return values.get("title", "")
        if column == 9:
            return (record.checkout_url or "") if record else ""
        if column == 10:
            return (record.error or "") if record else ""
        if row.email_state is None:
            return ""
        return "sent" if row.email_state == "sent" else f"failed: {row.email_error or ''}"

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self.text(row, index.column())
        if role == Qt.ItemDataRole.FontRole and index.column() in self.FIXED:
            return self._fixed
        if role == Qt.ItemDataRole.ToolTipRole and index.column() in self.TIPPED:
            return self.text(row, index.column()) or None
        if (
            role == Qt.ItemDataRole.ForegroundRole
            and index.column() == 1
            and row.state.lower() in ("refused", "failed")
        ):
            return LOUD
        return None
