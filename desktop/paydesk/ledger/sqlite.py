"""The ledger in a SQLite file (WAL), safe with two PayDesk windows and a backup tool at once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Callable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ..service.models import PaymentLink, PaymentRequest, Transaction
from .amounts import to_minor
from .engine import Engine, LedgerError
from .fold import fold
from .query import Cursor, LinkQuery, Page
from .records import CREATING, FINAL, OPEN, PENDING, REJECTED, SUCCESS, LinkRecord, may_follow, stamp, state_of
from .repository import DuplicateReference, Fence, Ledger
from .schema import migrate, register_fold
from .search import SELECT, Plan, index_text, record, unindex_text
from .summary import DaySummary, summarise


def _fill_in(db: sqlite3.Connection, before: LinkRecord, tx: Transaction) -> None:
    """A payment made elsewhere, first seen with no details (the family's answer for an
    unpaid one): fill them in once the service tells them."""
    if before.origin != "lookup" or before.currency or tx.amount is None or not tx.currency:
        return
    unindex_text(db, "id = ?", (before.id,))
    db.execute("UPDATE links SET amount_minor = ?, currency = ?, email = ?, first_name = ?,"
               " last_name = ?, customization = ?, meta = ?, created_at = COALESCE(?, created_at)"
               " WHERE id = ?",
               (to_minor(tx.amount, tx.currency), tx.currency, tx.email or "", tx.first_name or "",
                tx.last_name or "", json.dumps(tx.customization), json.dumps(tx.meta),
                stamp(tx.created_at) if tx.created_at else None, before.id))
    index_text(db, "id = ?", (before.id,))


def _bulk_insert(db: sqlite3.Connection, rows: list[tuple]) -> int:
    """Insert many rows in the current transaction. When they outnumber what is there, the
    indexes are dropped and built again after (sorting once beats inserting one by one)."""
    count = db.execute("SELECT count(*) FROM links").fetchone()[0]
    indexes = []
    if len(rows) >= max(10_000, count):
        indexes = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index'"
                             " AND tbl_name = 'links' AND sql IS NOT NULL").fetchall()
        for index in indexes:
            db.execute(f"DROP INDEX {index['name']}")
    last = db.execute("SELECT COALESCE(MAX(id), 0) FROM links").fetchone()[0]
    before = db.total_changes
    db.executemany(_INSERT.replace("INSERT", "INSERT OR IGNORE", 1), rows)
    added = db.total_changes - before
    for index in indexes:
        db.execute(index["sql"])
    index_text(db, "id > ?", (last,))
    return added


def _set_reference(db: sqlite3.Connection, before: LinkRecord, reference: str | None) -> None:
    """The service's reference became known (or changed): keep the search index in step."""
    if not reference or reference == before.reference:
        return
    unindex_text(db, "id = ?", (before.id,))
    db.execute("UPDATE links SET reference = ? WHERE id = ?", (reference, before.id))
    index_text(db, "id = ?", (before.id,))


def _one(db: sqlite3.Connection, profile_id: str, tx_ref: str, *,
         raw: bool = False) -> LinkRecord | None:
    row = db.execute(f"SELECT {SELECT}{', links.raw' if raw else ''} FROM links"
                     " WHERE profile_id = ? AND tx_ref = ?", (profile_id, tx_ref)).fetchone()
    if row is None:
        return None
    return record(row, row["raw"] if raw else None)


def _must(db: sqlite3.Connection, profile_id: str, tx_ref: str, *, raw: bool = False) -> LinkRecord:
    found = _one(db, profile_id, tx_ref, raw=raw)
    if found is None:
        raise LedgerError(f"{tx_ref} is not in the ledger")
    return found


# the condition of the links_open partial index, said as it is: queries for open records
# name that index (a few rows), where the planner, with no statistics, would walk another
OPEN_WHERE = f"state NOT IN ({', '.join(repr(s) for s in FINAL)})"

