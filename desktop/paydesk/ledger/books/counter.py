"""The counters' book (``ledger.counter.CounterBook``) in SQL, once for both backends: schema
v8 of the file (``counter_schema``), migration 4 of the shared ledger
(``postgres/counter_schema``).

Every write is one transaction on the engine's writer and writes its event in it ("sale",
key tx_ref; "shift", key str(shift id)). What it reads first (the open shift, the
counter's next number, whether the shift is closed) cannot change before its row is
written: the file has one writer (``BEGIN IMMEDIATE``); desks of a shop sharing a ledger
write at once, so opening a shift, adding a sale and closing a shift first take the
dialect's lock on the counter's name (``Dialect.serialize``): a counter has one open shift
per profile and mode, its numbers never collide, and a close counts every sale of its
shift (a sale after it is refused). ``UNIQUE (counter, number)`` stands behind it."""

from __future__ import annotations

import json

from ..counter import (
    PAID,
    PAID_AFTER_VOID,
    CounterBook,
    Figures,
    Sale,
    SalePaid,
    SaleQuery,
    Shift,
    ShiftClosed,
)
from ..counter_sql import (
    NEXT_NUMBER,
    SHIFT_SELECT,
    check_decision,
    figures_sql,
    sale_select,
    sales_sql,
    shifts_conditions,
)
from ..counter_sql import figures as figures_of
from ..counter_sql import sale as sale_of
from ..counter_sql import shift as shift_of
from ..dialect import Conn, Dialect, Runner
from ..errors import LedgerError

_OPEN_SHIFT = (
    f"{SHIFT_SELECT} WHERE sh.counter = ? AND sh.profile_id = ? AND sh.mode = ?"
    " AND c.shift_id IS NULL ORDER BY sh.id DESC LIMIT 1"
)


