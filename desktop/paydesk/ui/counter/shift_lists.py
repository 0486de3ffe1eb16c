"""The two lists of finance's Counter shifts window, read from the counters' book a page at a
time (``book.shifts`` / ``book.sales`` with ``before=``: never every row) and kept live: a
shift opened or closed, a sale made, paid, voided or decided (here or at another desk of a
shared ledger) is repainted in place, put where it belongs, or taken out, without reading
the list again.

- ``ShiftsModel``: every counter's shifts of a profile and mode, newest first, with their
  figures (an open shift's as they are now, read again when one of its sales changes).
- ``SalesModel``: every counter's open sales and payments after void nobody has settled."""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime
from typing import Any

from PySide6.QtCore import QModelIndex

from ...desk.formats import money_in, number_in, time_in
from ...desk.tasks import TaskSet
from ...desk.texts import utc_time
from ...i18n import NP_, _, pgettext, staff
from ...ledger import LinkRecord
from ...ledger.counter import OPEN, PAID_AFTER_VOID, CounterBook, Figures, Sale, SaleQuery, Shift
from ..fixed_text import fixed_font
from ..paging import PagedModel
from ..table import Column

PAGE = 100
LOUD = "#b3261e"


def _insert_at(ids: list[int], new: int) -> int:
    """Where a row of id ``new`` goes in a list newest first (ids descending)."""
    return next((row for row, i in enumerate(ids) if i < new), len(ids))


def totals(figures: Figures | None) -> str:
    """What was paid, per currency: "GBP 120.00, EUR 4.00" (as the staff's language writes
    amounts)."""
    if figures is None:
        return ""
    words = staff()
    paid = [money_in(f.paid, c, words) for c, f in sorted(figures.currencies.items()) if f.paid]
    return ", ".join(paid) or pgettext("paid", "nothing")


def _time(when: datetime | None) -> str:
    """A moment in local time, as the staff's language writes it."""
    return time_in(when, staff())


def _money(record: LinkRecord) -> str:
    """A sale's amount, as the staff's language writes it."""
    return money_in(record.amount, record.currency, staff())


Listed = tuple[Shift, Figures | None]  # a shift and its figures


def _count(header: str, name: str, colour: str | None = None) -> Column:
    """A column of one of a shift's counts (``name``: its figure; ``colour``: when not 0)."""
    return Column(
        header,
        lambda r: number_in(getattr(r[1], name), staff()) if r[1] is not None else "",
        colour=None if colour is None else lambda r: colour if r[1] is not None and getattr(r[1], name) else None,
    )


class ShiftsModel(PagedModel):
    PAGE_TASK = "counter shifts: next page"

    def __init__(self, book: CounterBook, tasks: TaskSet):
        super().__init__(tasks)
        self.book = book
        self.rows: list[Listed] = []
        self.columns = (
            Column(pgettext("till", "Counter"), lambda r: r[0].counter),
            Column(_("Shift"), lambda r: str(r[0].id), font=fixed_font()),
            Column(
                pgettext("shift", "Opened"),
                lambda r: _time(r[0].opened_at),
                tip=lambda r: utc_time(r[0].opened_at) or None,
            ),
            Column(pgettext("shift", "Opened by"), lambda r: r[0].opened_actor or r[0].opened_by),
            Column(
                pgettext("shift", "Closed"),
                lambda r: _time(r[0].closed_at) if r[0].closed else pgettext("shift", "open"),
                tip=lambda r: utc_time(r[0].closed_at) or None,
            ),
            Column(pgettext("shift", "Closed by"), lambda r: r[0].closed_actor or r[0].closed_by or ""),
            _count(pgettext("shift", "Sales"), "made"),
            _count(pgettext("sales", "Paid"), "paid"),
            _count(pgettext("sales", "Failed"), "failed"),
            _count(pgettext("sales", "Voided"), "voided"),
            _count(pgettext("sales", "Paid after void"), "paid_after_void", colour=LOUD),
            Column(_("Paid amounts"), lambda r: totals(r[1])),
        )

    def listed(self) -> list:
        return self.rows

    async def _with_figures(self, shifts: list[Shift]) -> list[Listed]:
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

    def at(self, row: int) -> Listed | None:
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
            self.rows_changed(row)
            return
        at = _insert_at([s.id for s, _ in self.rows], shift.id)
        if at == len(self.rows) and self._more:
            return  # older than every row shown: read with its page, when scrolled to
        self.beginInsertRows(QModelIndex(), at, at)
        self.rows.insert(at, (shift, shift.figures if shift.closed else (figures or Figures())))
        self.endInsertRows()

    def open_shift_ids(self) -> set[int]:
        return {s.id for s, _ in self.rows if not s.closed}


