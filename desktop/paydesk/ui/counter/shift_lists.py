"""The two lists of finance's Counter shifts window, read from the counters' book a page at a
time (``book.shifts`` / ``book.sales`` with ``before=``: never every row) and kept live: a
shift opened or closed, a sale made, paid, voided or decided (here or at another desk of a
shared ledger) is repainted in place, put where it belongs, or taken out, without reading
the list again.

- ``ShiftsModel``: every counter's shifts of a profile and mode, newest first, with their
  figures (an open shift's as they are now, read again when one of its sales changes).
- ``SalesModel``: every counter's open sales and payments after void nobody has settled."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor

from ...desk.states import money
from ...desk.tasks import TaskSet
from ...desk.texts import local_time, money_text, utc_time
from ...ledger.counter import OPEN, PAID_AFTER_VOID, CounterBook, Figures, Sale, SaleQuery, Shift
from ..fixed_text import fixed_font
from ..paging import PagedModel
from ..table import Index

PAGE = 100
LOUD = QColor("#b3261e")


def _insert_at(ids: list[int], new: int) -> int:
    """Where a row of id ``new`` goes in a list newest first (ids descending)."""
    return next((row for row, i in enumerate(ids) if i < new), len(ids))


def totals(figures: Figures | None) -> str:
    """What was paid, per currency: "GBP 120.00, EUR 4.00"."""
    if figures is None:
        return ""
    return ", ".join(f"{c} {money_text(f.paid)}" for c, f in sorted(figures.currencies.items()) if f.paid) or "nothing"


class ShiftsModel(PagedModel):
    HEADERS = (
        "Counter",
        "Shift",
        "Opened",
        "Opened by",
        "Closed",
        "Closed by",
        "Sales",
        "Paid",
        "Failed",
        "Voided",
        "Paid after void",
        "Paid amounts",
    )
    PAGE_TASK = "counter shifts: next page"
    COUNTS = {6: "made", 7: "paid", 8: "failed", 9: "voided", 10: "paid_after_void"}

    def __init__(self, book: CounterBook, tasks: TaskSet):
        super().__init__(tasks)
        self.book = book
        self.rows: list[tuple[Shift, Figures | None]] = []
        self._fixed = fixed_font()

    def listed(self) -> list:
        return self.rows

    async def _with_figures(self, shifts: list[Shift]) -> list[tuple[Shift, Figures | None]]:
        """Each shift with its figures: frozen at close, or counted now while it is open."""
        return [(s, s.figures if s.closed else await self.book.figures(SaleQuery(shift_id=s.id))) for s in shifts]

    async def load(self, query: tuple[str, str]) -> None:
        """The first page of ``query`` (profile id, mode)."""
        shifts = await self.book.shifts(query[0], query[1], limit=PAGE)
        rows = await self._with_figures(shifts)
        self.beginResetModel()
        self.rows = rows
        self.first_page(query, rows, shifts[-1].id if shifts else None, len(shifts) == PAGE)
        self.endResetModel()
        self.loaded.emit()

    async def read_page(self, query: tuple[str, str], before: int) -> tuple[list, Any, bool]:
        shifts = await self.book.shifts(query[0], query[1], before=before, limit=PAGE)
        return (await self._with_figures(shifts), shifts[-1].id if shifts else before, len(shifts) == PAGE)

    def at(self, row: int) -> tuple[Shift, Figures | None] | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def row_of(self, shift_id: int) -> int | None:
        return next((row for row, (s, _) in enumerate(self.rows) if s.id == shift_id), None)

    def changed(self, shift: Shift, figures: Figures | None = None) -> None:
        """A shift opened or closed, or an open one's figures counted again."""
        if self.query is None or (shift.profile_id, shift.mode) != self.query:
            return
        row = self.row_of(shift.id)
        if row is not None:
            was, kept = self.rows[row]
            if was.closed and not shift.closed:
                return  # read before its close (a count of its sales): a close is final
            self.rows[row] = (shift, shift.figures if shift.closed else (figures or kept))
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))
            return
        at = _insert_at([s.id for s, _ in self.rows], shift.id)
        if at == len(self.rows) and self._more:
            return  # older than every row shown: read with its page, when scrolled to
        self.beginInsertRows(QModelIndex(), at, at)
        self.rows.insert(at, (shift, shift.figures if shift.closed else (figures or Figures())))
        self.endInsertRows()

    def open_shift_ids(self) -> set[int]:
        return {s.id for s, _ in self.rows if not s.closed}

    def text(self, shift: Shift, figures: Figures | None, column: int) -> str:
        if column == 0:
            return shift.counter
        if column == 1:
            return str(shift.id)
        if column == 2:
            return local_time(shift.opened_at)
        if column == 3:
            return shift.opened_actor or shift.opened_by
        if column == 4:
            return local_time(shift.closed_at) if shift.closed else "open"
        if column == 5:
            return shift.closed_actor or shift.closed_by or ""
        if column in self.COUNTS:
            return str(getattr(figures, self.COUNTS[column])) if figures is not None else ""
        return totals(figures)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        shift, figures = self.rows[index.row()]
        column = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self.text(shift, figures, column)
        if role == Qt.ItemDataRole.ToolTipRole and column in (2, 4):
            return utc_time(shift.opened_at if column == 2 else shift.closed_at) or None
        if role == Qt.ItemDataRole.FontRole and column == 1:
            return self._fixed
        if role == Qt.ItemDataRole.ForegroundRole and column == 10 and figures is not None and figures.paid_after_void:
            return LOUD
        return None


