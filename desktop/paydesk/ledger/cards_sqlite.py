"""The card wallet in the ledger's SQLite file, on the same threads (``Engine``) as the links."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from decimal import Decimal
from typing import Any, Sequence

from ..service.models import CardTransaction, VirtualCard
from .amounts import from_minor, to_minor
from .card_schema import OPEN_OPERATION_STATES, OPERATION_STATES
from .cards import (AuditDraft, AuditEntry, AuditQuery, CardLedger, CardOperation, CardPage,
                    CardQuery, CardRecord, CardTxRecord, OperationDraft, OperationUnderWay, mask,
                    transaction_id)
from .owner import this_process
from .engine import Engine, LedgerError
from .records import parse_stamp, stamp
from .sqlite import SqliteLedger

# The service writes card amounts with two decimals whatever the currency: hundredths.
_SCALE = ""


def _minor(value: Decimal | None) -> int | None:
    return None if value is None else to_minor(value, _SCALE)


def _decimal(value: int | None) -> Decimal | None:
    return None if value is None else from_minor(value, _SCALE)


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _search_term(text: str) -> str:
    """What the user typed, as the search column holds it: lower case; a number typed in
    groups ("4242 42") without its spaces."""
    term = text.strip().lower()
    if term.replace(" ", "").replace("*", "").isdigit():
        term = term.replace(" ", "")
    return term


_CARD_COLUMNS = ("card_hash, profile_id, mode, masked, name_on_card, currency_code,"
                 " balance_minor, amount_minor, charge_minor, paid_minor, state, expiration,"
                 " card_type, callback, created_at, seen_at, listed")

_UPSERT_CARD = (
    f"INSERT INTO cards ({_CARD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)"
    " ON CONFLICT (profile_id, mode, card_hash) DO UPDATE SET"
    " masked = CASE WHEN excluded.masked = '' THEN masked ELSE excluded.masked END,"
    " name_on_card = CASE WHEN excluded.name_on_card = '' THEN name_on_card"
    " ELSE excluded.name_on_card END,"
    " currency_code = COALESCE(excluded.currency_code, currency_code),"
    " balance_minor = COALESCE(excluded.balance_minor, balance_minor),"
    " amount_minor = COALESCE(excluded.amount_minor, amount_minor),"
    " charge_minor = COALESCE(excluded.charge_minor, charge_minor),"
    " paid_minor = COALESCE(excluded.paid_minor, paid_minor),"
    " state = COALESCE(excluded.state, state),"
    " expiration = COALESCE(excluded.expiration, expiration),"
    " card_type = COALESCE(excluded.card_type, card_type),"
    " callback = COALESCE(excluded.callback, callback),"
    " created_at = CASE WHEN excluded.created_at = '' THEN created_at ELSE excluded.created_at END,"
    " seen_at = excluded.seen_at, listed = 1")


def _card_row(profile_id: str, mode: str, card: VirtualCard, now: str) -> tuple:
    # card_pan and cvv are read here only to be left out: the masked form is all that is kept
    return (card.card_hash, profile_id, mode, mask(card.masked_card, card.card_pan),
            card.name_on_card or "", card.currency_code, _minor(card.balance),
            _minor(card.amount), _minor(card.charge), _minor(card.paid), card.status_raw,
            card.expiration, card.card_type, card.callback,
            stamp(card.created_at) if card.created_at else "", now)


def _card(row: sqlite3.Row) -> CardRecord:
    return CardRecord(
        profile_id=row["profile_id"], mode=row["mode"], card_hash=row["card_hash"],
        masked=row["masked"], name_on_card=row["name_on_card"],
        currency_code=row["currency_code"], balance=_decimal(row["balance_minor"]),
        state=row["state"], expiration=row["expiration"],
        created_at=parse_stamp(row["created_at"]), seen_at=parse_stamp(row["seen_at"]),
        amount=_decimal(row["amount_minor"]), charge=_decimal(row["charge_minor"]),
        paid=_decimal(row["paid_minor"]), card_type=row["card_type"], callback=row["callback"],
        listed=bool(row["listed"]))


def _one_card(db: sqlite3.Connection, profile_id: str, mode: str, card_hash: str):
    row = db.execute(f"SELECT {_CARD_COLUMNS} FROM cards WHERE profile_id = ? AND mode = ?"
                     " AND card_hash = ?", (profile_id, mode, card_hash)).fetchone()
    return None if row is None else _card(row)


def _card_where(query: CardQuery) -> tuple[str, list[Any]]:
    where, args = "profile_id = ? AND mode = ?", [query.profile_id, query.mode]
    if query.states:
        where += f" AND state IN ({', '.join('?' for _ in query.states)})"
        args += sorted(query.states)
    term = _search_term(query.text)
    if term:
        where += " AND search_text LIKE ? ESCAPE '\\'"
        args.append(_like(term))
    return where, args


_OPERATION_COLUMNS = ("id, profile_id, mode, kind, card_hash, masked, amount_minor, currency,"
                      " callback_url, state, started_at, finished_at, result, evidence, settled,"
                      " owner")


def _operation(row: sqlite3.Row) -> CardOperation:
    return CardOperation(
        id=row["id"], profile_id=row["profile_id"], mode=row["mode"], kind=row["kind"],
        card_hash=row["card_hash"], masked=row["masked"], amount=_decimal(row["amount_minor"]),
        currency=row["currency"], callback_url=row["callback_url"], state=row["state"],
        started_at=parse_stamp(row["started_at"]), finished_at=parse_stamp(row["finished_at"]),
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
         mask(draft.masked), draft.action, _minor(draft.amount), draft.currency, draft.result,
         draft.detail, operation_id if operation_id is not None else draft.operation_id))
    return cursor.lastrowid


def _audit_entry(row: sqlite3.Row) -> AuditEntry:
    return AuditEntry(
        id=row["id"], at=parse_stamp(row["at"]), user=row["user"], profile_id=row["profile_id"],
        profile_name=row["profile_name"], mode=row["mode"], card_hash=row["card_hash"],
        masked=row["masked"], action=row["action"], amount=_decimal(row["amount_minor"]),
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
        args += [_like(term)] * 3
    return where, args


class SqliteCardLedger(CardLedger):
    """``SqliteCardLedger.beside(ledger)``: the wallet in the same file, on the same threads
    (one writer, so card and link writes never contend with each other)."""

    def __init__(self, engine: Engine):
        self._engine = engine

    @classmethod
    def beside(cls, ledger: SqliteLedger) -> "SqliteCardLedger":
        return cls(ledger._engine)  # noqa: SLF001 - one package, one file

    # -- cards --------------------------------------------------------------------------

    async def store_cards(self, profile_id: str, mode: str,
                          cards: Sequence[VirtualCard]) -> list[str]:
        now = stamp()

        def write(db: sqlite3.Connection) -> list[str]:  # the rows are made here, off the loop
            db.executemany(_UPSERT_CARD, [_card_row(profile_id, mode, c, now) for c in cards])
            gone = [r[0] for r in db.execute(
                "SELECT card_hash FROM cards WHERE profile_id = ? AND mode = ? AND listed = 1"
                " AND seen_at < ?", (profile_id, mode, now))]
            db.execute("UPDATE cards SET listed = 0 WHERE profile_id = ? AND mode = ?"
                       " AND seen_at < ?", (profile_id, mode, now))
            db.execute("INSERT INTO card_lists (profile_id, mode, refreshed_at) VALUES (?, ?, ?)"
                       " ON CONFLICT (profile_id, mode) DO UPDATE SET"
                       " refreshed_at = excluded.refreshed_at", (profile_id, mode, now))
            return gone

        return await self._engine.write(write)

    async def store_card(self, profile_id: str, mode: str, card: VirtualCard) -> CardRecord:
        row = _card_row(profile_id, mode, card, stamp())

        def write(db: sqlite3.Connection) -> CardRecord:
            before = _one_card(db, profile_id, mode, card.card_hash)
            db.execute(_UPSERT_CARD, row)
            if before is not None and not before.listed:  # the list still does not show it
                db.execute("UPDATE cards SET listed = 0 WHERE profile_id = ? AND mode = ?"
                           " AND card_hash = ?", (profile_id, mode, card.card_hash))
            return _one_card(db, profile_id, mode, card.card_hash)

        return await self._engine.write(write)

    async def note_state(self, profile_id: str, mode: str, card_hash: str,
                         state: int) -> CardRecord | None:
        def write(db: sqlite3.Connection) -> CardRecord | None:
            db.execute("UPDATE cards SET state = ?, balance_minor = CASE WHEN ? = 0 THEN 0"
                       " ELSE balance_minor END WHERE profile_id = ? AND mode = ?"
                       " AND card_hash = ?", (state, state, profile_id, mode, card_hash))
            return _one_card(db, profile_id, mode, card_hash)

        return await self._engine.write(write)

    async def card(self, profile_id: str, mode: str, card_hash: str) -> CardRecord | None:
        return await self._engine.read(lambda db: _one_card(db, profile_id, mode, card_hash))

    async def card_page(self, query: CardQuery, after: tuple[str, str] | None = None,
                        limit: int = 100) -> CardPage:
        where, args = _card_where(query)
        if after is not None:
            where += " AND (created_at, card_hash) < (?, ?)"
            args += list(after)
        sql = (f"SELECT {_CARD_COLUMNS} FROM cards WHERE {where}"
               " ORDER BY created_at DESC, card_hash DESC LIMIT ?")

        def read(db: sqlite3.Connection) -> CardPage:
            rows = db.execute(sql, (*args, limit + 1)).fetchall()
            records = [_card(r) for r in rows[:limit]]
            end = (rows[limit - 1]["created_at"], rows[limit - 1]["card_hash"]) \
                if len(rows) > limit else None
            return CardPage(records, end, len(rows) > limit)

        return await self._engine.read(read)

    async def card_count(self, query: CardQuery) -> int:
        where, args = _card_where(query)
        return await self._engine.read(lambda db: db.execute(
            f"SELECT count(*) FROM cards WHERE {where}", args).fetchone()[0])

    async def refreshed_at(self, profile_id: str, mode: str) -> datetime | None:
        row = await self._engine.read(lambda db: db.execute(
            "SELECT refreshed_at FROM card_lists WHERE profile_id = ? AND mode = ?",
            (profile_id, mode)).fetchone())
        return parse_stamp(row["refreshed_at"]) if row else None

    async def store_transactions(self, profile_id: str, mode: str, card_hash: str,
                                 transactions: Sequence[CardTransaction]) -> None:
        now = stamp()
        rows = [(profile_id, mode, card_hash, transaction_id(t), t.type or "", _minor(t.amount),
                 t.description or "", t.status, stamp(t.created_at) if t.created_at else "", now)
                for t in transactions]
        await self._engine.write(lambda db: db.executemany(
            "INSERT INTO card_transactions (profile_id, mode, card_hash, tx_id, type,"
            " amount_minor, description, status, created_at, first_seen)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT DO UPDATE SET type = excluded.type, amount_minor = excluded.amount_minor,"
            " description = excluded.description, status = excluded.status,"
            " created_at = excluded.created_at", rows))

    async def transactions(self, profile_id: str, mode: str, card_hash: str,
                           limit: int = 500) -> list[CardTxRecord]:
        rows = await self._engine.read(lambda db: db.execute(
            "SELECT tx_id, type, amount_minor, description, status, created_at, first_seen"
            " FROM card_transactions WHERE profile_id = ? AND mode = ? AND card_hash = ?"
            " ORDER BY created_at DESC, tx_id DESC LIMIT ?",
            (profile_id, mode, card_hash, limit)).fetchall())
        return [CardTxRecord(r["tx_id"], r["type"], _decimal(r["amount_minor"]), r["description"],
                             r["status"], parse_stamp(r["created_at"]),
                             parse_stamp(r["first_seen"])) for r in rows]

    # -- operations ---------------------------------------------------------------------

    async def begin_operation(self, draft: OperationDraft, audit: AuditDraft) -> CardOperation:
        def write(db: sqlite3.Connection) -> CardOperation:
            try:
                cursor = db.execute(
                    "INSERT INTO card_operations (profile_id, mode, kind, card_hash, masked,"
                    " amount_minor, currency, callback_url, state, started_at, owner)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'sending', ?, ?)",
                    (draft.profile_id, draft.mode, draft.kind, draft.card_hash,
                     mask(draft.masked), _minor(draft.amount), draft.currency,
                     draft.callback_url, stamp(), this_process()))
            except sqlite3.IntegrityError as error:
                if "UNIQUE" not in str(error):
                    raise
                what = ("Another card creation" if draft.kind == "create"
                        else f"Another operation on card {draft.masked or draft.card_hash}")
                raise OperationUnderWay(what) from None
            _audit(db, audit, cursor.lastrowid)
            return _must_operation(db, cursor.lastrowid)

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
