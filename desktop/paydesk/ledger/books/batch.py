"""The batches' book (``ledger.batch.BatchBook``) in SQL, once for both backends: schema v9
of the file (``batch_schema``), migration 5 of the shared ledger (``postgres/batch_schema``).

Every write is one transaction on the engine's writer and writes its "batch" event (key
str(batch id)) in it, so every desk of a shared ledger hears of it; the rows' links
announce themselves. A corrected file locks its batch's row meanwhile (two desks adding
the same rows)."""

from __future__ import annotations

from ..batch import Batch, BatchBook, BatchFigures, BatchRow, NewRow, check_policy, new_prefix
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
from ..dialect import Conn, Dialect, Runner
from ..errors import LedgerError

_COLUMNS = ("batch_id", "number", "profile_id", "tx_ref", "cells", "skipped")


class SqlBatchBook(BatchBook):
    """The book on ``engine``, in ``dialect``'s SQL."""

    def __init__(self, engine: Runner, dialect: Dialect):
        self._engine = engine
        self._d = dialect
        self._rows = row_select(dialect.link_columns)

    def _batch(self, conn: Conn, batch_id: int) -> Batch | None:
        row = self._d.one(conn, f"{BATCH_SELECT} WHERE b.id = ?", (batch_id,))
        return None if row is None else batch_of_row(row, self._d.when)

    def _must_batch(self, conn: Conn, batch_id: int, lock: bool = False) -> Batch:
        if lock:  # one corrected file at a time per batch (two desks adding the same rows)
            self._d.run(conn, f"SELECT id FROM batches WHERE id = ?{self._d.lock}", (batch_id,))
        found = self._batch(conn, batch_id)
        if found is None:
            raise LedgerError(f"batch {batch_id} is not in the batches' book")
        return found

    def _insert(self, conn: Conn, batch: Batch, rows: list[NewRow]) -> None:
        if rows:  # a file of 50,000 rows in one go
            self._d.insert_many(
                conn,
                "batch_rows",
                _COLUMNS,
                [
                    (
                        batch.id,
                        number,
                        batch.profile_id,
                        new_ref(batch.prefix, number, tx_ref, skipped),
                        cells(values),
                        int(skipped),
                    )
                    for number, tx_ref, values, skipped in rows
                ],
            )

    def _event(self, conn: Conn, batch: Batch) -> None:
        self._d.event(conn, "batch", batch.profile_id, batch.mode, str(batch.id))

    def _list(self, conn: Conn, where: str, args: list[object], tail: str) -> list[Batch]:
        rows = self._d.all(conn, f"{BATCH_SELECT} WHERE {where} {tail}", args)
        return [batch_of_row(r, self._d.when) for r in rows]

    async def add_batch(
        self,
        profile_id: str,
        mode: str,
        name: str,
        file_name: str,
        policy: str,
        by: str,
        rows: list[NewRow],
        *,
        txref_prefix: str = "PAY",
    ) -> Batch:
        check_policy(policy)
        prefix = new_prefix(txref_prefix)

        def write(conn: Conn) -> Batch:
            made = self._d.new_id(
                conn,
                "INSERT INTO batches (profile_id, mode, name, file_name,"
                " made_at, made_by, policy, prefix)"
                " VALUES (?, ?, ?, ?, {now}, ?, ?, ?)",
                (profile_id, mode, name, file_name, by, policy, prefix),
            )
            self._insert(conn, self._must_batch(conn, made), rows)
            batch = self._must_batch(conn, made)
            self._event(conn, batch)
            return batch

        return await self._engine.write(write)

    async def batch(self, batch_id: int) -> Batch | None:
        return await self._engine.read(lambda conn: self._batch(conn, batch_id))

    async def batches(self, profile_id: str, mode: str, before: int | None = None, limit: int = 100) -> list[Batch]:
        where = "b.profile_id = ? AND b.mode = ?"
        args: list[object] = [profile_id, mode]
        if before is not None:
            where = f"{where} AND b.id < ?"
            args.append(before)
        return await self._engine.read(
            lambda conn: self._list(conn, where, args, f"ORDER BY b.id DESC LIMIT {int(limit)}")
        )

    async def find(self, profile_id: str, mode: str, file_name: str) -> Batch | None:
        found = await self._engine.read(
            lambda conn: self._list(
                conn,
                "b.profile_id = ? AND b.mode = ? AND b.file_name = ?",
                [profile_id, mode, file_name],
                "ORDER BY b.id DESC LIMIT 1",
            )
        )
        return found[0] if found else None

    async def add_rows(self, batch_id: int, rows: list[NewRow]) -> int:
        def write(conn: Conn) -> int:
            batch = self._must_batch(conn, batch_id, lock=True)
            have = {
                int(r["number"])
                for r in self._d.all(conn, "SELECT number FROM batch_rows WHERE batch_id = ?", (batch_id,))
            }
            added, again, refs = corrections(
                batch.prefix, rows, have, self._d.all(conn, UNSENT.format(m="?"), (batch_id,))
            )
            self._insert(conn, batch, added)
            self._d.many(
                conn,
                f"UPDATE batch_rows SET cells = ?, skipped = ? WHERE batch_id = {int(batch_id)} AND number = ?",
                again,
            )
            self._d.many(
                conn, f"UPDATE batch_rows SET tx_ref = ? WHERE batch_id = {int(batch_id)} AND number = ?", refs
            )
            changed = len(added) + len(again)
            if changed:
                self._event(conn, batch)
            return changed

        return await self._engine.write(write)

    async def rows(
        self, batch_id: int, after: int | None = None, limit: int = 200, states: tuple[str, ...] = ()
    ) -> list[BatchRow]:
        where, args = rows_where(batch_id, after, tuple(states), "?")
        found = await self._engine.read(
            lambda conn: self._d.all(conn, f"{self._rows} WHERE {where} ORDER BY r.number LIMIT {int(limit)}", args)
        )
        return [row_of(r, self._d.record, self._d.when) for r in found]

    async def row(self, batch_id: int, number: int) -> BatchRow | None:
        found = await self._engine.read(
            lambda conn: self._d.one(conn, f"{self._rows} WHERE r.batch_id = ? AND r.number = ?", (batch_id, number))
        )
        return None if found is None else row_of(found, self._d.record, self._d.when)

    async def figures(self, batch_id: int) -> BatchFigures:
        return figures_of(await self._engine.read(lambda conn: self._d.all(conn, FIGURES.format(m="?"), (batch_id,))))

    async def note_email(self, batch_id: int, number: int, ok: bool, error: str | None = None) -> None:
        def write(conn: Conn) -> None:
            if (
                self._d.one(conn, "SELECT 1 FROM batch_rows WHERE batch_id = ? AND number = ?", (batch_id, number))
                is None
            ):  # no foreign keys in the file
                raise LedgerError(f"row {number} is not in batch {batch_id}")
            self._d.run(
                conn,
                "INSERT INTO batch_emails (batch_id, number, ok, error, noted_at) VALUES (?, ?, ?, ?, {now})",
                (batch_id, number, int(ok), None if ok else error),
            )
            self._event(conn, self._must_batch(conn, batch_id))

        await self._engine.write(write)

    async def batch_of(self, profile_id: str, tx_ref: str) -> int | None:
        row = await self._engine.read(
            lambda conn: self._d.one(
                conn,
                "SELECT MAX(batch_id) AS b FROM batch_rows WHERE profile_id = ? AND tx_ref = ?",
                (profile_id, tx_ref),
            )
        )
        return None if row is None or row["b"] is None else int(row["b"])

    async def unfinished(self, profile_id: str, mode: str) -> list[Batch]:
        return await self._engine.read(
            lambda conn: self._list(
                conn,
                "b.profile_id = ? AND b.mode = ? AND EXISTS (SELECT 1 FROM batch_rows r"
                f" WHERE r.batch_id = b.id AND {WAITING_WHERE})",
                [profile_id, mode],
                "ORDER BY b.id DESC",
            )
        )


__all__ = ["SqlBatchBook"]
