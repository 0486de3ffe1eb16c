"""Today's sales of this counter: a table model read from the ledger a page at a time,
newest first, following every change live; and the day's totals in words."""

from __future__ import annotations

from decimal import Decimal

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QTableView

from ...desk.counter import CounterController
from ...desk.formats import amount_in, money_in
from ...desk.tasks import TaskSet
from ...i18n import N_, NP_, _, pgettext, staff
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
from .. import widgets
from ..fixed_text import fixed_font
from ..paging import PagedModel
from ..table import REFERENCE_SAMPLE, RIGHT, Column, bold_font, fit_columns

COLUMNS = (N_("Time"), N_("Title"), N_("Amount"), N_("State"), N_("Reference"))
TIME, TITLE, AMOUNT, STATE, REFERENCE = range(len(COLUMNS))
PAGE = 100
HELD = 2 * PAGE  # rows held: past them the oldest are let go, read again when scrolled to

KIND_WORDS = {  # a sale's state (pgettext "sale")
    PAID: NP_("sale", "Paid"),
    OPEN: NP_("sale", "Open"),
    FAILED: NP_("sale", "Failed"),
    VOIDED: NP_("sale", "Voided"),
    PAID_AFTER_VOID: NP_("sale", "Paid after void: refund or keep"),
}
KIND_COLOURS = {PAID: "#1b7f3b", OPEN: "#2155cd", FAILED: "#b3261e", VOIDED: "#5c6675", PAID_AFTER_VOID: "#b3261e"}
DECIDED_WORDS = {REFUND: NP_("sale", "Paid after void: to refund"), KEEP: NP_("sale", "Paid after void: kept")}


def sale_title(sale: Sale) -> str:
    """The link's title (the note typed, or the title it was given), else the counter's
    "Sale 0042" (a sale whose link was never sent), in the staff's language."""
    record = sale.record
    return (record.title if record is not None else "") or _("Sale {number:04d}").format(number=sale.number)


def kind_words(sale: Sale) -> str:
    if sale.kind == PAID_AFTER_VOID and sale.decision in DECIDED_WORDS:
        return pgettext("sale", DECIDED_WORDS[sale.decision])
    words = KIND_WORDS.get(sale.kind)
    return pgettext("sale", words) if words is not None else sale.kind.capitalize()


def sale_money(sale: Sale) -> str:
    record = sale.record
    return money_in(record.amount, record.currency, staff()) if record is not None else pgettext("sale", "not sent")


def totals_text(figures: Figures) -> str:
    """ "GBP: paid 42.00 · open 7.00 · voided 0.00", a line per currency (none: no sales),
    the amounts as the staff's language writes them."""
    if not figures.currencies:
        return _("Today: no sales yet")
    words = staff()
    lines = []
    for code, f in sorted(figures.currencies.items()):
        amounts = {
            "currency": code,
            "paid": amount_in(f.paid, words),
            "open": amount_in(f.open, words),
            "voided": amount_in(f.voided, words),
            "after_void": amount_in(f.paid_after_void, words),
        }
        line = (
            _("{currency}: paid {paid} · open {open} · voided {voided} · paid after void {after_void}")
            if f.paid_after_void
            else _("{currency}: paid {paid} · open {open} · voided {voided}")
        )
        lines.append(line.format(**amounts))
    return _("Today, {totals}").format(totals="; ".join(lines))


class SalesModel(PagedModel):
    """This counter's sales of today, newest first (the book's id descending)."""

    PAGE_TASK = "counter sales: next page"

    def __init__(self, controller: CounterController, tasks: TaskSet) -> None:
        super().__init__(tasks)
        self.controller = controller
        self.sales: list[Sale] = []
        self.columns = (
            Column(_(COLUMNS[TIME]), lambda s: s.made_at.astimezone().strftime("%H:%M:%S")),
            Column(_(COLUMNS[TITLE]), sale_title),
            Column(_(COLUMNS[AMOUNT]), sale_money, align=RIGHT),
            Column(
                _(COLUMNS[STATE]), kind_words, font=bold_font(), colour=lambda s: KIND_COLOURS.get(s.kind, "#5c6675")
            ),
            # read back and typed: no ligatures
            Column(_(COLUMNS[REFERENCE]), lambda s: s.tx_ref, font=fixed_font()),
        )

    def listed(self) -> list:
        return self.sales

    async def load(self) -> None:
        """The first page, again from the ledger (a profile or mode switch, a new day); a
        sale's row heard of while the page was read keeps that word if the page's is older."""
        query = (self.controller.name, id(self))
        sales = await self.controller.today(limit=PAGE)
        held = {s.key: s for s in self.sales}
        sales = [held[s.key] if s.key in held and s.older_than(held[s.key]) else s for s in sales]
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
        than the first row) goes on top. One older than what is listed is read with its page;
        a word on a listed sale older than its row's (heard late, out of order) is dropped."""
        row = self.row_of(sale.key)
        if row is not None:
            if sale.older_than(self.sales[row]):
                return
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
        widgets.as_record_table(self, "counter-sales", model, _("Today's sales"))
        # each column as wide as what it holds, the title taking the rest (cut where narrow,
        # whole on hover): the list never scrolls sideways at the window's least width
        states = [pgettext("sale", words) for words in (*KIND_WORDS.values(), *DECIDED_WORDS.values())]
        samples = ["23:58:58", "", money_in(Decimal("12500"), "GBP", staff()), states, REFERENCE_SAMPLE]
        fit_columns(self, samples, TITLE, {STATE: bold_font(), REFERENCE: fixed_font()})
