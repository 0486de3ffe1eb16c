"""The batches' book in a desk's SQLite file (schema v9, ``batch_schema``), on the same threads
(``Engine``) as its links: ``SqliteBatchBook.beside(ledger)``. Every write is one
transaction on the file's one writer."""

from __future__ import annotations

import sqlite3

from .batch import (
    Batch,
    BatchBook,
    BatchFigures,
    BatchRow,
    NewRow,
    check_policy,
    new_prefix,
)
from .batch_sql import (
    BATCH_SELECT,
    FIGURES,
    UNSENT,
    WAITING_WHERE,
    cells,
    corrections,
    new_ref,
    row_select,
    rows_where,
)
from .batch_sql import batch as batch_of_row
from .batch_sql import batch_row as row_of
from .batch_sql import figures as figures_of
from .engine import Engine, LedgerError
from .records import parse_written, stamp
from .search import SELECT, record
from .sqlite import SqliteLedger

_ROWS = row_select(SELECT)
_INSERT_ROW = ("INSERT INTO batch_rows (batch_id, number, profile_id, tx_ref, cells, skipped)"
               " VALUES (?, ?, ?, ?, ?, ?)")


def _batch(db: sqlite3.Connection, batch_id: int) -> Batch | None:
    row = db.execute(f"{BATCH_SELECT} WHERE b.id = ?", (batch_id,)).fetchone()
    return None if row is None else batch_of_row(row, parse_written)


def _must_batch(db: sqlite3.Connection, batch_id: int) -> Batch:
    found = _batch(db, batch_id)
    if found is None:
        raise LedgerError(f"batch {batch_id} is not in the batches' book")
    return found


def _insert(db: sqlite3.Connection, batch: Batch, rows: list[NewRow]) -> None:
    db.executemany(_INSERT_ROW, [
        (batch.id, number, batch.profile_id, new_ref(batch.prefix, number, tx_ref, skipped),
         cells(values), int(skipped)) for number, tx_ref, values, skipped in rows])


class SqliteBatchBook(BatchBook):
    """``SqliteBatchBook.beside(ledger)``: the book in the ledger's file, on its writer and
    readers (a row and its link's record are written by the same writer, in order)."""

    def __init__(self, engine: Engine):
        self._engine = engine

    @classmethod
    def beside(cls, ledger: SqliteLedger) -> SqliteBatchBook:
        return cls(ledger._engine)  # one package, one file

    async def add_batch(self, profile_id: str, mode: str, name: str, file_name: str,
                        policy: str, by: str, rows: list[NewRow], *,
                        txref_prefix: str = "PAY") -> Batch:
        check_policy(policy)
        prefix = new_prefix(txref_prefix)

        def write(db: sqlite3.Connection) -> Batch:
            made = db.execute("INSERT INTO batches (profile_id, mode, name, file_name, made_at,"
                              " made_by, policy, prefix) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                              (profile_id, mode, name, file_name, stamp(), by, policy,
                               prefix)).lastrowid
            assert made is not None
            _insert(db, _must_batch(db, made), rows)
            return _must_batch(db, made)

        return await self._engine.write(write)

    async def batch(self, batch_id: int) -> Batch | None:
        return await self._engine.read(lambda db: _batch(db, batch_id))

    async def batches(self, profile_id: str, mode: str, before: int | None = None,
                      limit: int = 100) -> list[Batch]:
        where = "b.profile_id = ? AND b.mode = ?"
        args: list[object] = [profile_id, mode]
        if before is not None:
            where = f"{where} AND b.id < ?"
            args.append(before)
        rows = await self._engine.read(lambda db: db.execute(
            f"{BATCH_SELECT} WHERE {where} ORDER BY b.id DESC LIMIT {int(limit)}",
            args).fetchall())
        return [batch_of_row(r, parse_written) for r in rows]

    async def find(self, profile_id: str, mode: str, file_name: str) -> Batch | None:
        row = await self._engine.read(lambda db: db.execute(
            f"{BATCH_SELECT} WHERE b.profile_id = ? AND b.mode = ? AND b.file_name = ?"
            " ORDER BY b.id DESC LIMIT 1", (profile_id, mode, file_name)).fetchone())
        return None if row is None else batch_of_row(row, parse_written)

    async def add_rows(self, batch_id: int, rows: list[NewRow]) -> int:
        def write(db: sqlite3.Connection) -> int:
            batch = _must_batch(db, batch_id)
            have = {int(r[0]) for r in db.execute(
                "SELECT number FROM batch_rows WHERE batch_id = ?", (batch_id,)).fetchall()}
            added, again, refs = corrections(batch.prefix, rows, have, db.execute(
                UNSENT.format(m="?"), (batch_id,)).fetchall())
            _insert(db, batch, added)
            db.executemany("UPDATE batch_rows SET cells = ?, skipped = ?"
                           f" WHERE batch_id = {int(batch_id)} AND number = ?", again)
            db.executemany("UPDATE batch_rows SET tx_ref = ?"
                           f" WHERE batch_id = {int(batch_id)} AND number = ?", refs)
            return len(added) + len(again)

        return await self._engine.write(write)

    async def rows(self, batch_id: int, after: int | None = None, limit: int = 200,
                   states: tuple[str, ...] = ()) -> list[BatchRow]:
        where, args = rows_where(batch_id, after, tuple(states), "?")
        found = await self._engine.read(lambda db: db.execute(
            f"{_ROWS} WHERE {where} ORDER BY r.number LIMIT {int(limit)}", args).fetchall())
        return [row_of(r, record, parse_written) for r in found]

    async def row(self, batch_id: int, number: int) -> BatchRow | None:
        found = await self._engine.read(lambda db: db.execute(
            f"{_ROWS} WHERE r.batch_id = ? AND r.number = ?", (batch_id, number)).fetchone())
        return None if found is None else row_of(found, record, parse_written)

    async def figures(self, batch_id: int) -> BatchFigures:
        found = await self._engine.read(lambda db: db.execute(
            FIGURES.format(m="?"), (batch_id,)).fetchall())
        return figures_of(found)

    async def note_email(self, batch_id: int, number: int, ok: bool,
                         error: str | None = None) -> None:
        def write(db: sqlite3.Connection) -> None:
            if db.execute("SELECT 1 FROM batch_rows WHERE batch_id = ? AND number = ?",
                          (batch_id, number)).fetchone() is None:  # no foreign keys here
                raise LedgerError(f"row {number} is not in batch {batch_id}")
            db.execute("INSERT INTO batch_emails (batch_id, number, ok, error, noted_at)"
                       " VALUES (?, ?, ?, ?, ?)", (batch_id, number, int(ok),
                                                   None if ok else error, stamp()))

        await self._engine.write(write)

    async def batch_of(self, profile_id: str, tx_ref: str) -> int | None:
        row = await self._engine.read(lambda db: db.execute(
            "SELECT MAX(batch_id) AS b FROM batch_rows WHERE profile_id = ? AND tx_ref = ?",
            (profile_id, tx_ref)).fetchone())
        return None if row is None or row["b"] is None else int(row["b"])

    async def unfinished(self, profile_id: str, mode: str) -> list[Batch]:
        rows = await self._engine.read(lambda db: db.execute(
            f"{BATCH_SELECT} WHERE b.profile_id = ? AND b.mode = ? AND EXISTS (SELECT 1 FROM"
            f" batch_rows r WHERE r.batch_id = b.id AND {WAITING_WHERE}) ORDER BY b.id DESC",
            (profile_id, mode)).fetchall())
        return [batch_of_row(r, parse_written) for r in rows]


__all__ = ["SqliteBatchBook"]
