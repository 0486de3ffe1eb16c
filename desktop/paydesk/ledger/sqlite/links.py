"""The ledger in a SQLite file (WAL), safe with two PayDesk windows and a backup tool at once:
``books/links.py`` on the file's ``Engine``, with what only the file has: its full-text
index kept by the ledger's own writes, ``PRAGMA data_version`` for another window's
changes, and a writer that waits while another program holds the file (``on_busy``)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Self

from ..books.link_lists import OPEN_WHERE
from ..books.links import SqlLedger
from ..fold import fold
from ..query import LinkQuery
from ..records import LinkRecord
from ..schema import migrate, register_fold
from ..summary import DaySummary, summarise
from .dialect import DIALECT
from .engine import Engine
from .link_import import bulk_insert, row_of
from .search import SELECT, Plan, index_text, record, unindex_text


class SqliteLedger(SqlLedger[Engine]):
    """``SqliteLedger(path)`` returns at once; the file is opened and migrated on the
    ledger's own thread, and every method waits for that."""

    def __init__(self, path: Path, *, readers: int = 2, busy_timeout_ms: int = 250):
        self.path = path
        self._listeners: list[Callable[[bool], None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        with contextlib.suppress(RuntimeError):  # none yet: taken when first awaited
            self._loop = asyncio.get_running_loop()
        self.version: int | None = None

        def prepare(db: sqlite3.Connection) -> None:
            register_fold(db)  # the writer folds the search text (sqlite/search.index_text)
            self.version = migrate(db)

        super().__init__(
            Engine(path, prepare=prepare, readers=readers, busy_timeout_ms=busy_timeout_ms, on_busy=self._busy_changed),
            DIALECT,
        )

    # -- busy ---------------------------------------------------------------------------

    @property
    def busy(self) -> bool:  # type: ignore[override]
        return self._engine.busy

    def on_busy(self, listener: Callable[[bool], None]) -> None:
        """``listener(busy)``, on the loop's thread, when saving starts or stops waiting for
        another program (the loop: the running one, else the first to await ``opened``)."""
        if self._loop is None:
            with contextlib.suppress(RuntimeError):  # built before its loop runs
                self._loop = asyncio.get_running_loop()
        self._listeners.append(listener)

    def _busy_changed(self, busy: bool) -> None:  # on the writer's thread
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        for listener in list(self._listeners):
            loop.call_soon_threadsafe(listener, busy)

    async def opened(self) -> None:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        await self._engine.opened()

    async def close(self) -> None:
        await self._engine.close()

    # -- the file's own -------------------------------------------------------------------

    def _plan(self, conn: sqlite3.Connection, query: LinkQuery) -> Plan:
        return Plan(conn, query)

    def _summarise(
        self, conn: sqlite3.Connection, profile_id: str, mode: str, start: datetime, end: datetime
    ) -> DaySummary:
        return summarise(conn, profile_id, mode, start, end)

    def _index(self, conn: sqlite3.Connection, record_id: int) -> None:
        index_text(conn, "id = ?", (record_id,))

    def _unindex(self, conn: sqlite3.Connection, record_id: int) -> None:
        unindex_text(conn, "id = ?", (record_id,))

    async def import_records(self, records: Sequence[LinkRecord]) -> int:
        return await self._engine.write(lambda db: bulk_insert(db, [row_of(r) for r in records]))

    async def changes(self) -> int:
        # PRAGMA data_version on the writer's connection moves only when another connection
        # committed: another window or program on the same file, never this one's own writes
        return int(await self._engine.on_writer(lambda db: db.execute("PRAGMA data_version").fetchone()[0]))

    async def by_reference(self, profile_id: str, reference: str) -> LinkRecord | None:
        def find(db: sqlite3.Connection) -> LinkRecord | None:
            row = db.execute(
                f"SELECT {SELECT}, links.raw FROM links_fts JOIN links ON links.id = links_fts.rowid"
                " WHERE links_fts.search_folded LIKE ? AND links.profile_id = ?"
                " AND links.reference = ?",
                (f"%{fold(reference)}%", profile_id, reference),
            ).fetchone()
            return record(row, row["raw"]) if row else None

        return await self._engine.read(find)


class InFile:
    """A book in a links ledger's file, on its engine: ``Book.beside(ledger)`` (a book of
    ``books/`` with the file's dialect; one package, one file)."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine, DIALECT)  # type: ignore[call-arg]  # the book's, after this

    @classmethod
    def beside(cls, ledger: SqliteLedger) -> Self:
        return cls(ledger._engine)


__all__ = ["OPEN_WHERE", "InFile", "SqliteLedger"]
