"""The notification inbox (``ledger.inbox.Inbox``) in SQL, once for both backends: schema v7
and v10 of the file (``inbox_schema``), migrations 3 and 6 of the shared ledger
(``postgres/inbox_schema``, ``postgres/refused_schema``).

Every write is one transaction on the engine's writer and writes an "inbox" event in it
(key: the entry's id; "refused", key the peer, for a new trace). A receive is atomic
between receivers: the original is inserted with ``ON CONFLICT (body_hash, original) DO
NOTHING`` (on a shared ledger the second of two waits for the first's row, then finds it
taken; a file's one writer reads and writes under its lock) and a body already believed
becomes a duplicate row; UNIQUE (body_hash, original) stands behind it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..dialect import Conn, Dialect, Row, Runner
from ..errors import LedgerError
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

COLUMNS = (
    "id, received_at, body_hash, body, headers, remote, verdict, detail, profile_id,"
    " mode, tx_ref, event, duplicate_of, decided_at"
)
_INSERT = (
    "INSERT INTO inbox (received_at, body_hash, body, headers, remote, verdict,"
    " profile_id, mode, tx_ref, event, original, duplicate_of, decided_at)"
    " VALUES ({now}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CASE WHEN ? THEN {now} END)"
    " ON CONFLICT (body_hash, original) DO NOTHING RETURNING id"
)


class SqlInbox(Inbox):
    """The inbox on ``engine``, in ``dialect``'s SQL."""

    def __init__(self, engine: Runner, dialect: Dialect):
        self._engine = engine
        self._d = dialect

    def _entry(self, row: Row) -> InboxEntry:
        when, decided = self._d.when, row["decided_at"]
        return InboxEntry(
            id=int(row["id"]),
            received_at=when(row["received_at"]),
            body_hash=row["body_hash"],
            body=bytes(row["body"]),
            headers=json.loads(row["headers"] or "{}"),
            remote=row["remote"],
            verdict=row["verdict"],
            detail=row["detail"],
            profile_id=row["profile_id"],
            mode=row["mode"],
            tx_ref=row["tx_ref"],
            event=row["event"],
            duplicate_of=row["duplicate_of"],
            decided_at=None if decided is None else when(decided),
        )

    def _one(self, conn: Conn, entry_id: int) -> InboxEntry | None:
        row = self._d.one(conn, f"SELECT {COLUMNS} FROM inbox WHERE id = ?", (entry_id,))
        return None if row is None else self._entry(row)

    def _where(self, query: InboxQuery, before: int | None = None) -> tuple[str, list[Any]]:
        return conditions(query, before, mark="?", ilike=self._d.ilike, when=self._d.time)

    def _emit(self, conn: Conn, entry: InboxEntry) -> InboxEntry:
        self._d.event(conn, "inbox", entry.profile_id or "", entry.mode or "", str(entry.id))
        return entry

    def _insert(self, conn: Conn, values: tuple[Any, ...], now: str) -> int | None:
        row = self._d.one(conn, _INSERT, values, now=now)
        return None if row is None else int(row["id"])

    async def receive(
        self,
        body: bytes,
        headers: Mapping[str, str],
        remote: str,
        *,
        profile_id: str | None = None,
        mode: str | None = None,
        tx_ref: str | None = None,
        event: str | None = None,
    ) -> tuple[InboxEntry, bool]:
        body = bytes(body)
        digest = body_hash(body)
        kept = headers_json(headers)
        common = (digest, body, kept, remote)
        said = (profile_id, mode, tx_ref, event)

        def write(conn: Conn) -> tuple[InboxEntry, bool]:
            now = self._d.now()
            made: int | None = None
            original = False
            while made is None:
                made = self._insert(conn, (*common, PENDING, *said, 1, None, False), now)
                if made is not None:
                    original = True
                    break
                # believed before (committed, or committed by the receiver this one waited
                # for): a duplicate of that original
                first = self._d.one(conn, "SELECT id FROM inbox WHERE body_hash = ? AND original = 1", (digest,))
                if first is not None:
                    made = self._insert(conn, (*common, DUPLICATE, *said, None, int(first["id"]), True), now)
            entry = self._one(conn, made)
            assert entry is not None
            return self._emit(conn, entry), original

        return await self._engine.write(write)

    async def decide(
        self,
        entry_id: int,
        verdict: str,
        detail: str,
        *,
        profile_id: str | None = None,
        mode: str | None = None,
        tx_ref: str | None = None,
    ) -> InboxEntry:
        check_decision(verdict)

        def write(conn: Conn) -> InboxEntry:
            row = self._d.one(
                conn,
                "UPDATE inbox SET verdict = ?, detail = ?, decided_at = {now},"
                " profile_id = COALESCE(?, profile_id), mode = COALESCE(?, mode),"
                " tx_ref = COALESCE(?, tx_ref) WHERE id = ? AND verdict = ?"
                f" RETURNING {COLUMNS}",
                (verdict, detail, profile_id, mode, tx_ref, entry_id, PENDING),
            )
            if row is not None:
                return self._emit(conn, self._entry(row))
            found = self._one(conn, entry_id)  # decided before: kept as it is, nothing to tell
            if found is None:
                raise LedgerError(f"notification {entry_id} is not in the inbox")
            return found

        return await self._engine.write(write)

    async def get(self, entry_id: int) -> InboxEntry | None:
        return await self._engine.read(lambda conn: self._one(conn, entry_id))

    async def _list(self, sql: str, args: list[Any]) -> list[InboxEntry]:
        rows = await self._engine.read(lambda conn: self._d.all(conn, sql, args))
        return [self._entry(r) for r in rows]

    async def pending(self, limit: int = 500) -> list[InboxEntry]:
        return await self._list(
            f"SELECT {COLUMNS} FROM inbox{self._d.indexed('inbox_by_verdict')}"
            f" WHERE verdict = ? ORDER BY id LIMIT {int(limit)}",
            [PENDING],
        )

    async def page(self, query: InboxQuery, before: int | None = None, limit: int = 100) -> list[InboxEntry]:
        where, args = self._where(query, before)
        return await self._list(f"SELECT {COLUMNS} FROM inbox WHERE {where} ORDER BY id DESC LIMIT {int(limit)}", args)

    async def count(self, query: InboxQuery) -> int:
        where, args = self._where(query)
        row = await self._engine.read(
            lambda conn: self._d.one(conn, f"SELECT count(*) AS n FROM inbox WHERE {where}", args)
        )
        return int(row["n"]) if row else 0

    async def last_received(self, profile_id: str | None = None, mode: str | None = None) -> datetime | None:
        where, args = "original = 1", []
        if profile_id is not None:
            where += " AND profile_id = ?"
            args.append(profile_id)
            if mode is not None:
                where += " AND mode = ?"
                args.append(mode)
        row = await self._engine.read(
            lambda conn: self._d.one(
                conn,
                f"SELECT received_at FROM inbox{self._d.indexed('inbox_originals')}"
                f" WHERE {where} ORDER BY id DESC LIMIT 1",
                args,
            )
        )
        return None if row is None else self._d.when(row["received_at"])

    # -- refused requests: traced or counted, never kept whole ----------------------------

    async def refuse(self, body: bytes, remote: str, *, reason: str = BAD_SIGNATURE) -> Refusal:
        body = bytes(body)
        digest, head, size = body_hash(body), body[:REFUSED_HEAD], len(body)

        def write(conn: Conn) -> Refusal:
            now = self._d.now()  # the ledger's clock: the server's on a shared ledger
            row = self._d.one(conn, f"SELECT {self._d.minute('{now}')} AS minute", now=now)
            minute = row["minute"] if row else None  # the limit's window
            counts = self._d.one(
                conn,
                "SELECT count(*) FILTER (WHERE remote = ?) AS by_peer, count(*) AS by_all"
                f" FROM refused{self._d.indexed('refused_by_minute')}"
                " WHERE minute = ? AND counter IS NULL",
                (remote, minute),
            )
            counter = counted_by(remote, int(counts["by_peer"]), int(counts["by_all"])) if counts else None
            if counter is None:
                made = self._d.one(
                    conn,
                    "INSERT INTO refused (received_at, last_at, minute, remote, reason,"
                    " size, body_hash, head) VALUES ({now}, {now}, ?, ?, ?, ?, ?, ?)"
                    f" RETURNING {REFUSED_COLUMNS}",
                    (minute, remote, reason, size, digest, head),
                    now=now,
                )
            else:
                made = self._d.one(
                    conn,
                    "INSERT INTO refused (received_at, last_at, minute, remote, reason,"
                    " size, counter) VALUES ({now}, {now}, ?, ?, ?, ?, 1) ON CONFLICT (remote,"
                    " minute, counter) DO UPDATE SET count = refused.count + 1, size ="
                    " refused.size + excluded.size, last_at = excluded.last_at"
                    f" RETURNING {REFUSED_COLUMNS}",
                    (minute, counter, reason, size),
                    now=now,
                )
            assert made is not None
            trace = refusal(made, self._d.when)
            if trace.news:  # the other desks hear of a trace, not of each one counted
                self._d.event(conn, "refused", key=trace.remote)
            return trace

        return await self._engine.write(write)

    async def refused_page(self, before: int | None = None, limit: int = 100) -> list[Refusal]:
        where, args = ("id < ?", [before]) if before is not None else ("TRUE", [])
        rows = await self._engine.read(
            lambda conn: self._d.all(
                conn, f"SELECT {REFUSED_COLUMNS} FROM refused WHERE {where} ORDER BY id DESC LIMIT {int(limit)}", args
            )
        )
        return [refusal(r, self._d.when) for r in rows]

    async def refused_groups(self, since: datetime, limit: int = 20) -> list[RefusedGroup]:
        rows = await self._engine.read(
            lambda conn: self._d.all(conn, GROUPS.format(mark="?", limit=int(limit)), (self._d.time(since),))
        )
        return [group(r, self._d.when) for r in rows]

    async def prune_refused(self, before: datetime) -> int:
        return int(
            await self._engine.write(
                lambda conn: (
                    self._d.run(conn, "DELETE FROM refused WHERE last_at < ?", (self._d.time(before),)).rowcount
                )
            )
        )


__all__ = ["COLUMNS", "SqlInbox"]
