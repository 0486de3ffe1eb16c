"""The counters' book on a shop's shared PostgreSQL (migration 4, ``counter_schema``):
``ledger.counter.CounterBook`` with the same results as ``SqliteCounterBook``, where finance
sees every counter's shifts and sales.

Every write is one transaction on the engine's writer thread and writes an event in it
("sale", key tx_ref; "shift", key str(shift id)), so every desk hears of it. Desks of one
shop write at once: opening a shift, adding a sale and closing a shift first take a
transaction's advisory lock on the counter's name, so a counter has one open shift per
profile and mode, its numbers never collide, and a close counts every sale of its shift
(a sale after it is refused). ``UNIQUE (counter, number)`` stands behind the lock.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from psycopg.errors import UniqueViolation

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
from ..errors import LedgerError
from . import events
from .engine import PgEngine
from .search import SELECT, Conn, aware, record

_SALES = sale_select(SELECT)
_OPEN_SHIFT = (f"{SHIFT_SELECT} WHERE sh.counter = %s AND sh.profile_id = %s AND sh.mode = %s"
               " AND c.shift_id IS NULL ORDER BY sh.id DESC LIMIT 1")
_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))"


def _utc(when: datetime) -> datetime:
    return when if when.tzinfo is UTC else when.astimezone(UTC)


def _lock(conn: Conn, counter: str) -> None:
    """Until the transaction ends, this desk alone writes ``counter``'s shifts and sales."""
    conn.execute(_LOCK, (f"paydesk counter {counter}",))


def _shift(conn: Conn, shift_id: int) -> Shift | None:
    row = conn.execute(f"{SHIFT_SELECT} WHERE sh.id = %s", (shift_id,)).fetchone()
    return None if row is None else shift_of(row, _utc)


def _must_shift(conn: Conn, shift_id: int) -> Shift:
    found = _shift(conn, shift_id)
    if found is None:
        raise LedgerError(f"shift {shift_id} is not in the counter's book")
    return found


def _locked_shift(conn: Conn, shift_id: int) -> Shift:
    """The shift, read again under its counter's lock (closed meanwhile, or not)."""
    _lock(conn, _must_shift(conn, shift_id).counter)
    return _must_shift(conn, shift_id)


def _sale(conn: Conn, profile_id: str, tx_ref: str) -> Sale | None:
    row = conn.execute(f"{_SALES} WHERE s.profile_id = %s AND s.tx_ref = %s",
                       (profile_id, tx_ref)).fetchone()
    return None if row is None else sale_of(row, _utc, record)


def _must_sale(conn: Conn, profile_id: str, tx_ref: str) -> Sale:
    found = _sale(conn, profile_id, tx_ref)
    if found is None:
        raise LedgerError(f"{tx_ref} is not a sale of the counter's book")
    return found


def _figures(conn: Conn, query: SaleQuery) -> Figures:
    sql, args = figures_sql(query, mark="%s", when=aware)
    return figures_of(conn.execute(sql, args).fetchall(), _utc)


