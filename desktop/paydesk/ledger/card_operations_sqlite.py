"""The card wallet's operations (each written before its call) and its append-only audit log,
in the ledger's SQLite file: the half of ``SqliteCardLedger`` that is not the cards."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from .amounts import card_decimal, card_minor
from .card_schema import OPEN_OPERATION_STATES, OPERATION_STATES
from .cards import AuditDraft, AuditEntry, AuditQuery, CardOperation, OperationDraft, OperationUnderWay, mask
from .errors import LedgerError
from .owner import this_process
from .records import parse_stamp, parse_written, stamp
from .search import like
from .sqlite.engine import Engine


def _inserted(cursor: sqlite3.Cursor) -> int:
    """The id of the row an INSERT just added (sqlite3 says None only for other statements)."""
    if cursor.lastrowid is None:
        raise LedgerError("the ledger did not say which row it added")
    return cursor.lastrowid


_OPERATION_COLUMNS = ("id, profile_id, mode, kind, card_hash, masked, amount_minor, currency,"
                      " callback_url, state, started_at, finished_at, result, evidence, settled,"
                      " owner")


def _operation(row: sqlite3.Row) -> CardOperation:
    return CardOperation(
        id=row["id"], profile_id=row["profile_id"], mode=row["mode"], kind=row["kind"],
        card_hash=row["card_hash"], masked=row["masked"], amount=card_decimal(row["amount_minor"]),
        currency=row["currency"], callback_url=row["callback_url"], state=row["state"],
        started_at=parse_written(row["started_at"]), finished_at=parse_stamp(row["finished_at"]),
        result=row["result"], evidence=row["evidence"], settled=bool(row["settled"]),
        owner=row["owner"])


def _must_operation(db: sqlite3.Connection, operation_id: int) -> CardOperation:
    row = db.execute(f"SELECT {_OPERATION_COLUMNS} FROM card_operations WHERE id = ?",
                     (operation_id,)).fetchone()
    if row is None:
        raise LedgerError(f"card operation {operation_id} is not in the ledger")
    return _operation(row)


_AUDIT_COLUMNS = ("id, at, user, profile_id, profile_name, mode, card_hash, masked, action,"
                  " amount_minor, currency, result, detail, operation_id")


def _audit(db: sqlite3.Connection, draft: AuditDraft, operation_id: int | None = None) -> int:
    cursor = db.execute(
        "INSERT INTO card_audit (at, user, profile_id, profile_name, mode, card_hash, masked,"
        " action, amount_minor, currency, result, detail, operation_id)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (stamp(), draft.user, draft.profile_id, draft.profile_name, draft.mode, draft.card_hash,
         mask(draft.masked), draft.action, card_minor(draft.amount), draft.currency, draft.result,
         draft.detail, operation_id if operation_id is not None else draft.operation_id))
    return _inserted(cursor)


def _audit_entry(row: sqlite3.Row) -> AuditEntry:
    return AuditEntry(
        id=row["id"], at=parse_written(row["at"]), user=row["user"], profile_id=row["profile_id"],
        profile_name=row["profile_name"], mode=row["mode"], card_hash=row["card_hash"],
        masked=row["masked"], action=row["action"], amount=card_decimal(row["amount_minor"]),
        currency=row["currency"], result=row["result"], detail=row["detail"],
        operation_id=row["operation_id"])


def _audit_where(query: AuditQuery) -> tuple[str, list[Any]]:
    where, args = "profile_id = ? AND mode = ?", [query.profile_id, query.mode]
    if query.action:
        where += " AND action = ?"
        args.append(query.action)
    if query.result:
        where += " AND result = ?"
        args.append(query.result)
    term = query.text.strip()
    if term:
        where += (" AND (masked LIKE ? ESCAPE '\\' OR user LIKE ? ESCAPE '\\'"
                  " OR detail LIKE ? ESCAPE '\\')")
        args += [like(term)] * 3
    return where, args


class SqliteCardOperations:
    """Operations and audit of ``CardLedger`` on an ``Engine``; ``SqliteCardLedger`` adds the
    cards and their transactions."""

    _engine: Engine

    # -- operations ---------------------------------------------------------------------

    async def begin_operation(self, draft: OperationDraft, audit: AuditDraft) -> CardOperation:
        def write(db: sqlite3.Connection) -> CardOperation:
            try:
                cursor = db.execute(
                    "INSERT INTO card_operations (profile_id, mode, kind, card_hash, masked,"
                    " amount_minor, currency, callback_url, state, started_at, owner)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'sending', ?, ?)",
                    (draft.profile_id, draft.mode, draft.kind, draft.card_hash,
                     mask(draft.masked), card_minor(draft.amount), draft.currency,
                     draft.callback_url, stamp(), this_process()))
            except sqlite3.IntegrityError as error:
                if "UNIQUE" not in str(error):
                    raise
                what = ("Another card creation" if draft.kind == "create"
                        else f"Another operation on card {draft.masked or draft.card_hash}")
                raise OperationUnderWay(what) from None
            operation_id = _inserted(cursor)
            _audit(db, audit, operation_id)
            return _must_operation(db, operation_id)

        return await self._engine.write(write)

    async def finish_operation(self, operation_id: int, state: str, result: str, audit: AuditDraft,
                               *, evidence: str | None = None, card_hash: str | None = None,
                               masked: str | None = None, settled: bool = False,
                               answered: bool = False) -> CardOperation:
        if state not in OPERATION_STATES or state in OPEN_OPERATION_STATES:
            raise ValueError(f"an operation finishes done or not-done, not {state!r}")

        def write(db: sqlite3.Connection) -> CardOperation:
            before = _must_operation(db, operation_id)
            late = (answered and state == "done" and before.state == "not-done"
                    and before.settled)  # the service's own answer outranks reading back
            if not before.open and not late:
                return before
            db.execute("UPDATE card_operations SET state = ?, result = ?, finished_at = ?,"
                       " evidence = COALESCE(?, evidence), card_hash = COALESCE(?, card_hash),"
                       " masked = COALESCE(?, masked), settled = ? WHERE id = ?",
                       (state, result, stamp(), evidence, card_hash,
                        None if masked is None else mask(masked), int(settled), operation_id))
            _audit(db, audit, operation_id)
            return _must_operation(db, operation_id)

        return await self._engine.write(write)

    async def mark_lost(self, operation_id: int, result: str, audit: AuditDraft) -> CardOperation:
        def write(db: sqlite3.Connection) -> CardOperation:
            before = _must_operation(db, operation_id)
            if before.state != "sending":
                return before
            db.execute("UPDATE card_operations SET state = 'lost', result = ? WHERE id = ?",
                       (result, operation_id))
            _audit(db, audit, operation_id)
            return _must_operation(db, operation_id)

        return await self._engine.write(write)

    async def service_words(self, profile_id: str, mode: str, kind: str) -> set[str]:
        rows = await self._engine.read(lambda db: db.execute(
            "SELECT DISTINCT t.description FROM card_operations o JOIN card_transactions t"
            " ON t.profile_id = o.profile_id AND t.mode = o.mode AND t.card_hash = o.card_hash"
            " AND t.tx_id = o.evidence WHERE o.profile_id = ? AND o.mode = ? AND o.kind = ?"
            " AND o.state = 'done' AND o.settled = 0 AND t.description != ''",
            (profile_id, mode, kind)).fetchall())
        return {row[0] for row in rows}

    async def attach_evidence(self, operation_id: int, evidence: str) -> None:
        await self._engine.write(lambda db: db.execute(
            "UPDATE card_operations SET evidence = ? WHERE id = ? AND evidence IS NULL",
            (evidence, operation_id)))

    async def operation(self, operation_id: int) -> CardOperation | None:
        def read(db: sqlite3.Connection) -> CardOperation | None:
            try:
                return _must_operation(db, operation_id)
            except LedgerError:
                return None

        return await self._engine.read(read)

    async def open_operations(self, profile_id: str | None = None) -> list[CardOperation]:
        where, args = "state IN ('sending', 'lost')", []
        if profile_id:
            where += " AND profile_id = ?"
            args.append(profile_id)
        rows = await self._engine.read(lambda db: db.execute(
            f"SELECT {_OPERATION_COLUMNS} FROM card_operations WHERE {where} ORDER BY id",
            args).fetchall())
        return [_operation(r) for r in rows]

    async def operations(self, profile_id: str, mode: str, card_hash: str | None = None,
                         kinds: Sequence[str] = (), limit: int = 200) -> list[CardOperation]:
        where, args = "profile_id = ? AND mode = ?", [profile_id, mode]
        if card_hash is not None:
            where += " AND card_hash = ?"
            args.append(card_hash)
        if kinds:
            where += f" AND kind IN ({', '.join('?' for _ in kinds)})"
            args += list(kinds)
        rows = await self._engine.read(lambda db: db.execute(
            f"SELECT {_OPERATION_COLUMNS} FROM card_operations WHERE {where}"
            " ORDER BY id DESC LIMIT ?", (*args, limit)).fetchall())
        return [_operation(r) for r in rows]

    # -- audit --------------------------------------------------------------------------

    async def append_audit(self, draft: AuditDraft) -> AuditEntry:
        def write(db: sqlite3.Connection) -> AuditEntry:
            entry_id = _audit(db, draft)
            return _audit_entry(db.execute(f"SELECT {_AUDIT_COLUMNS} FROM card_audit"
                                           " WHERE id = ?", (entry_id,)).fetchone())

        return await self._engine.write(write)

    async def audit_page(self, query: AuditQuery, before: int | None = None,
                         limit: int = 200) -> tuple[list[AuditEntry], bool]:
        where, args = _audit_where(query)
        if before is not None:
            where += " AND id < ?"
            args.append(before)
        rows = await self._engine.read(lambda db: db.execute(
            f"SELECT {_AUDIT_COLUMNS} FROM card_audit WHERE {where} ORDER BY id DESC LIMIT ?",
            (*args, limit + 1)).fetchall())
        return [_audit_entry(r) for r in rows[:limit]], len(rows) > limit

    async def audit_count(self, query: AuditQuery) -> int:
        where, args = _audit_where(query)
        return await self._engine.read(lambda db: db.execute(
            f"SELECT count(*) FROM card_audit WHERE {where}", args).fetchone()[0])
