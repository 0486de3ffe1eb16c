"""The batches of bulk links on a shop's shared PostgreSQL (migration 5, ``batch_schema``):
``ledger.batch.BatchBook`` with the same results as ``SqliteBatchBook``.

Every write is one transaction on the engine's writer thread and writes an event in it
("batch", key str(batch id)), so every desk hears of it; the rows' links announce
themselves as "link" events.
"""

from __future__ import annotations

from datetime import UTC, datetime

from ..batch import (
    Batch,
    BatchBook,
    BatchFigures,
    BatchRow,
    NewRow,
    check_policy,
    new_prefix,
)
from ..batch_sql import (
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
from ..batch_sql import batch as batch_of_row
from ..batch_sql import batch_row as row_of
from ..batch_sql import figures as figures_of
from ..engine import LedgerError
from . import events
from .engine import PgEngine
from .search import SELECT, Conn, record

_ROWS = row_select(SELECT)
_COPY_ROWS = "COPY batch_rows (batch_id, number, profile_id, tx_ref, cells, skipped) FROM STDIN"


def _utc(when: datetime) -> datetime:
    return when if when.tzinfo is UTC else when.astimezone(UTC)


def _batch(conn: Conn, batch_id: int) -> Batch | None:
    row = conn.execute(f"{BATCH_SELECT} WHERE b.id = %s", (batch_id,)).fetchone()
    return None if row is None else batch_of_row(row, _utc)


def _must_batch(conn: Conn, batch_id: int, lock: bool = False) -> Batch:
    if lock:  # one corrected file at a time per batch (two desks adding the same rows)
        conn.execute("SELECT id FROM batches WHERE id = %s FOR UPDATE", (batch_id,))
    found = _batch(conn, batch_id)
    if found is None:
        raise LedgerError(f"batch {batch_id} is not in the batches' book")
    return found


def _insert(conn: Conn, batch: Batch, rows: list[NewRow]) -> None:
    """The rows COPYed in (a file of 50,000 rows in one go)."""
    if not rows:
        return
    with conn.cursor() as cursor, cursor.copy(_COPY_ROWS) as copy:
        for number, tx_ref, values, skipped in rows:
            copy.write_row((batch.id, number, batch.profile_id,
                            new_ref(batch.prefix, number, tx_ref, skipped), cells(values),
                            int(skipped)))


class PostgresBatchBook(BatchBook):
    """``PostgresBatchBook(engine)``: the book of a shared ledger, on the engine the links,
    cards, inbox and counters use."""

    def __init__(self, engine: PgEngine):
        self._engine = engine

    def _event(self, conn: Conn, batch: Batch) -> None:
        events.emit(conn, self._engine.desk, "batch", batch.profile_id, batch.mode, str(batch.id))

    async def add_batch(self, profile_id: str, mode: str, name: str, file_name: str,
                        policy: str, by: str, rows: list[NewRow], *,
                        txref_prefix: str = "PAY") -> Batch:
        check_policy(policy)
        prefix = new_prefix(txref_prefix)

        def write(conn: Conn) -> Batch:
            made = conn.execute("INSERT INTO batches (profile_id, mode, name, file_name,"
                                " made_by, policy, prefix) VALUES (%s, %s, %s, %s, %s, %s, %s)"
                                " RETURNING id", (profile_id, mode, name, file_name, by, policy,
                                                  prefix)).fetchone()
            assert made is not None
            _insert(conn, _must_batch(conn, int(made["id"])), rows)
            batch = _must_batch(conn, int(made["id"]))
            self._event(conn, batch)
            return batch

        return await self._engine.write(write)

    async def batch(self, batch_id: int) -> Batch | None:
        return await self._engine.read(lambda conn: _batch(conn, batch_id))

    async def batches(self, profile_id: str, mode: str, before: int | None = None,
                      limit: int = 100) -> list[Batch]:
        where = "b.profile_id = %s AND b.mode = %s"
        args: list[object] = [profile_id, mode]
        if before is not None:
            where = f"{where} AND b.id < %s"
            args.append(before)
        rows = await self._engine.read(lambda conn: conn.execute(
            f"{BATCH_SELECT} WHERE {where} ORDER BY b.id DESC LIMIT {int(limit)}",
            args).fetchall())
        return [batch_of_row(r, _utc) for r in rows]

    async def find(self, profile_id: str, mode: str, file_name: str) -> Batch | None:
        row = await self._engine.read(lambda conn: conn.execute(
            f"{BATCH_SELECT} WHERE b.profile_id = %s AND b.mode = %s AND b.file_name = %s"
            " ORDER BY b.id DESC LIMIT 1", (profile_id, mode, file_name)).fetchone())
        return None if row is None else batch_of_row(row, _utc)

    async def add_rows(self, batch_id: int, rows: list[NewRow]) -> int:
        def write(conn: Conn) -> int:
            batch = _must_batch(conn, batch_id, lock=True)
            have = {int(r["number"]) for r in conn.execute(
                "SELECT number FROM batch_rows WHERE batch_id = %s", (batch_id,)).fetchall()}
            added, again, refs = corrections(batch.prefix, rows, have, conn.execute(
                UNSENT.format(m="%s"), (batch_id,)).fetchall())
            _insert(conn, batch, added)
            if again:
                with conn.cursor() as cursor:
                    cursor.executemany("UPDATE batch_rows SET cells = %s, skipped = %s"
                                       f" WHERE batch_id = {int(batch_id)} AND number = %s",
                                       again)
            if refs:
                with conn.cursor() as cursor:
                    cursor.executemany("UPDATE batch_rows SET tx_ref = %s"
                                       f" WHERE batch_id = {int(batch_id)} AND number = %s",
                                       refs)
            changed = len(added) + len(again)
            if changed:
                self._event(conn, batch)
            return changed

        return await self._engine.write(write)

    async def rows(self, batch_id: int, after: int | None = None, limit: int = 200,
                   states: tuple[str, ...] = ()) -> list[BatchRow]:
        where, args = rows_where(batch_id, after, tuple(states), "%s")
        found = await self._engine.read(lambda conn: conn.execute(
            f"{_ROWS} WHERE {where} ORDER BY r.number LIMIT {int(limit)}", args).fetchall())
        return [row_of(r, record, _utc) for r in found]

    async def row(self, batch_id: int, number: int) -> BatchRow | None:
        found = await self._engine.read(lambda conn: conn.execute(
            f"{_ROWS} WHERE r.batch_id = %s AND r.number = %s", (batch_id, number)).fetchone())
        return None if found is None else row_of(found, record, _utc)

    async def figures(self, batch_id: int) -> BatchFigures:
        found = await self._engine.read(lambda conn: conn.execute(
            FIGURES.format(m="%s"), (batch_id,)).fetchall())
        return figures_of(found)

    async def note_email(self, batch_id: int, number: int, ok: bool,
                         error: str | None = None) -> None:
        def write(conn: Conn) -> None:
            batch = _must_batch(conn, batch_id)
            if conn.execute("SELECT 1 FROM batch_rows WHERE batch_id = %s AND number = %s",
                            (batch_id, number)).fetchone() is None:
                raise LedgerError(f"row {number} is not in batch {batch_id}")
            conn.execute("INSERT INTO batch_emails (batch_id, number, ok, error)"
                         " VALUES (%s, %s, %s, %s)", (batch_id, number, int(ok),
                                                      None if ok else error))
            self._event(conn, batch)

        await self._engine.write(write)

    async def batch_of(self, profile_id: str, tx_ref: str) -> int | None:
        row = await self._engine.read(lambda conn: conn.execute(
            "SELECT MAX(batch_id) AS b FROM batch_rows WHERE profile_id = %s AND tx_ref = %s",
            (profile_id, tx_ref)).fetchone())
        return None if row is None or row["b"] is None else int(row["b"])

    async def unfinished(self, profile_id: str, mode: str) -> list[Batch]:
        rows = await self._engine.read(lambda conn: conn.execute(
            f"{BATCH_SELECT} WHERE b.profile_id = %s AND b.mode = %s AND EXISTS (SELECT 1 FROM"
            f" batch_rows r WHERE r.batch_id = b.id AND {WAITING_WHERE}) ORDER BY b.id DESC",
            (profile_id, mode)).fetchall())
        return [batch_of_row(r, _utc) for r in rows]


__all__ = ["PostgresBatchBook"]
