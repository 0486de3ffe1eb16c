"""The counters' book in a desk's SQLite file (schema v8, ``counter_schema``), on the same
threads (``Engine``) as its links: ``SqliteCounterBook.beside(ledger)``.

Every write is one ``BEGIN IMMEDIATE`` transaction on the file's one writer: what it reads
first (the open shift, the counter's next number, whether the shift is closed) cannot
change before its row is written, even with another window on the same file.
"""

from __future__ import annotations

import json
import sqlite3

from .counter import (
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
from .counter_sql import (
    NEXT_NUMBER,
    SHIFT_SELECT,
    check_decision,
    figures_sql,
    sale_select,
    sales_sql,
    shifts_conditions,
)
from .counter_sql import figures as figures_of
from .counter_sql import sale as sale_of
from .counter_sql import shift as shift_of
from .errors import LedgerError
from .records import parse_written, stamp
from .search import SELECT, record
from .sqlite import SqliteLedger
from .sqlite.engine import Engine

_SALES = sale_select(SELECT)
_OPEN_SHIFT = (f"{SHIFT_SELECT} WHERE sh.counter = ? AND sh.profile_id = ? AND sh.mode = ?"
               " AND c.shift_id IS NULL ORDER BY sh.id DESC LIMIT 1")


def _shift(db: sqlite3.Connection, shift_id: int) -> Shift | None:
    row = db.execute(f"{SHIFT_SELECT} WHERE sh.id = ?", (shift_id,)).fetchone()
    return None if row is None else shift_of(row, parse_written)


def _must_shift(db: sqlite3.Connection, shift_id: int) -> Shift:
    found = _shift(db, shift_id)
    if found is None:
        raise LedgerError(f"shift {shift_id} is not in the counter's book")
    return found


def _sale(db: sqlite3.Connection, profile_id: str, tx_ref: str) -> Sale | None:
    row = db.execute(f"{_SALES} WHERE s.profile_id = ? AND s.tx_ref = ?",
                     (profile_id, tx_ref)).fetchone()
    return None if row is None else sale_of(row, parse_written, record)


def _must_sale(db: sqlite3.Connection, profile_id: str, tx_ref: str) -> Sale:
    found = _sale(db, profile_id, tx_ref)
    if found is None:
        raise LedgerError(f"{tx_ref} is not a sale of the counter's book")
    return found


def _figures(db: sqlite3.Connection, query: SaleQuery) -> Figures:
    sql, args = figures_sql(query, mark="?", when=stamp)
    return figures_of(db.execute(sql, args).fetchall(), parse_written)


class SqliteCounterBook(CounterBook):
    """``SqliteCounterBook.beside(ledger)``: the book in the ledger's file, on its writer and
    readers (a sale and its link's record are written by the same writer, in order)."""

    def __init__(self, engine: Engine):
        self._engine = engine

    @classmethod
    def beside(cls, ledger: SqliteLedger) -> SqliteCounterBook:
        return cls(ledger._engine)  # one package, one file

    async def open_shift(self, counter: str, profile_id: str, mode: str, by: str) -> Shift:
        def write(db: sqlite3.Connection) -> Shift:
            row = db.execute(_OPEN_SHIFT, (counter, profile_id, mode)).fetchone()
            if row is not None:
                return shift_of(row, parse_written)
            made = db.execute("INSERT INTO counter_shifts (counter, profile_id, mode,"
                              " opened_at, opened_by) VALUES (?, ?, ?, ?, ?)",
                              (counter, profile_id, mode, stamp(), by)).lastrowid
            assert made is not None
            return _must_shift(db, made)

        return await self._engine.write(write)

    async def current_shift(self, counter: str, profile_id: str, mode: str) -> Shift | None:
        row = await self._engine.read(lambda db: db.execute(
            _OPEN_SHIFT, (counter, profile_id, mode)).fetchone())
        return None if row is None else shift_of(row, parse_written)

    async def shift(self, shift_id: int) -> Shift | None:
        return await self._engine.read(lambda db: _shift(db, shift_id))

    async def next_number(self, counter: str) -> int:
        row = await self._engine.read(lambda db: db.execute(
            NEXT_NUMBER.format(m="?"), (counter,)).fetchone())
        return int(row["n"])

    async def add_sale(self, shift_id: int, tx_ref: str, by: str) -> Sale:
        def write(db: sqlite3.Connection) -> Sale:
            shift = _must_shift(db, shift_id)
            if shift.closed:
                raise ShiftClosed(f"shift {shift_id} of {shift.counter} is closed")
            number = int(db.execute(NEXT_NUMBER.format(m="?"), (shift.counter,)).fetchone()["n"])
            try:
                db.execute("INSERT INTO counter_sales (profile_id, mode, tx_ref, counter,"
                           " shift_id, number, made_at, made_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           (shift.profile_id, shift.mode, tx_ref, shift.counter, shift_id,
                            number, stamp(), by))
            except sqlite3.IntegrityError:
                raise LedgerError(f"{tx_ref} is a sale already") from None
            return _must_sale(db, shift.profile_id, tx_ref)

        return await self._engine.write(write)

    async def void(self, profile_id: str, tx_ref: str, by: str) -> Sale:
        def write(db: sqlite3.Connection) -> Sale:
            sale = _must_sale(db, profile_id, tx_ref)
            if sale.voided:
                return sale
            if sale.kind == PAID:  # paid before the void: nothing to void
                raise SalePaid(sale)
            db.execute("INSERT INTO counter_voids (profile_id, tx_ref, voided_at, voided_by)"
                       " VALUES (?, ?, ?, ?)", (profile_id, tx_ref, stamp(), by))
            return _must_sale(db, profile_id, tx_ref)

        return await self._engine.write(write)

    async def decide(self, profile_id: str, tx_ref: str, decision: str, by: str) -> Sale:
        check_decision(decision)

        def write(db: sqlite3.Connection) -> Sale:
            sale = _must_sale(db, profile_id, tx_ref)
            if sale.decision is not None:
                return sale  # decided before: it stands
            if sale.kind != PAID_AFTER_VOID:
                raise LedgerError(f"{tx_ref} was not paid after its void ({sale.kind})")
            db.execute("INSERT INTO counter_decisions (profile_id, tx_ref, decision,"
                       " decided_at, decided_by) VALUES (?, ?, ?, ?, ?)",
                       (profile_id, tx_ref, decision, stamp(), by))
            return _must_sale(db, profile_id, tx_ref)

        return await self._engine.write(write)

    async def sale(self, profile_id: str, tx_ref: str) -> Sale | None:
        return await self._engine.read(lambda db: _sale(db, profile_id, tx_ref))

    async def sales(self, query: SaleQuery, before: int | None = None,
                    limit: int = 100) -> list[Sale]:
        sql, args = sales_sql(query, before, limit, mark="?", when=stamp, link_columns=SELECT)
        rows = await self._engine.read(lambda db: db.execute(sql, args).fetchall())
        return [sale_of(r, parse_written, record) for r in rows]

    async def figures(self, query: SaleQuery) -> Figures:
        return await self._engine.read(lambda db: _figures(db, query))

    async def close_shift(self, shift_id: int, by: str) -> Shift:
        def write(db: sqlite3.Connection) -> Shift:
            shift = _must_shift(db, shift_id)
            if shift.closed:
                raise ShiftClosed(f"shift {shift_id} of {shift.counter} is closed already")
            frozen = _figures(db, SaleQuery(shift_id=shift_id))
            db.execute("INSERT INTO counter_shift_closes (shift_id, closed_at, closed_by,"
                       " figures) VALUES (?, ?, ?, ?)",
                       (shift_id, stamp(), by, json.dumps(frozen.to_json(), sort_keys=True)))
            return _must_shift(db, shift_id)

        return await self._engine.write(write)

    async def shifts(self, profile_id: str | None = None, mode: str | None = None,
                     counter: str | None = None, before: int | None = None,
                     limit: int = 100) -> list[Shift]:
        where, args = shifts_conditions(profile_id, mode, counter, before, mark="?")
        rows = await self._engine.read(lambda db: db.execute(
            f"{SHIFT_SELECT} WHERE {where} ORDER BY sh.id DESC LIMIT {int(limit)}",
            args).fetchall())
        return [shift_of(r, parse_written) for r in rows]


__all__ = ["SqliteCounterBook"]
