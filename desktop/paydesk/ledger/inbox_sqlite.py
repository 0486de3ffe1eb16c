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
from .inbox import BAD_SIGNATURE, DUPLICATE, PENDING, Inbox, InboxEntry, InboxQuery, body_hash
from .inbox_sql import check_decision, conditions, headers_json
from .records import parse_stamp, parse_written, stamp
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
                      verified: bool, profile_id: str | None = None, mode: str | None = None,
                      tx_ref: str | None = None, event: str | None = None,
                      ) -> tuple[InboxEntry, bool]:
        body = bytes(body)
        digest = body_hash(body)
        kept = headers_json(headers)

        def write(db: sqlite3.Connection) -> tuple[InboxEntry, bool]:
            now = stamp()
            verdict, original, duplicate_of = BAD_SIGNATURE, None, None
            decided_at: str | None = now
            if verified:
                first = db.execute("SELECT id FROM inbox WHERE body_hash = ? AND original = 1",
                                   (digest,)).fetchone()
                if first is None:  # the original: decided when it is re-read
                    verdict, original, decided_at = PENDING, 1, None
                else:
                    verdict, duplicate_of = DUPLICATE, first["id"]
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


__all__ = ["SqliteInbox"]
