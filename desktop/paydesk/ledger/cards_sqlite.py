"""The card wallet in the ledger's SQLite file, on the same threads (``Engine``) as the links:
the cards and their transactions here, operations and audit in ``card_operations_sqlite``."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..service.models import CardTransaction, VirtualCard
from .amounts import card_decimal, card_minor
from .card_operations_sqlite import SqliteCardOperations
from .cards import CardLedger, CardPage, CardQuery, CardRecord, CardTxRecord, mask, transaction_id
from .errors import LedgerError
from .records import parse_stamp, parse_written, stamp
from .search import like
from .sqlite import SqliteLedger
from .sqlite.engine import Engine


def search_term(text: str) -> str:
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
            card.name_on_card or "", card.currency_code, card_minor(card.balance),
            card_minor(card.amount), card_minor(card.charge), card_minor(card.paid),
            card.status_raw, card.expiration, card.card_type, card.callback,
            stamp(card.created_at) if card.created_at else "", now)


def _card(row: sqlite3.Row) -> CardRecord:
    return CardRecord(
        profile_id=row["profile_id"], mode=row["mode"], card_hash=row["card_hash"],
        masked=row["masked"], name_on_card=row["name_on_card"],
        currency_code=row["currency_code"], balance=card_decimal(row["balance_minor"]),
        state=row["state"], expiration=row["expiration"],
        created_at=parse_stamp(row["created_at"]), seen_at=parse_written(row["seen_at"]),
        amount=card_decimal(row["amount_minor"]), charge=card_decimal(row["charge_minor"]),
        paid=card_decimal(row["paid_minor"]), card_type=row["card_type"], callback=row["callback"],
        listed=bool(row["listed"]))


def _one_card(db: sqlite3.Connection, profile_id: str, mode: str,
              card_hash: str) -> CardRecord | None:
    row = db.execute(f"SELECT {_CARD_COLUMNS} FROM cards WHERE profile_id = ? AND mode = ?"
                     " AND card_hash = ?", (profile_id, mode, card_hash)).fetchone()
    return None if row is None else _card(row)


def _must_card(db: sqlite3.Connection, profile_id: str, mode: str, card_hash: str) -> CardRecord:
    found = _one_card(db, profile_id, mode, card_hash)
    if found is None:
        raise LedgerError(f"card {card_hash} is not in the ledger")
    return found


def _card_where(query: CardQuery) -> tuple[str, list[Any]]:
    where = "profile_id = ? AND mode = ?"
    args: list[Any] = [query.profile_id, query.mode]
    if query.states:
        where += f" AND state IN ({', '.join('?' for _ in query.states)})"
        args += sorted(query.states)
    term = search_term(query.text)
    if term:
        where += " AND search_text LIKE ? ESCAPE '\\'"
        args.append(like(term))
    return where, args


class SqliteCardLedger(SqliteCardOperations, CardLedger):
    """``SqliteCardLedger.beside(ledger)``: the wallet in the same file, on the same threads
    (one writer, so card and link writes never contend with each other). Operations and
    audit come from ``SqliteCardOperations``."""

    def __init__(self, engine: Engine):
        self._engine = engine

    @classmethod
    def beside(cls, ledger: SqliteLedger) -> SqliteCardLedger:
        return cls(ledger._engine)  # one package, one file

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
            return _must_card(db, profile_id, mode, card.card_hash)  # written just above

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
        rows = [(profile_id, mode, card_hash, transaction_id(t), t.type or "", card_minor(t.amount),
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
        return [CardTxRecord(r["tx_id"], r["type"], card_decimal(r["amount_minor"]),
                             r["description"], r["status"], parse_stamp(r["created_at"]),
                             parse_written(r["first_seen"])) for r in rows]