class SqlCounterBook(CounterBook):
    """The book on ``engine``, in ``dialect``'s SQL."""

    def __init__(self, engine: Runner, dialect: Dialect):
        self._engine = engine
        self._d = dialect
        self._sales = sale_select(dialect.link_columns)

    def _lock(self, conn: Conn, counter: str) -> None:
        """Until the transaction ends, this writer alone writes ``counter``'s shifts and sales."""
        self._d.serialize(conn, f"paydesk counter {counter}")

    def _shift(self, conn: Conn, shift_id: int) -> Shift | None:
        row = self._d.one(conn, f"{SHIFT_SELECT} WHERE sh.id = ?", (shift_id,))
        return None if row is None else shift_of(row, self._d.when)

    def _must_shift(self, conn: Conn, shift_id: int) -> Shift:
        found = self._shift(conn, shift_id)
        if found is None:
            raise LedgerError(f"shift {shift_id} is not in the counter's book")
        return found

    def _locked_shift(self, conn: Conn, shift_id: int) -> Shift:
        """The shift, read again under its counter's lock (closed meanwhile, or not)."""
        self._lock(conn, self._must_shift(conn, shift_id).counter)
        return self._must_shift(conn, shift_id)

    def _sale(self, conn: Conn, profile_id: str, tx_ref: str) -> Sale | None:
        row = self._d.one(conn, f"{self._sales} WHERE s.profile_id = ? AND s.tx_ref = ?", (profile_id, tx_ref))
        return None if row is None else sale_of(row, self._d.when, self._d.record)

    def _must_sale(self, conn: Conn, profile_id: str, tx_ref: str) -> Sale:
        found = self._sale(conn, profile_id, tx_ref)
        if found is None:
            raise LedgerError(f"{tx_ref} is not a sale of the counter's book")
        return found

    def _figures(self, conn: Conn, query: SaleQuery) -> Figures:
        sql, args = figures_sql(query, mark="?", when=self._d.time)
        return figures_of(self._d.all(conn, sql, args), self._d.when)

    def _sale_event(self, conn: Conn, sale: Sale) -> Sale:
        self._d.event(conn, "sale", sale.profile_id, sale.mode, sale.tx_ref)
        return sale

    def _shift_event(self, conn: Conn, shift: Shift) -> Shift:
        self._d.event(conn, "shift", shift.profile_id, shift.mode, str(shift.id))
        return shift

    async def open_shift(self, counter: str, profile_id: str, mode: str, by: str, *, actor: str | None = None) -> Shift:
        def write(conn: Conn) -> Shift:
            self._lock(conn, counter)
            row = self._d.one(conn, _OPEN_SHIFT, (counter, profile_id, mode))
            if row is not None:
                return shift_of(row, self._d.when)
            made = self._d.new_id(
                conn,
                "INSERT INTO counter_shifts (counter, profile_id, mode,"
                " opened_at, opened_by, actor) VALUES (?, ?, ?, {now}, ?, ?)",
                (counter, profile_id, mode, by, actor),
            )
            return self._shift_event(conn, self._must_shift(conn, made))

        return await self._engine.write(write)

    async def current_shift(self, counter: str, profile_id: str, mode: str) -> Shift | None:
        row = await self._engine.read(lambda conn: self._d.one(conn, _OPEN_SHIFT, (counter, profile_id, mode)))
        return None if row is None else shift_of(row, self._d.when)

    async def shift(self, shift_id: int) -> Shift | None:
        return await self._engine.read(lambda conn: self._shift(conn, shift_id))

    async def next_number(self, counter: str) -> int:
        row = await self._engine.read(lambda conn: self._d.one(conn, NEXT_NUMBER.format(m="?"), (counter,)))
        assert row is not None
        return int(row["n"])

    async def add_sale(self, shift_id: int, tx_ref: str, by: str, *, actor: str | None = None) -> Sale:
        def write(conn: Conn) -> Sale:
            shift = self._locked_shift(conn, shift_id)
            if shift.closed:
                raise ShiftClosed(f"shift {shift_id} of {shift.counter} is closed")
            try:  # the number is the counter's next under its lock
                self._d.run(
                    conn,
                    "INSERT INTO counter_sales (profile_id, mode, tx_ref, counter,"
                    " shift_id, number, made_at, made_by, actor) SELECT ?, ?, ?, ?, ?, n, {now}, ?, ?"
                    f" FROM ({NEXT_NUMBER.format(m='?')}) nxt",
                    (shift.profile_id, shift.mode, tx_ref, shift.counter, shift_id, by, actor, shift.counter),
                )
            except self._d.unique:  # the transaction is rolled back
                raise LedgerError(f"{tx_ref} is a sale already") from None
            return self._sale_event(conn, self._must_sale(conn, shift.profile_id, tx_ref))

        return await self._engine.write(write)

    async def void(self, profile_id: str, tx_ref: str, by: str, *, actor: str | None = None) -> Sale:
        def write(conn: Conn) -> Sale:
            if self._d.share:
                # the link's row held until the void commits: a payment being written on
                # another desk is waited for and read, not slipped in between
                self._d.run(
                    conn,
                    f"SELECT 1 FROM links WHERE profile_id = ? AND tx_ref = ?{self._d.share}",
                    (profile_id, tx_ref),
                )
            sale = self._must_sale(conn, profile_id, tx_ref)
            if sale.voided:
                return sale
            if sale.kind == PAID:  # paid before the void: nothing to void
                raise SalePaid(sale)
            made = self._d.one(
                conn,
                "INSERT INTO counter_voids (profile_id, tx_ref, voided_at,"
                " voided_by, actor) VALUES (?, ?, {now}, ?, ?) ON CONFLICT (profile_id,"
                " tx_ref) DO NOTHING RETURNING tx_ref",
                (profile_id, tx_ref, by, actor),
            )
            sale = self._must_sale(conn, profile_id, tx_ref)
            return sale if made is None else self._sale_event(conn, sale)  # voided before

        return await self._engine.write(write)

    async def decide(self, profile_id: str, tx_ref: str, decision: str, by: str, *, actor: str | None = None) -> Sale:
        check_decision(decision)

        def write(conn: Conn) -> Sale:
            sale = self._must_sale(conn, profile_id, tx_ref)
            if sale.decision is not None:
                return sale  # decided before: it stands
            if sale.kind != PAID_AFTER_VOID:
                raise LedgerError(f"{tx_ref} was not paid after its void ({sale.kind})")
            made = self._d.one(
                conn,
                "INSERT INTO counter_decisions (profile_id, tx_ref,"
                " decision, decided_at, decided_by, actor) VALUES (?, ?, ?, {now}, ?, ?)"
                " ON CONFLICT (profile_id, tx_ref) DO NOTHING RETURNING tx_ref",
                (profile_id, tx_ref, decision, by, actor),
            )
            sale = self._must_sale(conn, profile_id, tx_ref)  # another desk's decision stands
            return sale if made is None else self._sale_event(conn, sale)

        return await self._engine.write(write)

    async def sale(self, profile_id: str, tx_ref: str) -> Sale | None:
        return await self._engine.read(lambda conn: self._sale(conn, profile_id, tx_ref))

    async def sales(self, query: SaleQuery, before: int | None = None, limit: int = 100) -> list[Sale]:
        sql, args = sales_sql(query, before, limit, mark="?", when=self._d.time, link_columns=self._d.link_columns)
        rows = await self._engine.read(lambda conn: self._d.all(conn, sql, args))
        return [sale_of(r, self._d.when, self._d.record) for r in rows]

    async def figures(self, query: SaleQuery) -> Figures:
        return await self._engine.read(lambda conn: self._figures(conn, query))

    async def close_shift(self, shift_id: int, by: str, *, actor: str | None = None) -> Shift:
        def write(conn: Conn) -> Shift:
            shift = self._locked_shift(conn, shift_id)
            if shift.closed:
                raise ShiftClosed(f"shift {shift_id} of {shift.counter} is closed already")
            frozen = self._figures(conn, SaleQuery(shift_id=shift_id))
            self._d.run(
                conn,
                "INSERT INTO counter_shift_closes (shift_id, closed_at, closed_by, figures, actor)"
                " VALUES (?, {now}, ?, ?, ?)",
                (shift_id, by, json.dumps(frozen.to_json(), sort_keys=True), actor),
            )
            return self._shift_event(conn, self._must_shift(conn, shift_id))

        return await self._engine.write(write)

    async def shifts(
        self,
        profile_id: str | None = None,
        mode: str | None = None,
        counter: str | None = None,
        before: int | None = None,
        limit: int = 100,
    ) -> list[Shift]:
        where, args = shifts_conditions(profile_id, mode, counter, before, mark="?")
        rows = await self._engine.read(
            lambda conn: self._d.all(conn, f"{SHIFT_SELECT} WHERE {where} ORDER BY sh.id DESC LIMIT {int(limit)}", args)
        )
        return [shift_of(r, self._d.when) for r in rows]


__all__ = ["SqlCounterBook"]