def listed(sale: Sale) -> bool:
    """Does finance's second list show ``sale``: open, or paid after void and not settled."""
    return sale.kind == OPEN or sale.needs_decision


SALE_STATES = ("Open", "Paid after void: refund or keep")  # the State column's words


class SalesModel(PagedModel):
    HEADERS = ("Time", "Counter", "Sale", "Title", "Amount", "State", "Reference")
    PAGE_TASK = "counter sales: next page"

    def __init__(self, book: CounterBook, tasks: TaskSet):
        super().__init__(tasks)
        self.book = book
        self.sales: list[Sale] = []
        self._fixed = fixed_font()

    def listed(self) -> list:
        return self.sales

    @staticmethod
    def _query(profile_id: str, mode: str) -> SaleQuery:
        # a payment after void somebody settled is no longer finance's to do: left out in
        # SQL, so every page is full until the last (and paging goes on past settled ones)
        return SaleQuery(profile_id=profile_id, mode=mode, kinds=(OPEN, PAID_AFTER_VOID), hide_decided=True)

    async def _page(self, query: tuple[str, str], before: int | None) -> tuple[list, Any, bool]:
        read = await self.book.sales(self._query(*query), before=before, limit=PAGE)
        return read, read[-1].id if read else before, len(read) == PAGE

    async def load(self, query: tuple[str, str]) -> None:
        sales, end, more = await self._page(query, None)
        self.beginResetModel()
        self.sales = sales
        self.first_page(query, sales, end, more)
        self.endResetModel()
        self.loaded.emit()

    async def read_page(self, query: tuple[str, str], before: int) -> tuple[list, Any, bool]:
        return await self._page(query, before)

    def at(self, row: int) -> Sale | None:
        return self.sales[row] if 0 <= row < len(self.sales) else None

    def row_of(self, key: tuple[str, str]) -> int | None:
        return next((row for row, s in enumerate(self.sales) if s.key == key), None)

    def changed(self, sale: Sale) -> None:
        """A sale made, paid, voided or decided: in place, in its place, or out."""
        if self.query is None or (sale.profile_id, sale.mode) != self.query:
            return
        row = self.row_of(sale.key)
        if row is not None:
            if listed(sale):
                self.sales[row] = sale
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))
            else:
                self.beginRemoveRows(QModelIndex(), row, row)
                del self.sales[row]
                self.endRemoveRows()
            return
        if not listed(sale):
            return
        at = _insert_at([s.id for s in self.sales], sale.id)
        if at == len(self.sales) and self._more:
            return  # read with its page, when scrolled to
        self.beginInsertRows(QModelIndex(), at, at)
        self.sales.insert(at, sale)
        self.endInsertRows()

    def text(self, sale: Sale, column: int) -> str:
        record = sale.record
        if column == 0:
            return local_time(sale.made_at)
        if column == 1:
            return sale.counter
        if column == 2:
            return f"Sale {sale.number:04d}"
        if column == 3:
            return record.title if record is not None else ""
        if column == 4:
            return money(record) if record is not None else ""
        if column == 5:
            return SALE_STATES[1] if sale.needs_decision else SALE_STATES[0]
        return sale.tx_ref

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        sale = self.sales[index.row()]
        column = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self.text(sale, column)
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            return utc_time(sale.made_at)
        if role == Qt.ItemDataRole.FontRole and column == 6:
            return self._fixed  # read back and typed: each character itself
        if role == Qt.ItemDataRole.ForegroundRole and sale.needs_decision:
            return LOUD
        return None
