"""The links ledger on a shared PostgreSQL: ``books/links.py`` with the same results as
``SqliteLedger``, for every desk of a shop at once.

Every write writes its event in its transaction (``events.emit`` through the dialect), so
the other desks hear of it. Times written are the server's (``now()``, the transaction's
start), so desks whose clocks differ agree on the order of what they made. What only the
shared ledger has: the poller's fence (its lease), ``changes()`` read from the events of
other desks, the trigram search (``search.py``) and a COPY import (``link_import.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import date, datetime

from ..books.links import SqlLedger
from ..fold import fold
from ..query import LinkQuery, like
from ..records import LinkRecord
from ..repository import Fence
from ..summary import DaySummary
from . import events
from .dialect import PgDialect
from .engine import PgEngine
from .lease import check_fence
from .link_import import import_rows, row_of
from .search import SELECT, Conn, Plan, record
from .summary import summarise

CHANGES_MARGIN = 1000  # events before the last seen that changes() reads again


class PostgresLedger(SqlLedger[PgEngine]):
    """``PostgresLedger(engine)``: the links of a shared ledger. Opening, closing and the
    connections are the engine's; it may be shared with the card ledger."""

    def __init__(self, engine: PgEngine):
        super().__init__(engine, PgDialect(engine))
        self._listeners: list[Callable[[bool], None]] = []
        self._changes_lock = threading.Lock()  # changes() runs on any reader thread
        self._looked = 0  # the newest event (of any desk) changes() has seen
        self._newest = 0  # the newest event of another desk it has seen

    @property
    def version(self) -> int | None:
        return self._engine.version

    # -- busy: never (``busy`` stays False; a lost server is LedgerUnreachable) ---------

    def on_busy(self, listener: Callable[[bool], None]) -> None:
        """Kept, never called: PostgreSQL locks rows, not the ledger; a write waits only for
        the rows it changes, briefly."""
        self._listeners.append(listener)

    async def opened(self) -> None:
        await self._engine.opened()

    async def close(self) -> None:
        await self._engine.close()

    # -- the shared ledger's own ------------------------------------------------------------

    def _plan(self, conn: Conn, query: LinkQuery) -> Plan:
        return Plan(query)

    def _summarise(self, conn: Conn, profile_id: str, mode: str, start: datetime, end: datetime) -> DaySummary:
        return summarise(conn, profile_id, mode, start, end)

    def _fenced(self, conn: Conn, fence: Fence | None) -> None:
        if fence is not None:
            check_fence(conn, fence)

    def _day(self, day: date) -> date:
        return day

    async def import_records(self, records: Sequence[LinkRecord]) -> int:
        records = list(records)

        def write(conn: Conn) -> int:
            # the rows are made here, on the writer's thread, one at a time as they are
            # copied: 200,000 of them take ~0.6 s, which on the loop's thread would freeze
            # the window for as long
            added = import_rows(conn, (row_of(r) for r in records), len(records)) if records else []
            for profile_id, mode, _ in added:  # many at once: one "import" per list, no key
                events.emit(conn, self._engine.desk, "import", profile_id, mode)
            return sum(n for _, _, n in added)

        return await self._engine.write(write)

    async def changes(self) -> int:
        """The newest event another desk wrote: moves for their changes, never this desk's.

        Only the events since the last look (and a margin for a transaction that took its
        id earlier and committed later) are read, not every event this desk wrote since
        another last did: a desk alone on the ledger for months looks at a few rows."""

        def read(conn: Conn) -> int:
            row = conn.execute(
                "SELECT (SELECT max(id) FROM events) AS top, (SELECT max(id) FROM events"
                " WHERE id > %s AND desk <> %s) AS other",
                (self._looked - CHANGES_MARGIN, self._engine.desk),
            ).fetchone()
            if row is not None:
                with self._changes_lock:
                    self._looked = max(self._looked, int(row["top"] or 0))
                    self._newest = max(self._newest, int(row["other"] or 0))
            return self._newest

        return await self._engine.read(read)

    async def by_reference(self, profile_id: str, reference: str) -> LinkRecord | None:
        def find(conn: Conn) -> LinkRecord | None:
            # the trigram index finds the few rows holding it; the reference itself decides
            row = conn.execute(
                f"SELECT {SELECT}, links.raw FROM links WHERE profile_id = %s"
                " AND search_folded LIKE %s AND reference = %s LIMIT 1",
                (profile_id, like(fold(reference)), reference),
            ).fetchone()
            return record(row, row["raw"]) if row else None

        return await self._engine.read(find)


__all__ = ["PostgresLedger"]
