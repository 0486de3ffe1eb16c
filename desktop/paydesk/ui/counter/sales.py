"""Today's sales of this counter: a table model read from the ledger a page at a time,
newest first, following every change live; and the day's totals in words."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QTableView

from ...desk.counter import CounterController
from ...desk.states import money
from ...desk.tasks import TaskSet
from ...ledger.counter import (
    FAILED,
    KEEP,
    OPEN,
    PAID,
    PAID_AFTER_VOID,
    REFUND,
    VOIDED,
    Figures,
    Sale,
)
from ...service.money import format_amount
from .. import widgets
from ..fixed_text import fixed_font
from ..paging import PagedModel
from ..table import RIGHT, Column, bold_font

COLUMNS = ("Time", "Title", "Amount", "State", "Reference")
TIME, TITLE, AMOUNT, STATE, REFERENCE = range(len(COLUMNS))
PAGE = 100
HELD = 2 * PAGE  # rows held: past them the oldest are let go, read again when scrolled to

KIND_WORDS = {
    PAID: "Paid",
    OPEN: "Open",
    FAILED: "Failed",
    VOIDED: "Voided",
    PAID_AFTER_VOID: "Paid after void: refund or keep",
}
KIND_COLOURS = {PAID: "#1b7f3b", OPEN: "#2155cd", FAILED: "#b3261e", VOIDED: "#5c6675", PAID_AFTER_VOID: "#b3261e"}
DECIDED_WORDS = {REFUND: "Paid after void: to refund", KEEP: "Paid after void: kept"}


def sale_title(sale: Sale) -> str:
    """The link's title (the note typed), else the counter's "Sale 0042"."""
    record = sale.record
    return (record.title if record is not None else "") or f"Sale {sale.number:04d}"


def kind_words(sale: Sale) -> str:
    if sale.kind == PAID_AFTER_VOID and sale.decision in DECIDED_WORDS:
        return DECIDED_WORDS[sale.decision]
    return KIND_WORDS.get(sale.kind, sale.kind.capitalize())


def sale_money(sale: Sale) -> str:
    return money(sale.record) if sale.record is not None else "not sent"


def totals_text(figures: Figures) -> str:
    """ "GBP: paid 42.00 · open 7.00 · voided 0.00", a line per currency (none: no sales)."""
    if not figures.currencies:
        return "Today: no sales yet"
    lines = [
        f"{code}: paid {format_amount(f.paid)} · open {format_amount(f.open)} · "
        f"voided {format_amount(f.voided)}"
        + (f" · paid after void {format_amount(f.paid_after_void)}" if f.paid_after_void else "")
        for code, f in sorted(figures.currencies.items())
    ]
    return "Today, " + "; ".join(lines)


class SalesModel(PagedModel):
    """This counter's sales of today, newest first (the book's id descending)."""

    PAGE_TASK = "counter sales: next page"

    def __init__(self, controller: CounterController, tasks: TaskSet) -> None:
        super().__init__(tasks)
        self.controller = controller
        self.sales: list[Sale] = []
        self.columns = (
            Column(COLUMNS[TIME], lambda s: s.made_at.astimezone().strftime("%H:%M:%S")),
            Column(COLUMNS[TITLE], sale_title),
            Column(COLUMNS[AMOUNT], sale_money, align=RIGHT),
            Column(COLUMNS[STATE], kind_words, font=bold_font(), colour=lambda s: KIND_COLOURS.get(s.kind, "#5c6675")),
            # read back and typed: no ligatures
            Column(COLUMNS[REFERENCE], lambda s: s.tx_ref, font=fixed_font()),
        )

    def listed(self) -> list:
        return self.sales

    async def load(self) -> None:
        """The first page, again from the ledger (a profile or mode switch, a new day)."""
        query = (self.controller.name, id(self))
        sales = await self.controller.today(limit=PAGE)
        self.beginResetModel()
        self.sales = list(sales)
        self.first_page(query, self.sales, sales[-1].id if sales else None, len(sales) >= PAGE)
        self.endResetModel()
        self.loaded.emit()

    async def read_page(self, query: object, before: int | None) -> tuple[list[Sale], int | None, bool]:
        sales = await self.controller.today(before=before, limit=PAGE)
        return sales, sales[-1].id if sales else before, len(sales) >= PAGE

    def row_of(self, key: tuple[str, str]) -> int | None:
        return next((i for i, s in enumerate(self.sales) if s.key == key), None)

    def upsert(self, sale: Sale) -> None:
        """A sale made, voided, decided or whose link moved: its row follows; a new one (newer
        than the first row) goes on top. One older than what is listed is read with its page."""
        row = self.row_of(sale.key)
        if row is not None:
            self.sales[row] = sale
            self.rows_changed(row)
        elif not self.sales or sale.id > self.sales[0].id:
            self.beginInsertRows(QModelIndex(), 0, 0)
            self.sales.insert(0, sale)
            self.endInsertRows()
            if len(self.sales) > HELD:
                self.keep_newest(HELD, self.sales[HELD - 1].id)


class SalesList(QTableView):
    def __init__(self, model: SalesModel):
        super().__init__()
        self.sales = model
        widgets.as_record_table(self, "counter-sales", model, "Today's sales", (90, 220, 120, 230))