def listed(sale: Sale) -> bool:
    """Does finance's second list show ``sale``: open, or paid after void and not settled."""
    return sale.kind == OPEN or sale.needs_decision


SALE_STATES = (NP_("sale", "Open"), NP_("sale", "Paid after void: refund or keep"))  # the State column's words


def sale_states() -> tuple[str, str]:
    """The State column's words, in the staff's language."""
    return pgettext("sale", SALE_STATES[0]), pgettext("sale", SALE_STATES[1])


def sale_name(sale: Sale) -> str:
    """ "Sale 0042": the sale's number at its counter."""
    return _("Sale {number:04d}").format(number=sale.number)


def _loud(sale: Sale) -> str | None:
    """A sale paid after its void, for finance to settle: the whole row in red."""
    return LOUD if sale.needs_decision else None


GONE_KEPT = 1_000  # sales that left the list, their last word kept


class SalesModel(PagedModel):
    PAGE_TASK = "counter sales: next page"

    def __init__(self, book: CounterBook, tasks: TaskSet):
        super().__init__(tasks)
        self.book = book
        self.sales: list[Sale] = []
        # the last word on the sales that left the list (paid, voided, decided): an older one
        # heard late does not bring them back as open
        self._gone: OrderedDict[tuple[str, str], Sale] = OrderedDict()
        states = sale_states()
        self.columns = (
            Column(_("Time"), lambda s: _time(s.made_at), colour=_loud, tip=lambda s: utc_time(s.made_at)),
            Column(pgettext("till", "Counter"), lambda s: s.counter, colour=_loud),
            Column(pgettext("column", "Sale"), sale_name, colour=_loud),
            Column(_("Title"), lambda s: s.record.title if s.record is not None else "", colour=_loud),
            Column(_("Amount"), lambda s: _money(s.record) if s.record is not None else "", colour=_loud),
            Column(_("State"), lambda s: states[1] if s.needs_decision else states[0], colour=_loud),
            # read back and typed: each character itself
            Column(_("Reference"), lambda s: s.tx_ref, font=fixed_font(), colour=_loud),
        )

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
        """A sale made, paid, voided or decided: in place, in its place, or out (not a word
        older than its row's, heard late: ``Sale.older_than``)."""
        if self.query is None or (sale.profile_id, sale.mode) != self.query:
            return
        row = self.row_of(sale.key)
        known = self.sales[row] if row is not None else self._gone.get(sale.key)
        if known is not None and sale.older_than(known):
            return
        if row is not None:
            if listed(sale):
                self.sales[row] = sale
                self.rows_changed(row)
            else:
                self.beginRemoveRows(QModelIndex(), row, row)
                del self.sales[row]
                self.endRemoveRows()
                self._gone[sale.key] = sale
                while len(self._gone) > GONE_KEPT:
                    self._gone.popitem(last=False)
            return
        self._gone.pop(sale.key, None)
        if not listed(sale):
            return
        at = _insert_at([s.id for s in self.sales], sale.id)
        if at == len(self.sales) and self._more:
            return  # read with its page, when scrolled to
        self.beginInsertRows(QModelIndex(), at, at)
        self.sales.insert(at, sale)
        self.endInsertRows()