class PostgresCounterBook(CounterBook):
    """``PostgresCounterBook(engine)``: the book of a shared ledger, on the engine the links,
    cards and inbox use."""

    def __init__(self, engine: PgEngine):
        self._engine = engine

    def _sale_event(self, conn: Conn, sale: Sale) -> Sale:
        events.emit(conn, self._engine.desk, "sale", sale.profile_id, sale.mode, sale.tx_ref)
        return sale

    def _shift_event(self, conn: Conn, shift: Shift) -> Shift:
        events.emit(conn, self._engine.desk, "shift", shift.profile_id, shift.mode,
                    str(shift.id))
        return shift

    async def open_shift(self, counter: str, profile_id: str, mode: str, by: str) -> Shift:
        def write(conn: Conn) -> Shift:
            _lock(conn, counter)
            row = conn.execute(_OPEN_SHIFT, (counter, profile_id, mode)).fetchone()
            if row is not None:
                return shift_of(row, _utc)
            made = conn.execute("INSERT INTO counter_shifts (counter, profile_id, mode,"
                                " opened_by) VALUES (%s, %s, %s, %s) RETURNING id",
                                (counter, profile_id, mode, by)).fetchone()
            assert made is not None
            return self._shift_event(conn, _must_shift(conn, int(made["id"])))

        return await self._engine.write(write)

    async def current_shift(self, counter: str, profile_id: str, mode: str) -> Shift | None:
        row = await self._engine.read(lambda conn: conn.execute(
            _OPEN_SHIFT, (counter, profile_id, mode)).fetchone())
        return None if row is None else shift_of(row, _utc)

    async def shift(self, shift_id: int) -> Shift | None:
        return await self._engine.read(lambda conn: _shift(conn, shift_id))

    async def next_number(self, counter: str) -> int:
        row = await self._engine.read(lambda conn: conn.execute(
            NEXT_NUMBER.format(m="%s"), (counter,)).fetchone())
        assert row is not None
        return int(row["n"])

    async def add_sale(self, shift_id: int, tx_ref: str, by: str) -> Sale:
        def write(conn: Conn) -> Sale:
            shift = _locked_shift(conn, shift_id)
            if shift.closed:
                raise ShiftClosed(f"shift {shift_id} of {shift.counter} is closed")
            try:  # the number is the counter's next under its lock
                conn.execute("INSERT INTO counter_sales (profile_id, mode, tx_ref, counter,"
                             " shift_id, number, made_by) SELECT %s, %s, %s, %s, %s, n, %s"
                             f" FROM ({NEXT_NUMBER.format(m='%s')}) next",
                             (shift.profile_id, shift.mode, tx_ref, shift.counter, shift_id,
                              by, shift.counter))
            except UniqueViolation:  # the transaction is rolled back
                raise LedgerError(f"{tx_ref} is a sale already") from None
            return self._sale_event(conn, _must_sale(conn, shift.profile_id, tx_ref))

        return await self._engine.write(write)

    async def void(self, profile_id: str, tx_ref: str, by: str) -> Sale:
        def write(conn: Conn) -> Sale:
            # the link's row held until the void commits: a payment being written on another
            # desk is waited for and read, not slipped in between the read and the void
            conn.execute("SELECT 1 FROM links WHERE profile_id = %s AND tx_ref = %s FOR SHARE",
                         (profile_id, tx_ref))
            sale = _must_sale(conn, profile_id, tx_ref)
            if sale.kind == PAID:  # paid before the void: nothing to void
                raise SalePaid(sale)
            made = conn.execute("INSERT INTO counter_voids (profile_id, tx_ref, voided_by)"
                                " VALUES (%s, %s, %s) ON CONFLICT (profile_id, tx_ref)"
                                " DO NOTHING RETURNING tx_ref", (profile_id, tx_ref, by)).fetchone()
            sale = _must_sale(conn, profile_id, tx_ref)
            return sale if made is None else self._sale_event(conn, sale)  # voided before

        return await self._engine.write(write)

    async def decide(self, profile_id: str, tx_ref: str, decision: str, by: str) -> Sale:
        check_decision(decision)

        def write(conn: Conn) -> Sale:
            sale = _must_sale(conn, profile_id, tx_ref)
            if sale.decision is not None:
                return sale  # decided before: it stands
            if sale.kind != PAID_AFTER_VOID:
                raise LedgerError(f"{tx_ref} was not paid after its void ({sale.kind})")
            made = conn.execute("INSERT INTO counter_decisions (profile_id, tx_ref, decision,"
                                " decided_by) VALUES (%s, %s, %s, %s)"
                                " ON CONFLICT (profile_id, tx_ref) DO NOTHING RETURNING tx_ref",
                                (profile_id, tx_ref, decision, by)).fetchone()
            sale = _must_sale(conn, profile_id, tx_ref)  # another desk's decision stands
            return sale if made is None else self._sale_event(conn, sale)

        return await self._engine.write(write)

    async def sale(self, profile_id: str, tx_ref: str) -> Sale | None:
        return await self._engine.read(lambda conn: _sale(conn, profile_id, tx_ref))

    async def sales(self, query: SaleQuery, before: int | None = None,
                    limit: int = 100) -> list[Sale]:
        sql, args = sales_sql(query, before, limit, mark="%s", when=aware, link_columns=SELECT)
        rows = await self._engine.read(lambda conn: conn.execute(sql, args).fetchall())
        return [sale_of(r, _utc, record) for r in rows]

    async def figures(self, query: SaleQuery) -> Figures:
        return await self._engine.read(lambda conn: _figures(conn, query))

    async def close_shift(self, shift_id: int, by: str) -> Shift:
        def write(conn: Conn) -> Shift:
            shift = _locked_shift(conn, shift_id)
            if shift.closed:
                raise ShiftClosed(f"shift {shift_id} of {shift.counter} is closed already")
            frozen = _figures(conn, SaleQuery(shift_id=shift_id))
            conn.execute("INSERT INTO counter_shift_closes (shift_id, closed_by, figures)"
                         " VALUES (%s, %s, %s)",
                         (shift_id, by, json.dumps(frozen.to_json(), sort_keys=True)))
            return self._shift_event(conn, _must_shift(conn, shift_id))

        return await self._engine.write(write)

    async def shifts(self, profile_id: str | None = None, mode: str | None = None,
                     counter: str | None = None, before: int | None = None,
                     limit: int = 100) -> list[Shift]:
        where, args = shifts_conditions(profile_id, mode, counter, before, mark="%s")
        rows = await self._engine.read(lambda conn: conn.execute(
            f"{SHIFT_SELECT} WHERE {where} ORDER BY sh.id DESC LIMIT {int(limit)}",
            args).fetchall())
        return [shift_of(r, _utc) for r in rows]


__all__ = ["PostgresCounterBook"]
