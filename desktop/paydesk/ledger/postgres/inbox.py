"""The notification inbox on a shop's shared PostgreSQL (migration 3, ``inbox_schema``):
``ledger.inbox.Inbox`` with the same results as ``SqliteInbox``.

Every write is one transaction on the engine's writer thread and writes an "inbox" event in
it (key: the entry's id), so every desk hears of a notification received or decided. A
receive is atomic between receivers on several machines: the original is inserted with
``ON CONFLICT (body_hash, original) DO NOTHING`` (the second of two waits for the first's
row, then finds it taken) and a body already believed becomes a duplicate row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ..engine import LedgerError
from ..inbox import (
    BAD_SIGNATURE,
    DUPLICATE,
    PENDING,
    REFUSED_HEAD,
    Inbox,
    InboxEntry,
    InboxQuery,
    Refusal,
    RefusedGroup,
    body_hash,
)
from ..inbox_sql import check_decision, conditions, headers_json
from ..refused_sql import COLUMNS as REFUSED_COLUMNS
from ..refused_sql import GROUPS, counted_by, group, refusal
from . import events
from .engine import PgEngine
from .search import Conn, Row, aware

COLUMNS = ("id, received_at, body_hash, body, headers, remote, verdict, detail, profile_id,"
           " mode, tx_ref, event, duplicate_of, decided_at")
_INSERT = ("INSERT INTO inbox (body_hash, body, headers, remote, verdict, profile_id, mode,"
           " tx_ref, event, original, duplicate_of, decided_at)"
           " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, CASE WHEN %s THEN now() END)")


def _utc(when: datetime) -> datetime:
    return when.astimezone(UTC)


def _entry(row: Row) -> InboxEntry:
    return InboxEntry(
        id=int(row["id"]), received_at=_utc(row["received_at"]), body_hash=row["body_hash"],
        body=bytes(row["body"]), headers=json.loads(row["headers"] or "{}"),
        remote=row["remote"], verdict=row["verdict"], detail=row["detail"],
        profile_id=row["profile_id"], mode=row["mode"], tx_ref=row["tx_ref"],
        event=row["event"], duplicate_of=row["duplicate_of"],
        decided_at=None if row["decided_at"] is None else _utc(row["decided_at"]))


def _one(conn: Conn, entry_id: int) -> InboxEntry | None:
    row = conn.execute(f"SELECT {COLUMNS} FROM inbox WHERE id = %s", (entry_id,)).fetchone()
    return None if row is None else _entry(row)


def _where(query: InboxQuery, before: int | None = None) -> tuple[str, list[Any]]:
    # ILIKE on COLLATE "C" text folds ASCII only, as SQLite's LIKE does
    return conditions(query, before, mark="%s", ilike="ILIKE", when=aware)


class PostgresInbox(Inbox):
    """``PostgresInbox(engine)``: the inbox of a shared ledger, on the engine the links and
    cards ledgers use."""

    def __init__(self, engine: PgEngine):
        self._engine = engine

    def _emit(self, conn: Conn, entry: InboxEntry) -> InboxEntry:
        events.emit(conn, self._engine.desk, "inbox", entry.profile_id or "", entry.mode or "",
                    str(entry.id))
        return entry

    def _insert(self, conn: Conn, values: tuple[Any, ...]) -> int | None:
        row = conn.execute(_INSERT + (" ON CONFLICT (body_hash, original) DO NOTHING"
                                      " RETURNING id"), values).fetchone()
        return None if row is None else int(row["id"])

    async def receive(self, body: bytes, headers: Mapping[str, str], remote: str, *,
                      profile_id: str | None = None, mode: str | None = None,
                      tx_ref: str | None = None, event: str | None = None,
                      ) -> tuple[InboxEntry, bool]:
        body = bytes(body)
        digest = body_hash(body)
        kept = headers_json(headers)
        common = (digest, body, kept, remote)
        said = (profile_id, mode, tx_ref, event)

        def write(conn: Conn) -> tuple[InboxEntry, bool]:
            made: int | None = None
            original = False
            while made is None:
                made = self._insert(conn, (*common, PENDING, *said, 1, None, False))
                if made is not None:
                    original = True
                    break
                # believed before (committed, or committed by the receiver this one waited
                # for): a duplicate of that original
                first = conn.execute("SELECT id FROM inbox WHERE body_hash = %s"
                                     " AND original = 1", (digest,)).fetchone()
                if first is not None:
                    made = self._insert(conn, (*common, DUPLICATE, *said, None,
                                               int(first["id"]), True))
            entry = _one(conn, made)
            assert entry is not None
            return self._emit(conn, entry), original

        return await self._engine.write(write)

    async def decide(self, entry_id: int, verdict: str, detail: str, *,
                     profile_id: str | None = None, mode: str | None = None,
                     tx_ref: str | None = None) -> InboxEntry:
        check_decision(verdict)

        def write(conn: Conn) -> InboxEntry:
            row = conn.execute(
                "UPDATE inbox SET verdict = %s, detail = %s, decided_at = now(),"
                " profile_id = COALESCE(%s, profile_id), mode = COALESCE(%s, mode),"
                " tx_ref = COALESCE(%s, tx_ref) WHERE id = %s AND verdict = %s"
                f" RETURNING {COLUMNS}",
                (verdict, detail, profile_id, mode, tx_ref, entry_id, PENDING)).fetchone()
            if row is not None:
                return self._emit(conn, _entry(row))
            found = _one(conn, entry_id)  # decided before: kept as it is, nothing to tell
            if found is None:
                raise LedgerError(f"notification {entry_id} is not in the inbox")
            return found

        return await self._engine.write(write)

    async def get(self, entry_id: int) -> InboxEntry | None:
        return await self._engine.read(lambda conn: _one(conn, entry_id))

    async def _list(self, sql: str, args: list[Any]) -> list[InboxEntry]:
        rows = await self._engine.read(lambda conn: conn.execute(sql, args).fetchall())
        return [_entry(r) for r in rows]

    async def pending(self, limit: int = 500) -> list[InboxEntry]:
        return await self._list(f"SELECT {COLUMNS} FROM inbox WHERE verdict = %s"
                                f" ORDER BY id LIMIT {int(limit)}", [PENDING])

    async def page(self, query: InboxQuery, before: int | None = None,
                   limit: int = 100) -> list[InboxEntry]:
        where, args = _where(query, before)
        return await self._list(f"SELECT {COLUMNS} FROM inbox WHERE {where}"
                                f" ORDER BY id DESC LIMIT {int(limit)}", args)

    async def count(self, query: InboxQuery) -> int:
        where, args = _where(query)
        row = await self._engine.read(lambda conn: conn.execute(
            f"SELECT count(*) AS n FROM inbox WHERE {where}", args).fetchone())
        return int(row["n"]) if row else 0

    async def last_received(self, profile_id: str | None = None,
                            mode: str | None = None) -> datetime | None:
        where, args = "original = 1", []
        if profile_id is not None:
            where += " AND profile_id = %s"
            args.append(profile_id)
            if mode is not None:
                where += " AND mode = %s"
                args.append(mode)
        row = await self._engine.read(lambda conn: conn.execute(
            f"SELECT received_at FROM inbox WHERE {where} ORDER BY id DESC LIMIT 1",
            args).fetchone())
        return None if row is None else _utc(row["received_at"])

    # -- refused requests: traced or counted, never kept whole ----------------------------

    async def refuse(self, body: bytes, remote: str, *,
                     reason: str = BAD_SIGNATURE) -> Refusal:
        body = bytes(body)
        digest, head, size = body_hash(body), body[:REFUSED_HEAD], len(body)

        def write(conn: Conn) -> Refusal:
            # the server's clock, as every other time of the shared ledger
            row = conn.execute("SELECT date_trunc('minute', now()) AS minute").fetchone()
            minute = row["minute"] if row else None
            counts = conn.execute(
                "SELECT count(*) FILTER (WHERE remote = %s) AS by_peer, count(*) AS by_all"
                " FROM refused WHERE minute = %s AND counter IS NULL",
                (remote, minute)).fetchone()
            counter = counted_by(remote, int(counts["by_peer"]), int(counts["by_all"])) \
                if counts else None
            if counter is None:
                made = conn.execute(
                    "INSERT INTO refused (minute, remote, reason, size, body_hash, head)"
                    f" VALUES (%s, %s, %s, %s, %s, %s) RETURNING {REFUSED_COLUMNS}",
                    (minute, remote, reason, size, digest, head)).fetchone()
            else:
                made = conn.execute(
                    "INSERT INTO refused (minute, remote, reason, size, counter)"
                    " VALUES (%s, %s, %s, %s, 1) ON CONFLICT (remote, minute, counter)"
                    " DO UPDATE SET count = refused.count + 1, size = refused.size + excluded.size,"
                    f" last_at = excluded.last_at RETURNING {REFUSED_COLUMNS}",
                    (minute, counter, reason, size)).fetchone()
            assert made is not None
            trace = refusal(made, _utc)
            if trace.news:  # the other desks hear of a trace, not of each one counted
                events.emit(conn, self._engine.desk, "refused", key=trace.remote)
            return trace

        return await self._engine.write(write)

    async def refused_page(self, before: int | None = None, limit: int = 100) -> list[Refusal]:
        where, args = ("id < %s", [before]) if before is not None else ("TRUE", [])
        rows = await self._engine.read(lambda conn: conn.execute(
            f"SELECT {REFUSED_COLUMNS} FROM refused WHERE {where} ORDER BY id DESC"
            f" LIMIT {int(limit)}", args).fetchall())
        return [refusal(r, _utc) for r in rows]

    async def refused_groups(self, since: datetime, limit: int = 20) -> list[RefusedGroup]:
        rows = await self._engine.read(lambda conn: conn.execute(
            GROUPS.format(mark="%s", limit=int(limit)), (aware(since),)).fetchall())
        return [group(r, _utc) for r in rows]

    async def prune_refused(self, before: datetime) -> int:
        return await self._engine.write(lambda conn: conn.execute(
            "DELETE FROM refused WHERE last_at < %s", (aware(before),)).rowcount)


__all__ = ["PostgresInbox"]