_INSERT = ("INSERT INTO links (profile_id, mode, tx_ref, amount_minor, fee_minor, currency,"
           " email, first_name, last_name, state, state_raw, checkout_url, reference,"
           " customization, meta, callback_url, return_url, origin, error, created_at,"
           " updated_at, checked_at, raw, learned_by) VALUES"
           " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def _json(value: dict) -> str:
    return json.dumps(value) if value else "{}"


def _row_of(r: LinkRecord) -> tuple:
    return (r.profile_id, r.mode, r.tx_ref, to_minor(r.amount, r.currency),
            None if r.fee is None else to_minor(r.fee, r.currency), r.currency, r.email,
            r.first_name, r.last_name, r.state, r.state_raw, r.checkout_url, r.reference,
            _json(r.customization), _json(r.meta), r.callback_url, r.return_url,
            r.origin, r.error, stamp(r.created_at), stamp(r.updated_at),
            stamp(r.checked_at) if r.checked_at else "", r.raw_json, r.learned_by)


class SqliteLedger(Ledger):
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
            register_fold(db)  # the writer folds the search text (search.index_text)
            self.version = migrate(db)

        self._engine = Engine(path, prepare=prepare, readers=readers,
                              busy_timeout_ms=busy_timeout_ms, on_busy=self._busy_changed)

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

    # -- links --------------------------------------------------------------------------

    async def begin_link(self, profile_id: str, mode: str, request: PaymentRequest) -> LinkRecord:
        body = request.to_json()
        now = stamp()

        def write(db: sqlite3.Connection) -> LinkRecord:
            try:
                db.execute(_INSERT, (
                    profile_id, mode, request.tx_ref, to_minor(request.amount, request.currency),
                    None, request.currency, request.email, request.first_name,
                    request.last_name, CREATING, None, None, None,
                    json.dumps(body.get("customization", {})), json.dumps(body.get("meta", {})),
                    request.callback_url, request.return_url, "link", None, now, now, "", None,
                    None))
            except sqlite3.IntegrityError:
                raise DuplicateReference(request.tx_ref) from None
            index_text(db, "profile_id = ? AND tx_ref = ?", (profile_id, request.tx_ref))
            return _must(db, profile_id, request.tx_ref)

        return await self._engine.write(write)

    async def complete_link(self, profile_id: str, link: PaymentLink) -> LinkRecord:
        reference = link.checkout_url.rstrip("/").rsplit("/", 1)[-1] if link.checkout_url else None

        def write(db: sqlite3.Connection) -> LinkRecord:
            before = _must(db, profile_id, link.tx_ref)
            db.execute("UPDATE links SET state = CASE WHEN state = ? THEN ? ELSE state END,"
                       " checkout_url = COALESCE(?, checkout_url), error = NULL, updated_at = ?"
                       " WHERE id = ?",
                       (CREATING, PENDING, link.checkout_url, stamp(), before.id))
            if before.reference is None:
                _set_reference(db, before, reference)
            return _must(db, profile_id, link.tx_ref)

        return await self._engine.write(write)

    async def reject_link(self, profile_id: str, tx_ref: str, reason: str) -> LinkRecord:
        def write(db: sqlite3.Connection) -> LinkRecord:
            db.execute("UPDATE links SET state = ?, error = ?, updated_at = ?"
                       " WHERE profile_id = ? AND tx_ref = ? AND state = ?",
                       (REJECTED, reason, stamp(), profile_id, tx_ref, CREATING))
            return _must(db, profile_id, tx_ref)

        return await self._engine.write(write)

    async def note_error(self, profile_id: str, tx_ref: str, reason: str) -> LinkRecord:
        def write(db: sqlite3.Connection) -> LinkRecord:
            db.execute("UPDATE links SET error = ? WHERE profile_id = ? AND tx_ref = ?",
                       (reason, profile_id, tx_ref))
            return _must(db, profile_id, tx_ref)

        return await self._engine.write(write)

    async def record_lookup(self, profile_id: str, mode: str, tx: Transaction, *,
                            fence: Fence | None = None,
                            learned_by: str = "check") -> tuple[LinkRecord, bool]:
        now = stamp()
        raw = json.dumps(tx.raw, default=str) if tx.raw else None
        state = state_of(tx.status)
        state_raw = None if tx.status.value == tx.status_raw.strip().lower() else tx.status_raw
        currency = tx.currency or ""
        fee = None if tx.charge is None else to_minor(tx.charge, currency)

        def write(db: sqlite3.Connection) -> tuple[LinkRecord, bool]:
            before = _one(db, profile_id, tx.tx_ref)
            if before is None:
                created = stamp(tx.created_at) if tx.created_at else now
                db.execute(_INSERT, (
                    profile_id, mode, tx.tx_ref, to_minor(tx.amount or 0, currency), fee,
                    currency, tx.email or "", tx.first_name or "", tx.last_name or "", state,
                    state_raw, None, tx.reference, json.dumps(tx.customization),
                    json.dumps(tx.meta), None, None, "lookup", None, created, now, now, raw,
                    learned_by))
                index_text(db, "profile_id = ? AND tx_ref = ?", (profile_id, tx.tx_ref))
                return _must(db, profile_id, tx.tx_ref, raw=True), True
            if not may_follow(before.state, state):
                # a final state stays (records.may_follow): what the service said is noted
                # beside it, and the record is not moved
                said = tx.status_raw.strip() or state
                db.execute("UPDATE links SET checked_at = ?, error = ? WHERE id = ?",
                           (now, f"The service now says {said!r}; PayDesk keeps its final state "
                                 f"{before.state!r}", before.id))
                return _must(db, profile_id, tx.tx_ref, raw=True), False
            # updated_at and learned_by move only with the state (the right-hand sides
            # read the row as it was)
            db.execute("UPDATE links SET state = ?, state_raw = ?, checked_at = ?,"
                       " updated_at = CASE WHEN state = ? AND state_raw IS ? THEN updated_at"
                       " ELSE ? END, learned_by = CASE WHEN state = ? AND state_raw IS ?"
                       " THEN learned_by ELSE ? END, error = NULL,"
                       " fee_minor = COALESCE(?, fee_minor), raw = COALESCE(?, raw) WHERE id = ?",
                       (state, state_raw, now, state, state_raw, now, state, state_raw,
                        learned_by, fee, raw, before.id))
            _fill_in(db, before, tx)
            _set_reference(db, before, tx.reference)
            after = _must(db, profile_id, tx.tx_ref, raw=True)
            return after, (after.state, after.state_raw) != (before.state, before.state_raw)

        return await self._engine.write(write)

    async def touch(self, profile_id: str, tx_ref: str, *, fence: Fence | None = None) -> None:
        now = stamp()
        await self._engine.write(lambda db: db.execute(
            "UPDATE links SET checked_at = ? WHERE profile_id = ? AND tx_ref = ?",
            (now, profile_id, tx_ref)))

    async def import_records(self, records: Sequence[LinkRecord]) -> int:
        return await self._engine.write(lambda db: _bulk_insert(db, [_row_of(r) for r in records]))

    # -- reading ------------------------------------------------------------------------

    async def get(self, profile_id: str, tx_ref: str) -> LinkRecord | None:
        return await self._engine.read(lambda db: _one(db, profile_id, tx_ref, raw=True))

    async def references_in(self, profile_id: str, refs: Sequence[str]) -> set[str]:
        wanted = list(dict.fromkeys(refs))
        if not wanted:
            return set()
        sql = (f"SELECT tx_ref FROM links WHERE profile_id = ? AND tx_ref IN"
               f" ({', '.join('?' * len(wanted))})")
        rows = await self._engine.read(lambda db: db.execute(sql, [profile_id, *wanted]).fetchall())
        return {row[0] for row in rows}

    async def page(self, query: LinkQuery, after: Cursor | None = None,
                   before: Cursor | None = None, limit: int = 100) -> Page:
        if after is not None and before is not None:
            raise ValueError("page after or before a row, not both")
        return await self._engine.read(
            lambda db: Plan(db, query).page(db, before or after, limit, backwards=before is not None))

    async def last_page(self, query: LinkQuery, limit: int = 100) -> Page:
        return await self._engine.read(
            lambda db: Plan(db, query).page(db, None, limit, backwards=True))

    async def count(self, query: LinkQuery) -> int:
        return await self._engine.read(lambda db: Plan(db, query).count(db))

    async def anchors(self, query: LinkQuery, every: int) -> list[Cursor]:
        return await self._engine.read(lambda db: Plan(db, query).anchors(db, every))

    async def changes(self) -> int:
        # PRAGMA data_version on the writer's connection moves only when another connection
        # committed: another window or program on the same file, never this one's own writes
        return await self._engine.on_writer(
            lambda db: db.execute("PRAGMA data_version").fetchone()[0])

    async def by_reference(self, profile_id: str, reference: str) -> LinkRecord | None:
        def find(db: sqlite3.Connection) -> LinkRecord | None:
            row = db.execute(
                f"SELECT {SELECT}, links.raw FROM links_fts JOIN links ON links.id = links_fts.rowid"
                " WHERE links_fts.search_folded LIKE ? AND links.profile_id = ?"
                " AND links.reference = ?", (f"%{fold(reference)}%", profile_id, reference)
            ).fetchone()
            return record(row, row["raw"]) if row else None

        return await self._engine.read(find)

    async def day_summary(self, profile_id: str, mode: str, start: datetime,
                          end: datetime) -> DaySummary:
        return await self._engine.read(lambda db: summarise(db, profile_id, mode, start, end))

    async def _select(self, where: str, args: Sequence[Any], order: str,
                      limit: int | None = None, index: str | None = None) -> list[LinkRecord]:
        source = f"links INDEXED BY {index}" if index else "links"
        sql = f"SELECT {SELECT} FROM {source} WHERE {where} ORDER BY {order}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        rows = await self._engine.read(lambda db: db.execute(sql, tuple(args)).fetchall())
        return [record(r) for r in rows]

    async def unsettled(self, profile_id: str | None = None) -> list[LinkRecord]:
        where, args = f"state = ? AND {OPEN_WHERE}", [CREATING]
        if profile_id:
            where += " AND profile_id = ?"
            args.append(profile_id)
        return await self._select(where, args, "id", index="links_open")

    async def open_records(self, profile_id: str | None = None, mode: str | None = None, *,
                           since: datetime | None = None,
                           limit: int | None = 1000) -> list[LinkRecord]:
        watchable = [s for s in OPEN if s != CREATING]
        where = f"state IN ({', '.join('?' for _ in watchable)}) AND {OPEN_WHERE}"
        args: list[Any] = list(watchable)
        for condition, value in (("profile_id = ?", profile_id), ("mode = ?", mode),
                                 ("created_at >= ?", since and stamp(since))):
            if value:
                where += f" AND {condition}"
                args.append(value)
        return await self._select(where, args, "created_at DESC, id DESC", limit,
                                  index="links_open")

    @staticmethod
    def _paid_where(since: datetime, profile_id: str | None, mode: str | None,
                    checked_before: datetime | None = None) -> tuple[str, list[Any]]:
        # the state said literally, as the partial index links_paid says it (a bound value
        # would not prove to the planner that the index holds every row asked for)
        where, args = f"state = '{SUCCESS}' AND updated_at >= ?", [stamp(since)]
        for condition, value in (("profile_id = ?", profile_id), ("mode = ?", mode),
                                 ("checked_at < ?", checked_before and stamp(checked_before))):
            if value:
                where += f" AND {condition}"
                args.append(value)
        return where, args

    async def paid_since(self, since: datetime, profile_id: str | None = None,
                         mode: str | None = None, *, checked_before: datetime | None = None,
                         after: Cursor | None = None, limit: int = 200) -> Page:
        where, args = self._paid_where(since, profile_id, mode, checked_before)
        if after is not None:
            where += " AND (updated_at, id) > (?, ?)"
            args += list(after.values)
        sql = (f"SELECT {SELECT} FROM links INDEXED BY links_paid WHERE {where}"
               f" ORDER BY updated_at, id LIMIT {int(limit) + 1}")

        def read(db: sqlite3.Connection) -> Page:
            rows = db.execute(sql, tuple(args)).fetchall()
            records = [record(r) for r in rows[:limit]]
            if not records:
                return Page()
            first, last = rows[0], rows[len(records) - 1]
            return Page(records, Cursor((first["updated_at"], first["id"])),
                        Cursor((last["updated_at"], last["id"])), more=len(rows) > limit)

        return await self._engine.read(read)

    async def count_paid_since(self, since: datetime, profile_id: str | None = None,
                               mode: str | None = None) -> int:
        where, args = self._paid_where(since, profile_id, mode)
        return await self._engine.read(lambda db: db.execute(
            f"SELECT count(*) FROM links INDEXED BY links_paid WHERE {where}",
            tuple(args)).fetchone()[0])

    # -- references -----------------------------------------------------------------------

    async def peek_sequence(self, day: date) -> int:
        row = await self._engine.read(lambda db: db.execute(
            "SELECT value FROM sequences WHERE day = ?", (day.isoformat(),)).fetchone())
        return (row["value"] if row else 0) + 1

    async def claim_sequence(self, day: date, value: int) -> bool:
        def write(db: sqlite3.Connection) -> bool:
            row = db.execute("SELECT value FROM sequences WHERE day = ?",
                             (day.isoformat(),)).fetchone()
            if row is not None and row["value"] >= value:
                return False
            db.execute("INSERT INTO sequences (day, value) VALUES (?, ?) ON CONFLICT (day)"
                       " DO UPDATE SET value = excluded.value", (day.isoformat(), value))
            return True

        return await self._engine.write(write)


__all__ = ["SqliteLedger"]
