"""The links ledger (``ledger.repository.Ledger``) in SQL, once for both backends: the writes
and the references (the reads and the scheduler's lists are ``link_reads.py``'s, the rows and
their INSERT ``link_rows.py``'s). What each backend keeps to itself is behind a few methods:
its search (``_plan``: SQLite's full-text index, PostgreSQL's trigrams; ``by_reference``;
``_index``/``_unindex``, the SQLite index kept by the ledger's own writes), the day's
summary, ``changes()``, a bulk import, and the poller's fence (a shared ledger's lease).

Every write is one transaction on the engine's writer. Where a write reads what it then
changes (a lookup's result against the record's state), the row is locked first
(``Dialect.lock``): two desks recording the same lookup at once make one row and one
"changed", as two windows do on one file. A change writes its "link" event (key: the
tx_ref; "sequence" for a claimed reference number) in its transaction, unless it changed
nothing a desk shows (a check that said nothing new)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date
from typing import Any

from ...service.models import PaymentLink, PaymentRequest, Transaction
from ..amounts import to_minor
from ..dialect import Conn, Dialect, Row
from ..errors import LedgerError
from ..records import CREATING, PENDING, REJECTED, LinkRecord, may_follow, state_of
from ..repository import DuplicateReference, Fence, Ledger
from .link_reads import E, LinkReads
from .link_rows import COLUMNS, INSERT, news, row_of


class SqlLedger(LinkReads[E], Ledger):
    """The links on ``engine``, in ``dialect``'s SQL."""

    def __init__(self, engine: E, dialect: Dialect):
        super().__init__(engine, dialect)
        # a write hands back the record it wrote (RETURNING): no second round trip to read it
        self._insert = INSERT.replace("{never}", dialect.never).replace("{columns}", dialect.link_columns)
        self._returning = f" RETURNING {dialect.link_columns}"
        self._returning_raw = f" RETURNING {dialect.link_columns}, links.raw"

    # -- what each backend says its own way ----------------------------------------------

    def _fenced(self, conn: Conn, fence: Fence | None) -> None:
        """A poller's write goes on only while it holds its lease (a shared ledger's)."""

    def _index(self, conn: Conn, record_id: int) -> None:
        """The record's text, written or changed, into the backend's search index."""

    def _unindex(self, conn: Conn, record_id: int) -> None:
        """The record's text, about to change, out of the backend's search index."""

    # -- helpers --------------------------------------------------------------------------

    def _emit(self, conn: Conn, done: LinkRecord) -> LinkRecord:
        """The "link" event of a change (in its transaction): the other desks re-read it."""
        self._d.event(conn, "link", done.profile_id, done.mode, done.tx_ref)
        return done

    def _add(self, conn: Conn, row: tuple[Any, ...], now: str, *, raw: bool = False) -> LinkRecord | None:
        """The new record as written (None: one with its reference is there already)."""
        made = self._d.one(conn, self._insert, row, now=now)
        if made is None:
            return None
        self._index(conn, int(made["id"]))
        return self._d.record(made, made["raw"] if raw else None)

    def _changed(self, conn: Conn, made: Row | None, profile_id: str, tx_ref: str) -> LinkRecord:
        """The record an UPDATE … RETURNING wrote (read again if it changed no row)."""
        if made is None:
            return self._must(conn, profile_id, tx_ref)
        return self._d.record(made)

    def _written(self, conn: Conn, update: str, args: Sequence[Any], now: str) -> LinkRecord:
        """The record (with the service's last answer) as ``update`` of its locked row wrote it."""
        made = self._d.one(conn, update + self._returning_raw, args, now=now)
        if made is None:  # its row is locked by this transaction: gone only by a bug
            raise LedgerError(f"record {args[-1]} is not in the ledger")
        return self._d.record(made, made["raw"])

    # -- links --------------------------------------------------------------------------

    async def begin_link(
        self, profile_id: str, mode: str, request: PaymentRequest, *, actor: str | None = None
    ) -> LinkRecord:
        body = request.to_json()
        row = (
            profile_id,
            mode,
            request.tx_ref,
            to_minor(request.amount, request.currency),
            None,
            request.currency,
            request.email,
            request.first_name,
            request.last_name,
            CREATING,
            None,
            None,
            None,
            json.dumps(body.get("customization", {})),
            json.dumps(body.get("meta", {})),
            request.callback_url,
            request.return_url,
            "link",
            None,
            None,
            False,
            None,
            None,
            actor,
        )
        now = self._d.now()  # when it was asked (the file's clock; the server's is its own)

        def write(conn: Conn) -> LinkRecord:
            made = self._add(conn, row, now)
            if made is None:
                raise DuplicateReference(request.tx_ref)
            return self._emit(conn, made)

        return await self._engine.write(write)

    async def complete_link(self, profile_id: str, link: PaymentLink) -> LinkRecord:
        reference = link.checkout_url.rstrip("/").rsplit("/", 1)[-1] if link.checkout_url else None

        def write(conn: Conn) -> LinkRecord:
            before = self._must(conn, profile_id, link.tx_ref)
            named = before.reference is None and bool(reference)
            if named:
                self._unindex(conn, before.id)
            made = self._d.one(
                conn,
                "UPDATE links SET state = CASE WHEN state = ? THEN ? ELSE state"
                " END, checkout_url = COALESCE(?, checkout_url), error = NULL,"
                " updated_at = {now}, reference = COALESCE(reference, ?) WHERE id = ?" + self._returning,
                (CREATING, PENDING, link.checkout_url, reference or None, before.id),
            )
            if named:
                self._index(conn, before.id)
            return self._emit(conn, self._changed(conn, made, profile_id, link.tx_ref))

        return await self._engine.write(write)

    async def reject_link(self, profile_id: str, tx_ref: str, reason: str) -> LinkRecord:
        def write(conn: Conn) -> LinkRecord:
            made = self._d.one(
                conn,
                "UPDATE links SET state = ?, error = ?, updated_at = {now}"
                " WHERE profile_id = ? AND tx_ref = ? AND state = ?" + self._returning,
                (REJECTED, reason, profile_id, tx_ref, CREATING),
            )
            return self._emit(conn, self._changed(conn, made, profile_id, tx_ref))

        return await self._engine.write(write)

    async def note_error(self, profile_id: str, tx_ref: str, reason: str) -> LinkRecord:
        def write(conn: Conn) -> LinkRecord:
            made = self._d.one(
                conn,
                "UPDATE links SET error = ? WHERE profile_id = ? AND tx_ref = ?" + self._returning,
                (reason, profile_id, tx_ref),
            )
            return self._emit(conn, self._changed(conn, made, profile_id, tx_ref))

        return await self._engine.write(write)

    async def record_lookup(
        self, profile_id: str, mode: str, tx: Transaction, *, fence: Fence | None = None, learned_by: str = "check"
    ) -> tuple[LinkRecord, bool]:
        raw = json.dumps(tx.raw, default=str) if tx.raw else None
        state = state_of(tx.status)
        state_raw = None if tx.status.value == tx.status_raw.strip().lower() else tx.status_raw
        currency = tx.currency or ""
        fee = None if tx.charge is None else to_minor(tx.charge, currency)
        created = self._d.time(tx.created_at) if tx.created_at else None
        new = (
            profile_id,
            mode,
            tx.tx_ref,
            to_minor(tx.amount or 0, currency),
            fee,
            currency,
            tx.email or "",
            tx.first_name or "",
            tx.last_name or "",
            state,
            state_raw,
            None,
            tx.reference,
            json.dumps(tx.customization),
            json.dumps(tx.meta),
            None,
            None,
            "lookup",
            None,
            created,
            True,
            raw,
            learned_by,
            None,  # PayDesk's own lookup: nobody's write
        )
        now = self._d.now()  # when it was answered: one moment for the whole write

        def write(conn: Conn) -> tuple[LinkRecord, bool]:
            self._fenced(conn, fence)  # the poller's check: only while it holds the lease
            before = self._one(conn, profile_id, tx.tx_ref, lock=True)
            if before is None:
                added = self._add(conn, new, now, raw=True)
                if added is not None:
                    return self._emit(conn, added), True
                # another desk added it since: what it holds now is what this lookup follows
                before = self._one(conn, profile_id, tx.tx_ref, lock=True)
                if before is None:
                    raise LedgerError(f"{tx.tx_ref} is not in the ledger")
            if not may_follow(before.state, state):
                # a final state stays (records.may_follow): what the service said is noted
                # beside it, and the record is not moved
                said = tx.status_raw.strip() or state
                kept = self._written(
                    conn,
                    "UPDATE links SET checked_at = {now}, error = ? WHERE id = ?",
                    (f"The service now says {said!r}; PayDesk keeps its final state {before.state!r}", before.id),
                    now,
                )
                return (self._emit(conn, kept) if news(before, kept) else kept), False
            # updated_at and learned_by move only with the state (the right-hand sides read
            # the row as it was)
            unchanged = "state = ? AND state_raw IS NOT DISTINCT FROM ?"
            sets = [
                "state = ?",
                "state_raw = ?",
                "checked_at = {now}",
                f"updated_at = CASE WHEN {unchanged} THEN updated_at ELSE {{now}} END",
                f"learned_by = CASE WHEN {unchanged} THEN learned_by ELSE ? END",
                "error = NULL",
                "fee_minor = COALESCE(?, fee_minor)",
                "raw = COALESCE(?, raw)",
            ]
            args: list[Any] = [state, state_raw, state, state_raw, state, state_raw, learned_by, fee, raw]
            text = False
            if before.origin == "lookup" and not before.currency and tx.amount is not None and tx.currency:
                # a payment made elsewhere, first seen with no details (the family's answer
                # for an unpaid one): fill them in once the service tells them
                sets += [
                    "amount_minor = ?",
                    "currency = ?",
                    "email = ?",
                    "first_name = ?",
                    "last_name = ?",
                    "customization = ?",
                    "meta = ?",
                    "created_at = COALESCE(?, created_at)",
                ]
                args += [
                    to_minor(tx.amount, tx.currency),
                    tx.currency,
                    tx.email or "",
                    tx.first_name or "",
                    tx.last_name or "",
                    json.dumps(tx.customization),
                    json.dumps(tx.meta),
                    created,
                ]
                text = True
            if tx.reference and tx.reference != before.reference:
                sets.append("reference = ?")
                args.append(tx.reference)
                text = True
            if text:
                self._unindex(conn, before.id)
            after = self._written(conn, f"UPDATE links SET {', '.join(sets)} WHERE id = ?", (*args, before.id), now)
            if text:
                self._index(conn, before.id)
            if news(before, after):
                self._emit(conn, after)
            return after, (after.state, after.state_raw) != (before.state, before.state_raw)

        return await self._engine.write(write)

    async def touch(self, profile_id: str, tx_ref: str, *, fence: Fence | None = None) -> None:
        now = self._d.now()

        def write(conn: Conn) -> None:
            self._fenced(conn, fence)
            # a check that said nothing new is no news for the other desks (they read
            # checked_at with the record next time): no event
            self._d.run(
                conn,
                "UPDATE links SET checked_at = {now} WHERE profile_id = ? AND tx_ref = ?",
                (profile_id, tx_ref),
                now=now,
            )

        await self._engine.write(write)

    # -- references -----------------------------------------------------------------------

    async def peek_sequence(self, day: date) -> int:
        row = await self._engine.read(
            lambda conn: self._d.one(conn, "SELECT value FROM sequences WHERE day = ?", (self._day(day),))
        )
        return (int(row["value"]) if row else 0) + 1

    async def claim_sequence(self, day: date, value: int) -> bool:
        def write(conn: Conn) -> bool:
            # one statement: of two desks claiming the same value, the second waits for the
            # first's row, then finds the value taken (the WHERE sees the committed row)
            row = self._d.one(
                conn,
                "INSERT INTO sequences (day, value) VALUES (?, ?) ON CONFLICT (day)"
                " DO UPDATE SET value = excluded.value WHERE sequences.value < excluded.value"
                " RETURNING value",
                (self._day(day), value),
            )
            if row is None:
                return False
            self._d.event(conn, "sequence", key=day.isoformat())
            return True

        return await self._engine.write(write)

    async def take_sequence(self, day: date) -> int:
        def write(conn: Conn) -> int:
            # one statement: a second desk taking at once waits for the first's row, then
            # counts on from the value it committed
            row = self._d.one(
                conn,
                "INSERT INTO sequences (day, value) VALUES (?, 1) ON CONFLICT (day)"
                " DO UPDATE SET value = sequences.value + 1 RETURNING value",
                (self._day(day),),
            )
            if row is None:  # (an upsert's RETURNING has its row: never seen)
                raise LedgerError("The day's reference number could not be taken")
            self._d.event(conn, "sequence", key=day.isoformat())
            return int(row["value"])

        return await self._engine.write(write)


__all__ = ["COLUMNS", "SqlLedger", "news", "row_of"]
