"""The notification inbox in a desk's SQLite file (schema v7, ``inbox_schema``), on the same
threads (``Engine``) as its links: ``SqliteInbox.beside(ledger)``.

A receive is one write transaction (``BEGIN IMMEDIATE``): whether the body has an original
yet is read and the row written under the file's write lock, and UNIQUE (body_hash,
original) stands behind it, so two receivers on the same file (the desk's and a headless
one) keep one original between them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from .engine import Engine, LedgerError
from .inbox import (
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
from .inbox_sql import check_decision, conditions, headers_json
from .records import parse_stamp, parse_written, stamp
from .refused_sql import COLUMNS as REFUSED_COLUMNS
from .refused_sql import GROUPS, counted_by, group, refusal
from .sqlite import SqliteLedger

COLUMNS = ("id, received_at, body_hash, body, headers, remote, verdict, detail, profile_id,"
           " mode, tx_ref, event, duplicate_of, decided_at")
_INSERT = ("INSERT INTO inbox (received_at, body_hash, body, headers, remote, verdict,"
           " profile_id, mode, tx_ref, event, original, duplicate_of, decided_at)"
           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def _entry(row: sqlite3.Row) -> InboxEntry:
    return InboxEntry(
        id=row["id"], received_at=parse_written(row["received_at"]),
        body_hash=row["body_hash"], body=bytes(row["body"]),
        headers=json.loads(row["headers"] or "{}"), remote=row["remote"],
        verdict=row["verdict"], detail=row["detail"], profile_id=row["profile_id"],
        mode=row["mode"], tx_ref=row["tx_ref"], event=row["event"],
        duplicate_of=row["duplicate_of"], decided_at=parse_stamp(row["decided_at"]))


def _one(db: sqlite3.Connection, entry_id: int) -> InboxEntry | None:
    row = db.execute(f"SELECT {COLUMNS} FROM inbox WHERE id = ?", (entry_id,)).fetchone()
    return None if row is None else _entry(row)


def _must(db: sqlite3.Connection, entry_id: int) -> InboxEntry:
    found = _one(db, entry_id)
    if found is None:
        raise LedgerError(f"notification {entry_id} is not in the inbox")
    return found


def _where(query: InboxQuery, before: int | None = None) -> tuple[str, list[Any]]:
    return conditions(query, before, mark="?", ilike="LIKE", when=stamp)  # LIKE: ASCII case


class SqliteInbox(Inbox):
    """``SqliteInbox.beside(ledger)``: the inbox in the ledger's file, on its writer and
    readers (one writer: a notification kept and a record written never contend)."""

    def __init__(self, engine: Engine):
        self._engine = engine

    @classmethod
    def beside(cls, ledger: SqliteLedger) -> SqliteInbox:
        return cls(ledger._engine)  # one package, one file

    async def receive(self, body: bytes, headers: Mapping[str, str], remote: str, *,
                      profile_id: str | None = None, mode: str | None = None,
                      tx_ref: str | None = None, event: str | None = None,
                      ) -> tuple[InboxEntry, bool]:
        body = bytes(body)
        digest = body_hash(body)
        kept = headers_json(headers)

        def write(db: sqlite3.Connection) -> tuple[InboxEntry, bool]:
            now = stamp()
            verdict, duplicate_of = PENDING, None
            original: int | None = 1
            decided_at: str | None = None  # the original: decided when it is re-read
            first = db.execute("SELECT id FROM inbox WHERE body_hash = ? AND original = 1",
                               (digest,)).fetchone()
            if first is not None:
                verdict, original, duplicate_of, decided_at = DUPLICATE, None, first["id"], now
            made = db.execute(_INSERT, (now, digest, body, kept, remote, verdict, profile_id,
                                        mode, tx_ref, event, original, duplicate_of,
                                        decided_at)).lastrowid
            assert made is not None
            return _must(db, made), original == 1

        return await self._engine.write(write)

    async def decide(self, entry_id: int, verdict: str, detail: str, *,
                     profile_id: str | None = None, mode: str | None = None,
                     tx_ref: str | None = None) -> InboxEntry:
        check_decision(verdict)

        def write(db: sqlite3.Connection) -> InboxEntry:
            db.execute("UPDATE inbox SET verdict = ?, detail = ?, decided_at = ?,"
                       " profile_id = COALESCE(?, profile_id), mode = COALESCE(?, mode),"
                       " tx_ref = COALESCE(?, tx_ref) WHERE id = ? AND verdict = ?",
                       (verdict, detail, stamp(), profile_id, mode, tx_ref, entry_id, PENDING))
            return _must(db, entry_id)

        return await self._engine.write(write)

    async def get(self, entry_id: int) -> InboxEntry | None:
        return await self._engine.read(lambda db: _one(db, entry_id))

    async def pending(self, limit: int = 500) -> list[InboxEntry]:
        rows = await self._engine.read(lambda db: db.execute(
            f"SELECT {COLUMNS} FROM inbox INDEXED BY inbox_by_verdict WHERE verdict = ?"
            f" ORDER BY id LIMIT {int(limit)}", (PENDING,)).fetchall())
        return [_entry(r) for r in rows]

    async def page(self, query: InboxQuery, before: int | None = None,
                   limit: int = 100) -> list[InboxEntry]:
        where, args = _where(query, before)
        rows = await self._engine.read(lambda db: db.execute(
            f"SELECT {COLUMNS} FROM inbox WHERE {where} ORDER BY id DESC LIMIT {int(limit)}",
            args).fetchall())
        return [_entry(r) for r in rows]

    async def count(self, query: InboxQuery) -> int:
        where, args = _where(query)
        return int(await self._engine.read(lambda db: db.execute(
            f"SELECT count(*) FROM inbox WHERE {where}", args).fetchone()[0]))

    async def last_received(self, profile_id: str | None = None,
                            mode: str | None = None) -> datetime | None:
        where, args = "original = 1", []
        if profile_id is not None:
            where += " AND profile_id = ?"
            args.append(profile_id)
            if mode is not None:
                where += " AND mode = ?"
                args.append(mode)
        row = await self._engine.read(lambda db: db.execute(
            f"SELECT received_at FROM inbox INDEXED BY inbox_originals WHERE {where}"
            " ORDER BY id DESC LIMIT 1", args).fetchone())
        return None if row is None else parse_written(row["received_at"])

    # -- refused requests: traced or counted, never kept whole ----------------------------

    async def refuse(self, body: bytes, remote: str, *,
                     reason: str = BAD_SIGNATURE) -> Refusal:
        body = bytes(body)
        digest, head, size = body_hash(body), body[:REFUSED_HEAD], len(body)

        def write(db: sqlite3.Connection) -> Refusal:
            now = stamp()
            minute = now[:16]  # "2026-01-02T03:04": the limit's window
            by_peer = db.execute("SELECT count(*) FROM refused WHERE remote = ? AND minute = ?"
                                 " AND counter IS NULL", (remote, minute)).fetchone()[0]
            by_all = db.execute("SELECT count(*) FROM refused INDEXED BY refused_by_minute"
                                " WHERE minute = ? AND counter IS NULL", (minute,)).fetchone()[0]
            counter = counted_by(remote, by_peer, by_all)
            if counter is None:
                row = db.execute(
                    "INSERT INTO refused (received_at, last_at, minute, remote, reason, size,"
                    " body_hash, head) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                    f" RETURNING {REFUSED_COLUMNS}",
                    (now, now, minute, remote, reason, size, digest, head)).fetchone()
            else:
                row = db.execute(
                    "INSERT INTO refused (received_at, last_at, minute, remote, reason, size,"
                    " counter) VALUES (?, ?, ?, ?, ?, ?, 1) ON CONFLICT (remote, minute, counter)"
                    " DO UPDATE SET count = refused.count + 1, size = refused.size + excluded.size,"
                    f" last_at = excluded.last_at RETURNING {REFUSED_COLUMNS}",
                    (now, now, minute, counter, reason, size)).fetchone()
            return refusal(row, _when)

        return await self._engine.write(write)

    async def refused_page(self, before: int | None = None, limit: int = 100) -> list[Refusal]:
        where, args = ("id < ?", [before]) if before is not None else ("TRUE", [])
        rows = await self._engine.read(lambda db: db.execute(
            f"SELECT {REFUSED_COLUMNS} FROM refused WHERE {where} ORDER BY id DESC"
            f" LIMIT {int(limit)}", args).fetchall())
        return [refusal(r, _when) for r in rows]

    async def refused_groups(self, since: datetime, limit: int = 20) -> list[RefusedGroup]:
        rows = await self._engine.read(lambda db: db.execute(
            GROUPS.format(mark="?", limit=int(limit)), (stamp(since),)).fetchall())
        return [group(r, _when) for r in rows]

    async def prune_refused(self, before: datetime) -> int:
        return await self._engine.write(lambda db: db.execute(
            "DELETE FROM refused WHERE last_at < ?", (stamp(before),)).rowcount)


def _when(text: str) -> datetime:
    return parse_written(text)


__all__ = ["SqliteInbox"]
