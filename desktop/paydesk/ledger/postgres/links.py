"""The links ledger on a shared PostgreSQL: ``ledger.repository.Ledger`` with the same results
as ``SqliteLedger``, for every desk of a shop at once.

Every write is one transaction on the engine's threads and writes an event row in it
(``events.emit``: kind "link", key the tx_ref; "sequence" for a claimed reference number),
so the other desks hear of it. Where a write reads what it then changes (a lookup's result
against the record's state), the row is locked first (``FOR UPDATE``): two desks recording
the same lookup at once make one row and one "changed", as two windows do on SQLite.
Times written are the server's (``now()``, the transaction's start), so desks whose clocks
differ agree on the order of what they made.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date, datetime
from typing import Any

from ...service.models import PaymentLink, PaymentRequest, Transaction
from ..amounts import to_minor
from ..engine import LedgerError
from ..fold import fold
from ..query import Cursor, LinkQuery, Page
from ..records import CREATING, PENDING, REJECTED, LinkRecord, may_follow, state_of
from ..repository import DuplicateReference, Fence, Ledger
from ..search import like
from ..summary import DaySummary
from . import events, lists
from .engine import PgEngine
from .lease import check_fence
from .search import SELECT, Conn, Plan, Row, aware, record
from .summary import summarise

_COLUMNS = ("profile_id", "mode", "tx_ref", "amount_minor", "fee_minor", "currency", "email",
            "first_name", "last_name", "state", "state_raw", "checkout_url", "reference",
            "customization", "meta", "callback_url", "return_url", "origin", "error",
            "created_at", "updated_at", "checked_at", "raw", "learned_by")
# a new record's times are the server's: created (unless the service said when), updated
# and, for a lookup, checked now() (the transaction's start), so desks agree on order
_VALUES = {"created_at": "COALESCE(%s, now())", "updated_at": "now()",
           "checked_at": "CASE WHEN %s THEN now() END"}
_INSERT = (f"INSERT INTO links ({', '.join(_COLUMNS)})"
           f" VALUES ({', '.join(_VALUES.get(c, '%s') for c in _COLUMNS)})"
           f" ON CONFLICT (profile_id, tx_ref) DO NOTHING RETURNING {SELECT}, links.raw")
_RETURNING = f"RETURNING {SELECT}, links.raw"
ANALYZE_AFTER = 1000  # records added by one import, above which the statistics are renewed
CHANGES_MARGIN = 1000  # events before the last seen that changes() reads again
REBUILD_FROM = 10_000  # records imported at once, from which the indexes are built again after


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value) if value else "{}"


def _row_of(r: LinkRecord) -> tuple[Any, ...]:
    return (r.profile_id, r.mode, r.tx_ref, to_minor(r.amount, r.currency),
            None if r.fee is None else to_minor(r.fee, r.currency), r.currency, r.email,
            r.first_name, r.last_name, r.state, r.state_raw, r.checkout_url, r.reference,
            _json(r.customization), _json(r.meta), r.callback_url, r.return_url,
            r.origin, r.error, aware(r.created_at), aware(r.updated_at),
            aware(r.checked_at) if r.checked_at else None, r.raw_json, r.learned_by)


def _one(conn: Conn, profile_id: str, tx_ref: str, *, raw: bool = False,
         lock: bool = False) -> LinkRecord | None:
    row = conn.execute(f"SELECT {SELECT}, links.raw FROM links WHERE profile_id = %s"
                       f" AND tx_ref = %s{' FOR UPDATE' if lock else ''}",
                       (profile_id, tx_ref)).fetchone()
    return None if row is None else record(row, row["raw"] if raw else None)


def _returned(conn: Conn, sql: str, args: Sequence[Any], tx_ref: str, *,
              raw: bool = False) -> LinkRecord:
    """The record an UPDATE ... RETURNING changed (with the service's last answer when
    ``raw``, as SqliteLedger returns it); LedgerError if there is none."""
    row = conn.execute(sql, args).fetchone()
    if row is None:
        raise LedgerError(f"{tx_ref} is not in the ledger")
    return record(row, row["raw"] if raw else None)


def _import(conn: Conn, rows: list[tuple[Any, ...]]) -> list[tuple[str, str, int]]:
    """Copy the rows into a scratch table and add those whose tx_ref is new, in their order.
    When they outnumber what is there, the indexes (but the unique ones) are dropped and
    built again after, as SqliteLedger does: building once beats inserting one by one (the
    trigram index most). Returns (profile_id, mode, how many) of what was added."""
    columns = ", ".join(_COLUMNS)
    conn.execute(f"CREATE TEMP TABLE links_import ON COMMIT DROP AS SELECT 0::bigint AS ord,"
                 f" {columns} FROM links WITH NO DATA")
    with conn.cursor().copy(f"COPY links_import (ord, {columns}) FROM STDIN") as copy:
        for number, row in enumerate(rows):
            copy.write_row((number, *row))
    indexes: list[Row] = []
    if len(rows) >= max(REBUILD_FROM, _count(conn, "SELECT count(*) AS n FROM links")):
        indexes = conn.execute(
            "SELECT c.relname AS name, pg_get_indexdef(c.oid) AS sql FROM pg_index i"
            " JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'links'::regclass"
            " AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)"
            ).fetchall()
        for index in indexes:
            conn.execute(f'DROP INDEX "{index["name"]}"')
    added = conn.execute(
        f"WITH added AS (INSERT INTO links ({columns}) SELECT {columns} FROM links_import"
        f" ORDER BY ord ON CONFLICT (profile_id, tx_ref) DO NOTHING RETURNING profile_id, mode)"
        f" SELECT profile_id, mode, count(*) AS n FROM added GROUP BY profile_id, mode"
        f" ORDER BY profile_id, mode").fetchall()
    for index in indexes:
        conn.execute(index["sql"])
    if sum(row["n"] for row in added) >= ANALYZE_AFTER:
        conn.execute("ANALYZE links")  # the planner's figures, at once (not at autovacuum's)
    return [(row["profile_id"], row["mode"], int(row["n"])) for row in added]


def _count(conn: Conn, sql: str, args: Sequence[Any] = ()) -> int:
    row = conn.execute(sql, args).fetchone()
    return int(row["n"]) if row else 0


_QUIET = {"checked_at": None, "updated_at": None, "raw_json": None}


def _news(before: LinkRecord, after: LinkRecord) -> bool:
    """Did a check change what a desk shows (not only when it was checked)? A check that
    said nothing new is no event: the poller checks every few seconds, and every event is
    a row in ``events`` and a re-read at every other desk."""
    return replace(before, **_QUIET) != replace(after, **_QUIET)  # type: ignore[arg-type]


class PostgresLedger(Ledger):
    """``PostgresLedger(engine)``: the links of a shared ledger. Opening, closing and the
    connections are the engine's; it may be shared with the card ledger."""

    def __init__(self, engine: PgEngine):
        self._engine = engine
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

    def _emit(self, conn: Conn, done: LinkRecord) -> LinkRecord:
        """The "link" event of a change (in its transaction): the other desks re-read it."""
        events.emit(conn, self._engine.desk, "link", done.profile_id, done.mode, done.tx_ref)
        return done

    # -- links --------------------------------------------------------------------------

    async def begin_link(self, profile_id: str, mode: str, request: PaymentRequest) -> LinkRecord:
        body = request.to_json()
        row = (profile_id, mode, request.tx_ref, to_minor(request.amount, request.currency),
               None, request.currency, request.email, request.first_name, request.last_name,
               CREATING, None, None, None, json.dumps(body.get("customization", {})),
               json.dumps(body.get("meta", {})), request.callback_url, request.return_url,
               "link", None, None, False, None, None)

        def write(conn: Conn) -> LinkRecord:
            made = conn.execute(_INSERT, row).fetchone()
            if made is None:
                raise DuplicateReference(request.tx_ref)
            return self._emit(conn, record(made))

        return await self._engine.write(write)

    async def complete_link(self, profile_id: str, link: PaymentLink) -> LinkRecord:
        reference = link.checkout_url.rstrip("/").rsplit("/", 1)[-1] if link.checkout_url else None
        sql = ("UPDATE links SET state = CASE WHEN state = %s THEN %s ELSE state END,"
               " checkout_url = COALESCE(%s, checkout_url), error = NULL, updated_at = now(),"
               " reference = COALESCE(reference, %s) WHERE profile_id = %s AND tx_ref = %s "
               + _RETURNING)
        args = (CREATING, PENDING, link.checkout_url, reference or None,
                profile_id, link.tx_ref)
        return await self._engine.write(
            lambda conn: self._emit(conn, _returned(conn, sql, args, link.tx_ref)))

    async def reject_link(self, profile_id: str, tx_ref: str, reason: str) -> LinkRecord:
        def write(conn: Conn) -> LinkRecord:
            conn.execute("UPDATE links SET state = %s, error = %s, updated_at = now()"
                         " WHERE profile_id = %s AND tx_ref = %s AND state = %s",
                         (REJECTED, reason, profile_id, tx_ref, CREATING))
            found = _one(conn, profile_id, tx_ref)
            if found is None:
                raise LedgerError(f"{tx_ref} is not in the ledger")
            return self._emit(conn, found)

        return await self._engine.write(write)

    async def note_error(self, profile_id: str, tx_ref: str, reason: str) -> LinkRecord:
        sql = "UPDATE links SET error = %s WHERE profile_id = %s AND tx_ref = %s " + _RETURNING
        return await self._engine.write(lambda conn: self._emit(
            conn, _returned(conn, sql, (reason, profile_id, tx_ref), tx_ref)))

    async def record_lookup(self, profile_id: str, mode: str, tx: Transaction, *,
                            fence: Fence | None = None,
                            learned_by: str = "check") -> tuple[LinkRecord, bool]:
        raw = json.dumps(tx.raw, default=str) if tx.raw else None
        state = state_of(tx.status)
        state_raw = None if tx.status.value == tx.status_raw.strip().lower() else tx.status_raw
        currency = tx.currency or ""
        fee = None if tx.charge is None else to_minor(tx.charge, currency)
        new = (profile_id, mode, tx.tx_ref, to_minor(tx.amount or 0, currency), fee, currency,
               tx.email or "", tx.first_name or "", tx.last_name or "", state, state_raw, None,
               tx.reference, json.dumps(tx.customization), json.dumps(tx.meta), None, None,
               "lookup", None, aware(tx.created_at) if tx.created_at else None, True, raw,
               learned_by)

        def write(conn: Conn) -> tuple[LinkRecord, bool]:
            if fence is not None:
                check_fence(conn, fence)  # the poller's check: only while it holds the lease
            before = _one(conn, profile_id, tx.tx_ref, lock=True)
            if before is None:
                made = conn.execute(_INSERT, new).fetchone()
                if made is not None:
                    return self._emit(conn, record(made, made["raw"])), True
                # another desk added it since: what it holds now is what this lookup follows
                before = _one(conn, profile_id, tx.tx_ref, lock=True)
                if before is None:
                    raise LedgerError(f"{tx.tx_ref} is not in the ledger")
            where = " WHERE id = %s " + _RETURNING
            if not may_follow(before.state, state):
                # a final state stays (records.may_follow): what the service said is noted
                # beside it, and the record is not moved
                said = tx.status_raw.strip() or state
                note = (f"The service now says {said!r}; PayDesk keeps its final state "
                        f"{before.state!r}")
                kept = _returned(conn, "UPDATE links SET checked_at = now(), error = %s" + where,
                                 (note, before.id), tx.tx_ref, raw=True)
                return (self._emit(conn, kept) if _news(before, kept) else kept), False
            # updated_at and learned_by move only with the state (the right-hand sides read
            # the row as it was)
            unchanged = "state = %s AND state_raw IS NOT DISTINCT FROM %s"
            sets = ["state = %s", "state_raw = %s", "checked_at = now()",
                    f"updated_at = CASE WHEN {unchanged} THEN updated_at ELSE now() END",
                    f"learned_by = CASE WHEN {unchanged} THEN learned_by ELSE %s END",
                    "error = NULL", "fee_minor = COALESCE(%s, fee_minor)",
                    "raw = COALESCE(%s, raw)"]
            args: list[Any] = [state, state_raw, state, state_raw, state, state_raw, learned_by,
                               fee, raw]
            if (before.origin == "lookup" and not before.currency and tx.amount is not None
                    and tx.currency):
                # a payment made elsewhere, first seen with no details (the family's answer
                # for an unpaid one): fill them in once the service tells them
                sets += ["amount_minor = %s", "currency = %s", "email = %s", "first_name = %s",
                         "last_name = %s", "customization = %s", "meta = %s",
                         "created_at = COALESCE(%s, created_at)"]
                args += [to_minor(tx.amount, tx.currency), tx.currency, tx.email or "",
                         tx.first_name or "", tx.last_name or "", json.dumps(tx.customization),
                         json.dumps(tx.meta), aware(tx.created_at) if tx.created_at else None]
            if tx.reference and tx.reference != before.reference:
                sets.append("reference = %s")
                args.append(tx.reference)
            after = _returned(conn, f"UPDATE links SET {', '.join(sets)}" + where,
                              (*args, before.id), tx.tx_ref, raw=True)
            if _news(before, after):
                self._emit(conn, after)
            return after, (after.state, after.state_raw) != (before.state, before.state_raw)

        return await self._engine.write(write)

    async def touch(self, profile_id: str, tx_ref: str, *, fence: Fence | None = None) -> None:
        def write(conn: Conn) -> None:
            if fence is not None:
                check_fence(conn, fence)
            # a check that said nothing new is no news for the other desks (they read
            # checked_at with the record next time): no event, or every check of the poller
            # would be a row in events and a re-read at every desk
            conn.execute("UPDATE links SET checked_at = now() WHERE profile_id = %s"
                         " AND tx_ref = %s", (profile_id, tx_ref))

        await self._engine.write(write)

    async def import_records(self, records: Sequence[LinkRecord]) -> int:
        records = list(records)

        def write(conn: Conn) -> int:
            # the rows are made here, on the writer's thread: 200,000 of them take ~0.6 s,
            # which on the loop's thread would freeze the window for as long
            rows = [_row_of(r) for r in records]
            added = _import(conn, rows) if rows else []
            for profile_id, mode, _ in added:  # many at once: one "import" per list, no key
                events.emit(conn, self._engine.desk, "import", profile_id, mode)
            return sum(n for _, _, n in added)

        return await self._engine.write(write)

    # -- reading ------------------------------------------------------------------------

    async def get(self, profile_id: str, tx_ref: str) -> LinkRecord | None:
        return await self._engine.read(lambda conn: _one(conn, profile_id, tx_ref, raw=True))

    async def references_in(self, profile_id: str, refs: Sequence[str]) -> set[str]:
        wanted = list(dict.fromkeys(refs))
        if not wanted:
            return set()
        rows = await self._engine.read(lambda conn: conn.execute(
            "SELECT tx_ref FROM links WHERE profile_id = %s AND tx_ref = ANY(%s)",
            (profile_id, wanted)).fetchall())
        return {row["tx_ref"] for row in rows}

    async def page(self, query: LinkQuery, after: Cursor | None = None,
                   before: Cursor | None = None, limit: int = 100) -> Page:
        if after is not None and before is not None:
            raise ValueError("page after or before a row, not both")
        return await self._engine.read(
            lambda conn: Plan(query).page(conn, before or after, limit, backwards=before is not None))

    async def last_page(self, query: LinkQuery, limit: int = 100) -> Page:
        return await self._engine.read(
            lambda conn: Plan(query).page(conn, None, limit, backwards=True))

    async def count(self, query: LinkQuery) -> int:
        return await self._engine.read(lambda conn: Plan(query).count(conn))

    async def anchors(self, query: LinkQuery, every: int) -> list[Cursor]:
        return await self._engine.read(lambda conn: Plan(query).anchors(conn, every))

    async def changes(self) -> int:
        """The newest event another desk wrote: moves for their changes, never this desk's.

        Only the events since the last look (and a margin for a transaction that took its
        id earlier and committed later) are read, not every event this desk wrote since
        another last did: a desk alone on the ledger for months looks at a few rows."""
        def read(conn: Conn) -> int:
            row = conn.execute(
                "SELECT (SELECT max(id) FROM events) AS top, (SELECT max(id) FROM events"
                " WHERE id > %s AND desk <> %s) AS other",
                (self._looked - CHANGES_MARGIN, self._engine.desk)).fetchone()
            if row is not None:
                with self._changes_lock:
                    self._looked = max(self._looked, int(row["top"] or 0))
                    self._newest = max(self._newest, int(row["other"] or 0))
            return self._newest

        return await self._engine.read(read)

    async def by_reference(self, profile_id: str, reference: str) -> LinkRecord | None:
        def find(conn: Conn) -> LinkRecord | None:
            # the trigram index finds the few rows holding it; the reference itself decides
            row = conn.execute(f"SELECT {SELECT}, links.raw FROM links WHERE profile_id = %s"
                               " AND search_folded LIKE %s AND reference = %s LIMIT 1",
                               (profile_id, like(fold(reference)), reference)).fetchone()
            return record(row, row["raw"]) if row else None

        return await self._engine.read(find)

    async def day_summary(self, profile_id: str, mode: str, start: datetime,
                          end: datetime) -> DaySummary:
        return await self._engine.read(lambda conn: summarise(conn, profile_id, mode, start, end))

    async def _select(self, sql: str, args: list[Any]) -> list[LinkRecord]:
        rows = await self._engine.read(lambda conn: conn.execute(sql, args).fetchall())
        return [record(r) for r in rows]

    async def unsettled(self, profile_id: str | None = None) -> list[LinkRecord]:
        return await self._select(*lists.unsettled(profile_id))

    async def open_records(self, profile_id: str | None = None, mode: str | None = None, *,
                           since: datetime | None = None,
                           limit: int | None = 1000) -> list[LinkRecord]:
        return await self._select(*lists.open_records(profile_id, mode, since, limit))

    async def paid_since(self, since: datetime, profile_id: str | None = None,
                         mode: str | None = None, *, checked_before: datetime | None = None,
                         after: Cursor | None = None, limit: int = 200) -> Page:
        sql, args = lists.paid(since, profile_id, mode, checked_before, after, limit)

        def read(conn: Conn) -> Page:
            rows = conn.execute(sql, args).fetchall()
            records = [record(r) for r in rows[:limit]]
            if not records:
                return Page()
            first, last = rows[0], rows[len(records) - 1]
            return Page(records, Cursor((first["updated_at"], first["id"])),
                        Cursor((last["updated_at"], last["id"])), more=len(rows) > limit)

        return await self._engine.read(read)

    async def count_paid_since(self, since: datetime, profile_id: str | None = None,
                               mode: str | None = None) -> int:
        sql, args = lists.paid_count(since, profile_id, mode)
        return await self._engine.read(lambda conn: _count(conn, sql, args))

    # -- references -----------------------------------------------------------------------

    async def peek_sequence(self, day: date) -> int:
        row = await self._engine.read(lambda conn: conn.execute(
            "SELECT value FROM sequences WHERE day = %s", (day,)).fetchone())
        return (int(row["value"]) if row else 0) + 1

    async def claim_sequence(self, day: date, value: int) -> bool:
        def write(conn: Conn) -> bool:
            # one statement: of two desks claiming the same value, the second waits for the
            # first's row, then finds the value taken (the WHERE sees the committed row)
            row = conn.execute(
                "INSERT INTO sequences (day, value) VALUES (%s, %s) ON CONFLICT (day)"
                " DO UPDATE SET value = excluded.value WHERE sequences.value < excluded.value"
                " RETURNING value", (day, value)).fetchone()
            if row is None:
                return False
            events.emit(conn, self._engine.desk, "sequence", key=day.isoformat())
            return True

        return await self._engine.write(write)


__all__ = ["PostgresLedger"]
