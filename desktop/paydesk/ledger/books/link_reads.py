"""The reading half of the links ledger (``books/links.py``), in SQL for both backends: one
record, the pages and counts of a search, the day's summary, and the lists the scheduler
works through (``link_lists.py``: creates not settled, open records, paid ones to read
again). Reads run on the engine's readers; the writes are ``SqlLedger``'s."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any, Generic, TypeVar

from ..dialect import Conn, Dialect, Runner
from ..errors import LedgerError
from ..query import Cursor, LinkQuery, Page
from ..records import LinkRecord
from ..summary import DaySummary
from . import link_lists as lists
from .search import Search

E = TypeVar("E", bound=Runner)


class LinkReads(Generic[E]):
    """The links on ``engine`` as they are read, in ``dialect``'s SQL."""

    def __init__(self, engine: E, dialect: Dialect):
        self._engine = engine
        self._d = dialect

    # -- what each backend says its own way ----------------------------------------------

    def _plan(self, conn: Conn, query: LinkQuery) -> Search:
        raise NotImplementedError

    def _summarise(self, conn: Conn, profile_id: str, mode: str, start: datetime, end: datetime) -> DaySummary:
        raise NotImplementedError

    def _day(self, day: date) -> Any:
        return day.isoformat()

    # -- one record -----------------------------------------------------------------------

    def _one(
        self, conn: Conn, profile_id: str, tx_ref: str, *, raw: bool = False, lock: bool = False
    ) -> LinkRecord | None:
        row = self._d.one(
            conn,
            f"SELECT {self._d.link_columns}{', links.raw' if raw else ''}"
            f" FROM links WHERE profile_id = ? AND tx_ref = ?"
            f"{self._d.lock if lock else ''}",
            (profile_id, tx_ref),
        )
        return None if row is None else self._d.record(row, row["raw"] if raw else None)

    def _must(self, conn: Conn, profile_id: str, tx_ref: str, *, raw: bool = False) -> LinkRecord:
        found = self._one(conn, profile_id, tx_ref, raw=raw)
        if found is None:
            raise LedgerError(f"{tx_ref} is not in the ledger")
        return found

    # -- reading ------------------------------------------------------------------------

    async def get(self, profile_id: str, tx_ref: str) -> LinkRecord | None:
        return await self._engine.read(lambda conn: self._one(conn, profile_id, tx_ref, raw=True))

    async def references_in(self, profile_id: str, refs: Sequence[str]) -> set[str]:
        wanted = list(dict.fromkeys(refs))
        if not wanted:
            return set()
        sql = f"SELECT tx_ref FROM links WHERE profile_id = ? AND tx_ref IN ({', '.join('?' * len(wanted))})"
        rows = await self._engine.read(lambda conn: self._d.all(conn, sql, [profile_id, *wanted]))
        return {row["tx_ref"] for row in rows}

    async def page(
        self, query: LinkQuery, after: Cursor | None = None, before: Cursor | None = None, limit: int = 100
    ) -> Page:
        if after is not None and before is not None:
            raise ValueError("page after or before a row, not both")
        return await self._engine.read(
            lambda conn: self._plan(conn, query).page(conn, before or after, limit, backwards=before is not None)
        )

    async def last_page(self, query: LinkQuery, limit: int = 100) -> Page:
        return await self._engine.read(lambda conn: self._plan(conn, query).page(conn, None, limit, backwards=True))

    async def count(self, query: LinkQuery) -> int:
        return int(await self._engine.read(lambda conn: self._plan(conn, query).count(conn)))

    async def anchors(self, query: LinkQuery, every: int) -> list[Cursor]:
        return await self._engine.read(lambda conn: self._plan(conn, query).anchors(conn, every))

    async def day_summary(self, profile_id: str, mode: str, start: datetime, end: datetime) -> DaySummary:
        return await self._engine.read(lambda conn: self._summarise(conn, profile_id, mode, start, end))

    async def _select(self, sql: str, args: list[Any]) -> list[LinkRecord]:
        rows = await self._engine.read(lambda conn: self._d.all(conn, sql, args))
        return [self._d.record(r) for r in rows]

    async def unsettled(self, profile_id: str | None = None) -> list[LinkRecord]:
        return await self._select(*lists.unsettled(self._d, profile_id))

    async def open_records(
        self,
        profile_id: str | None = None,
        mode: str | None = None,
        *,
        since: datetime | None = None,
        limit: int | None = 1000,
    ) -> list[LinkRecord]:
        return await self._select(*lists.open_records(self._d, profile_id, mode, since, limit))

    async def paid_since(
        self,
        since: datetime,
        profile_id: str | None = None,
        mode: str | None = None,
        *,
        checked_before: datetime | None = None,
        after: Cursor | None = None,
        limit: int = 200,
    ) -> Page:
        sql, args = lists.paid(self._d, since, profile_id, mode, checked_before, after, limit)

        def read(conn: Conn) -> Page:
            rows = self._d.all(conn, sql, args)
            records = [self._d.record(r) for r in rows[:limit]]
            if not records:
                return Page()
            first, last = rows[0], rows[len(records) - 1]
            return Page(
                records,
                Cursor((first["updated_at"], first["id"])),
                Cursor((last["updated_at"], last["id"])),
                more=len(rows) > limit,
            )

        return await self._engine.read(read)

    async def count_paid_since(self, since: datetime, profile_id: str | None = None, mode: str | None = None) -> int:
        sql, args = lists.paid_count(self._d, since, profile_id, mode)
        row = await self._engine.read(lambda conn: self._d.one(conn, sql, args))
        return int(row["n"]) if row else 0


__all__ = ["LinkReads"]
