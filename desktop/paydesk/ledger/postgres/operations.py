"""The card wallet's operations (each written before its call) and its append-only audit log
in the shop's shared ledger: the half of ``PostgresCardLedger`` that is not the cards.

Several desks write here at once, so what the file's single writer gave for free is asked of
the database: a second open operation on a card is refused by its partial unique index (at
any desk), and finishing an operation locks its row first, so two desks settling the same
operation finish it once, with one audit line.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from psycopg.rows import DictRow

from ..amounts import card_decimal, card_minor
from ..card_schema import OPEN_OPERATION_STATES, OPERATION_STATES
from ..cards import AuditDraft, AuditEntry, AuditQuery, CardOperation, OperationDraft, OperationUnderWay, mask
from ..errors import LedgerError
from ..owner import this_process
from ..search import like
from . import events
from .engine import Conn, PgEngine


def utc(when: datetime | None) -> datetime | None:
    """A time as the file's ledger gives it: in UTC (the session's zone says nothing)."""
    return None if when is None else when.astimezone(UTC)


def written(when: datetime) -> datetime:
    """A time from a NOT NULL column: never None."""
    return when.astimezone(UTC)


_OPERATION_COLUMNS = ("id, profile_id, mode, kind, card_hash, masked, amount_minor, currency,"
                      " callback_url, state, started_at, finished_at, result, evidence, settled,"
                      " owner")
_OPEN = "state IN (" + ", ".join(f"'{s}'" for s in OPEN_OPERATION_STATES) + ")"


def _operation(row: dict[str, Any]) -> CardOperation:
    return CardOperation(
        id=row["id"], profile_id=row["profile_id"], mode=row["mode"], kind=row["kind"],
        card_hash=row["card_hash"], masked=row["masked"], amount=card_decimal(row["amount_minor"]),
        currency=row["currency"], callback_url=row["callback_url"], state=row["state"],
        started_at=written(row["started_at"]), finished_at=utc(row["finished_at"]),
        result=row["result"], evidence=row["evidence"], settled=bool(row["settled"]),
        owner=row["owner"])


def _must_operation(conn: Conn, operation_id: int, *, lock: bool = False) -> CardOperation:
    """The operation; with ``lock``, its row held until the transaction ends (another desk
    finishing it waits, then sees it finished)."""
    row = conn.execute(f"SELECT {_OPERATION_COLUMNS} FROM card_operations WHERE id = %s"
                       + (" FOR UPDATE" if lock else ""), (operation_id,)).fetchone()
    if row is None:
        raise LedgerError(f"card operation {operation_id} is not in the ledger")
    return _operation(row)


_AUDIT_COLUMNS = ('id, at, "user", profile_id, profile_name, mode, card_hash, masked, action,'
                  " amount_minor, currency, result, detail, operation_id")


def _audit(conn: Conn, desk: str, draft: AuditDraft, operation_id: int | None = None) -> DictRow:
    """Adds one line (and its event); returns it as stored."""
    row = conn.execute(
        'INSERT INTO card_audit (at, "user", profile_id, profile_name, mode, card_hash, masked,'
        " action, amount_minor, currency, result, detail, operation_id)"
        " VALUES (now(), %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
        f" RETURNING {_AUDIT_COLUMNS}",
        (draft.user, draft.profile_id, draft.profile_name, draft.mode, draft.card_hash,
         mask(draft.masked), draft.action, card_minor(draft.amount), draft.currency, draft.result,
         draft.detail, operation_id if operation_id is not None else draft.operation_id)).fetchone()
    if row is None:
        raise LedgerError("the ledger did not say which audit line it added")
    events.emit(conn, desk, "audit", draft.profile_id, draft.mode, str(row["id"]))
    return row


def _audit_entry(row: dict[str, Any]) -> AuditEntry:
    return AuditEntry(
        id=row["id"], at=written(row["at"]), user=row["user"], profile_id=row["profile_id"],
        profile_name=row["profile_name"], mode=row["mode"], card_hash=row["card_hash"],
        masked=row["masked"], action=row["action"], amount=card_decimal(row["amount_minor"]),
        currency=row["currency"], result=row["result"], detail=row["detail"],
        operation_id=row["operation_id"])


def _audit_where(query: AuditQuery) -> tuple[str, list[Any]]:
    where, args = "profile_id = %s AND mode = %s", [query.profile_id, query.mode]
    if query.action:
        where += " AND action = %s"
        args.append(query.action)
    if query.result:
        where += " AND result = %s"
        args.append(query.result)
    term = query.text.strip()
    if term:  # any case, as SQLite's LIKE
        where += (" AND (masked ILIKE %s ESCAPE '\\' OR \"user\" ILIKE %s ESCAPE '\\'"
                  " OR detail ILIKE %s ESCAPE '\\')")
        args += [like(term)] * 3
    return where, args


def _changed(conn: Conn, desk: str, operation: CardOperation) -> None:
    events.emit(conn, desk, "operation", operation.profile_id, operation.mode, str(operation.id))


class PostgresCardOperations:
    """Operations and audit of ``CardLedger`` on a ``PgEngine``; ``PostgresCardLedger`` adds
    the cards and their transactions."""

    _engine: PgEngine

    # -- operations ---------------------------------------------------------------------

    async def begin_operation(self, draft: OperationDraft, audit: AuditDraft) -> CardOperation:
        desk = self._engine.desk

        def write(conn: Conn) -> CardOperation:
            # an open operation of the card (or an open create) makes this one conflict: it
            # waits for the other desk's transaction, then adds nothing
            row = conn.execute(
                "INSERT INTO card_operations (profile_id, mode, kind, card_hash, masked,"
                " amount_minor, currency, callback_url, state, started_at, owner)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, 'sending', now(), %s)"
                " ON CONFLICT DO NOTHING RETURNING id",
                (draft.profile_id, draft.mode, draft.kind, draft.card_hash, mask(draft.masked),
                 card_minor(draft.amount), draft.currency, draft.callback_url,
                 this_process())).fetchone()
            if row is None:
                what = ("Another card creation" if draft.kind == "create"
                        else f"Another operation on card {draft.masked or draft.card_hash}")
                raise OperationUnderWay(what)
            _audit(conn, desk, audit, row["id"])
            operation = _must_operation(conn, row["id"])
            _changed(conn, desk, operation)
            return operation

        return await self._engine.write(write)

    async def finish_operation(self, operation_id: int, state: str, result: str, audit: AuditDraft,
                               *, evidence: str | None = None, card_hash: str | None = None,
                               masked: str | None = None, settled: bool = False,
                               answered: bool = False) -> CardOperation:
        if state not in OPERATION_STATES or state in OPEN_OPERATION_STATES:
            raise ValueError(f"an operation finishes done or not-done, not {state!r}")
        desk = self._engine.desk

        def write(conn: Conn) -> CardOperation:
            before = _must_operation(conn, operation_id, lock=True)
            late = (answered and state == "done" and before.state == "not-done"
                    and before.settled)  # the service's own answer outranks reading back
            if not before.open and not late:
                return before
            conn.execute("UPDATE card_operations SET state = %s, result = %s, finished_at = now(),"
                         " evidence = COALESCE(%s, evidence), card_hash = COALESCE(%s, card_hash),"
                         " masked = COALESCE(%s, masked), settled = %s WHERE id = %s",
                         (state, result, evidence, card_hash,
                          None if masked is None else mask(masked), settled, operation_id))
            _audit(conn, desk, audit, operation_id)
            operation = _must_operation(conn, operation_id)
            _changed(conn, desk, operation)
            return operation

        return await self._engine.write(write)

    async def mark_lost(self, operation_id: int, result: str, audit: AuditDraft) -> CardOperation:
        desk = self._engine.desk

        def write(conn: Conn) -> CardOperation:
            before = _must_operation(conn, operation_id, lock=True)
            if before.state != "sending":
                return before
            conn.execute("UPDATE card_operations SET state = 'lost', result = %s WHERE id = %s",
                         (result, operation_id))
            _audit(conn, desk, audit, operation_id)
            operation = _must_operation(conn, operation_id)
            _changed(conn, desk, operation)
            return operation

        return await self._engine.write(write)

    async def service_words(self, profile_id: str, mode: str, kind: str) -> set[str]:
        rows = await self._engine.read(lambda conn: conn.execute(
            "SELECT DISTINCT t.description FROM card_operations o JOIN card_transactions t"
            " ON t.profile_id = o.profile_id AND t.mode = o.mode AND t.card_hash = o.card_hash"
            " AND t.tx_id = o.evidence WHERE o.profile_id = %s AND o.mode = %s AND o.kind = %s"
            " AND o.state = 'done' AND NOT o.settled AND t.description <> ''",
            (profile_id, mode, kind)).fetchall())
        return {row["description"] for row in rows}

    async def attach_evidence(self, operation_id: int, evidence: str) -> None:
        desk = self._engine.desk

        def write(conn: Conn) -> None:
            row = conn.execute("UPDATE card_operations SET evidence = %s WHERE id = %s"
                               " AND evidence IS NULL RETURNING profile_id, mode",
                               (evidence, operation_id)).fetchone()
            if row is not None:
                events.emit(conn, desk, "operation", row["profile_id"], row["mode"],
                            str(operation_id))

        await self._engine.write(write)

    async def operation(self, operation_id: int) -> CardOperation | None:
        def read(conn: Conn) -> CardOperation | None:
            try:
                return _must_operation(conn, operation_id)
            except LedgerError:
                return None

        return await self._engine.read(read)

    async def open_operations(self, profile_id: str | None = None) -> list[CardOperation]:
        where, args = _OPEN, []
        if profile_id:
            where += " AND profile_id = %s"
            args.append(profile_id)
        rows = await self._engine.read(lambda conn: conn.execute(
            f"SELECT {_OPERATION_COLUMNS} FROM card_operations WHERE {where} ORDER BY id",
            args).fetchall())
        return [_operation(r) for r in rows]

    async def operations(self, profile_id: str, mode: str, card_hash: str | None = None,
                         kinds: Sequence[str] = (), limit: int = 200) -> list[CardOperation]:
        where = "profile_id = %s AND mode = %s"
        args: list[Any] = [profile_id, mode]
        if card_hash is not None:
            where += " AND card_hash = %s"
            args.append(card_hash)
        if kinds:
            where += " AND kind = ANY(%s)"
            args.append(list(kinds))
        rows = await self._engine.read(lambda conn: conn.execute(
            f"SELECT {_OPERATION_COLUMNS} FROM card_operations WHERE {where}"
            " ORDER BY id DESC LIMIT %s", (*args, limit)).fetchall())
        return [_operation(r) for r in rows]

    # -- audit --------------------------------------------------------------------------

    async def append_audit(self, draft: AuditDraft) -> AuditEntry:
        desk = self._engine.desk
        return await self._engine.write(lambda conn: _audit_entry(_audit(conn, desk, draft)))

    async def audit_page(self, query: AuditQuery, before: int | None = None,
                         limit: int = 200) -> tuple[list[AuditEntry], bool]:
        where, args = _audit_where(query)
        if before is not None:
            where += " AND id < %s"
            args.append(before)
        rows = await self._engine.read(lambda conn: conn.execute(
            f"SELECT {_AUDIT_COLUMNS} FROM card_audit WHERE {where} ORDER BY id DESC LIMIT %s",
            (*args, limit + 1)).fetchall())
        return [_audit_entry(r) for r in rows[:limit]], len(rows) > limit

    async def audit_count(self, query: AuditQuery) -> int:
        where, args = _audit_where(query)

        def read(conn: Conn) -> int:
            row = conn.execute(f"SELECT count(*) AS n FROM card_audit WHERE {where}",
                               args).fetchone()
            return int(row["n"]) if row else 0

        return await self._engine.read(read)
