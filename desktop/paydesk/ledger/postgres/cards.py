"""The card wallet in the shop's shared ledger (PostgreSQL): the cards and their transactions
here, operations and audit in ``operations``. The same results as ``SqliteCardLedger`` for
every method; every write also writes its event (``events.emit``) in its transaction, so
the shop's other desks hear of it.

Times written here are the server's (``now()``), so desks whose clocks disagree still agree
on which cards a list no longer shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from ...service.models import CardTransaction, VirtualCard
from ..amounts import card_decimal, card_minor
from ..cards import CardLedger, CardPage, CardQuery, CardRecord, CardTxRecord, mask, transaction_id
from ..cards_sqlite import search_term
from ..errors import LedgerError
from ..records import stamp
from ..search import like
from . import events
from .engine import Conn, PgEngine
from .operations import PostgresCardOperations, utc, written

_CARD_COLUMNS = ("card_hash, profile_id, mode, masked, name_on_card, currency_code,"
                 " balance_minor, amount_minor, charge_minor, paid_minor, state, expiration,"
                 " card_type, callback, created_at, seen_at, listed")
# an unknown creation time is stored as -infinity (it sorts last, newest first) and read as NULL
_CARD_SELECT = _CARD_COLUMNS.replace("created_at", "NULLIF(created_at, '-infinity') AS created_at")

_UPSERT_CARD = (
    f"INSERT INTO cards ({_CARD_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
    " %s, %s, %s, COALESCE(%s, '-infinity'::timestamptz), now(), true)"
    " ON CONFLICT (profile_id, mode, card_hash) DO UPDATE SET"
    " masked = CASE WHEN excluded.masked = '' THEN cards.masked ELSE excluded.masked END,"
    " name_on_card = CASE WHEN excluded.name_on_card = '' THEN cards.name_on_card"
    " ELSE excluded.name_on_card END,"
    " currency_code = COALESCE(excluded.currency_code, cards.currency_code),"
    " balance_minor = COALESCE(excluded.balance_minor, cards.balance_minor),"
    " amount_minor = COALESCE(excluded.amount_minor, cards.amount_minor),"
    " charge_minor = COALESCE(excluded.charge_minor, cards.charge_minor),"
    " paid_minor = COALESCE(excluded.paid_minor, cards.paid_minor),"
    " state = COALESCE(excluded.state, cards.state),"
    " expiration = COALESCE(excluded.expiration, cards.expiration),"
    " card_type = COALESCE(excluded.card_type, cards.card_type),"
    " callback = COALESCE(excluded.callback, cards.callback),"
    " created_at = CASE WHEN excluded.created_at = '-infinity' THEN cards.created_at"
    " ELSE excluded.created_at END,"
    " seen_at = excluded.seen_at, listed = true")


def _aware(when: datetime | None) -> datetime | None:
    """A service time as the database must get it: a time without a zone is UTC (as
    ``stamp`` reads it), never the session's zone."""
    return when.replace(tzinfo=UTC) if when is not None and when.tzinfo is None else when


def _card_row(profile_id: str, mode: str, card: VirtualCard) -> tuple[Any, ...]:
    # card_pan and cvv are read here only to be left out: the masked form is all that is kept
    return (card.card_hash, profile_id, mode, mask(card.masked_card, card.card_pan),
            card.name_on_card or "", card.currency_code, card_minor(card.balance),
            card_minor(card.amount), card_minor(card.charge), card_minor(card.paid),
            card.status_raw, card.expiration, card.card_type, card.callback,
            _aware(card.created_at))


def _card(row: dict[str, Any]) -> CardRecord:
    return CardRecord(
        profile_id=row["profile_id"], mode=row["mode"], card_hash=row["card_hash"],
        masked=row["masked"], name_on_card=row["name_on_card"],
        currency_code=row["currency_code"], balance=card_decimal(row["balance_minor"]),
        state=row["state"], expiration=row["expiration"], created_at=utc(row["created_at"]),
        seen_at=written(row["seen_at"]), amount=card_decimal(row["amount_minor"]),
        charge=card_decimal(row["charge_minor"]), paid=card_decimal(row["paid_minor"]),
        card_type=row["card_type"], callback=row["callback"], listed=bool(row["listed"]))


def _one_card(conn: Conn, profile_id: str, mode: str, card_hash: str) -> CardRecord | None:
    row = conn.execute(f"SELECT {_CARD_SELECT} FROM cards WHERE profile_id = %s AND mode = %s"
                       " AND card_hash = %s", (profile_id, mode, card_hash)).fetchone()
    return None if row is None else _card(row)


def _must_card(conn: Conn, profile_id: str, mode: str, card_hash: str) -> CardRecord:
    found = _one_card(conn, profile_id, mode, card_hash)
    if found is None:
        raise LedgerError(f"card {card_hash} is not in the ledger")
    return found


def _card_where(query: CardQuery) -> tuple[str, list[Any]]:
    where = "profile_id = %s AND mode = %s"
    args: list[Any] = [query.profile_id, query.mode]
    if query.states:
        where += " AND state = ANY(%s)"
        args.append(sorted(query.states))
    term = search_term(query.text)
    if term:
        where += " AND search_text LIKE %s ESCAPE '\\'"
        args.append(like(term))
    return where, args


def _cursor(record: CardRecord) -> tuple[str, str]:
    """Where a page ended, as the file's ledger says it: the creation time's text ('' when
    unknown) and the card."""
    return (stamp(record.created_at) if record.created_at else "", record.card_hash)


class PostgresCardLedger(PostgresCardOperations, CardLedger):
    """``PostgresCardLedger(engine)``: the wallet in the shared ledger, on the engine's threads.
    Operations and audit come from ``PostgresCardOperations``."""

    def __init__(self, engine: PgEngine):
        self._engine = engine

    # -- cards --------------------------------------------------------------------------

    async def store_cards(self, profile_id: str, mode: str,
                          cards: Sequence[VirtualCard]) -> list[str]:
        desk = self._engine.desk

        def write(conn: Conn) -> list[str]:  # the rows are made here, off the loop
            # in one order, so two desks storing the same list at once never deadlock
            rows = sorted((_card_row(profile_id, mode, c) for c in cards), key=lambda r: r[0])
            if rows:
                with conn.cursor() as cursor:
                    cursor.executemany(_UPSERT_CARD, rows)
            gone = conn.execute(
                "UPDATE cards SET listed = false WHERE profile_id = %s AND mode = %s AND listed"
                " AND seen_at < now() RETURNING card_hash", (profile_id, mode)).fetchall()
            conn.execute("INSERT INTO card_lists (profile_id, mode, refreshed_at)"
                         " VALUES (%s, %s, now()) ON CONFLICT (profile_id, mode) DO UPDATE SET"
                         " refreshed_at = excluded.refreshed_at", (profile_id, mode))
            events.emit(conn, desk, "cards", profile_id, mode)
            return sorted(r["card_hash"] for r in gone)

        return await self._engine.write(write)

    async def store_card(self, profile_id: str, mode: str, card: VirtualCard) -> CardRecord:
        row = _card_row(profile_id, mode, card)
        desk = self._engine.desk

        def write(conn: Conn) -> CardRecord:
            before = _one_card(conn, profile_id, mode, card.card_hash)
            conn.execute(_UPSERT_CARD, row)
            if before is not None and not before.listed:  # the list still does not show it
                conn.execute("UPDATE cards SET listed = false WHERE profile_id = %s"
                             " AND mode = %s AND card_hash = %s", (profile_id, mode, card.card_hash))
            events.emit(conn, desk, "card", profile_id, mode, card.card_hash)
            return _must_card(conn, profile_id, mode, card.card_hash)  # written just above

        return await self._engine.write(write)

    async def note_state(self, profile_id: str, mode: str, card_hash: str,
                         state: int) -> CardRecord | None:
        desk = self._engine.desk

        def write(conn: Conn) -> CardRecord | None:
            changed = conn.execute(
                "UPDATE cards SET state = %s, balance_minor = CASE WHEN %s = 0 THEN 0"
                " ELSE balance_minor END WHERE profile_id = %s AND mode = %s AND card_hash = %s",
                (state, state, profile_id, mode, card_hash)).rowcount
            if changed:
                events.emit(conn, desk, "card", profile_id, mode, card_hash)
            return _one_card(conn, profile_id, mode, card_hash)

        return await self._engine.write(write)

    async def card(self, profile_id: str, mode: str, card_hash: str) -> CardRecord | None:
        return await self._engine.read(lambda conn: _one_card(conn, profile_id, mode, card_hash))

    async def card_page(self, query: CardQuery, after: tuple[str, str] | None = None,
                        limit: int = 100) -> CardPage:
        where, args = _card_where(query)
        if after is not None:
            where += " AND (created_at, card_hash) < (%s::timestamptz, %s)"
            args += [after[0] or "-infinity", after[1]]
        sql = (f"SELECT {_CARD_SELECT} FROM cards WHERE {where}"
               " ORDER BY cards.created_at DESC, card_hash DESC LIMIT %s")

        def read(conn: Conn) -> CardPage:
            records = [_card(r) for r in conn.execute(sql, (*args, limit + 1)).fetchall()]
            more = len(records) > limit
            return CardPage(records[:limit], _cursor(records[limit - 1]) if more else None, more)

        return await self._engine.read(read)

    async def card_count(self, query: CardQuery) -> int:
        where, args = _card_where(query)

        def read(conn: Conn) -> int:
            row = conn.execute(f"SELECT count(*) AS n FROM cards WHERE {where}", args).fetchone()
            return int(row["n"]) if row else 0

        return await self._engine.read(read)

    async def refreshed_at(self, profile_id: str, mode: str) -> datetime | None:
        row = await self._engine.read(lambda conn: conn.execute(
            "SELECT refreshed_at FROM card_lists WHERE profile_id = %s AND mode = %s",
            (profile_id, mode)).fetchone())
        return utc(row["refreshed_at"]) if row else None

    async def store_transactions(self, profile_id: str, mode: str, card_hash: str,
                                 transactions: Sequence[CardTransaction]) -> None:
        rows = [(profile_id, mode, card_hash, transaction_id(t), t.type or "", card_minor(t.amount),
                 t.description or "", t.status, _aware(t.created_at)) for t in transactions]
        if not rows:
            return
        desk = self._engine.desk

        def write(conn: Conn) -> None:
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO card_transactions (profile_id, mode, card_hash, tx_id, type,"
                    " amount_minor, description, status, created_at, first_seen)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s,"
                    " COALESCE(%s, '-infinity'::timestamptz), now())"
                    " ON CONFLICT (profile_id, mode, card_hash, tx_id) DO UPDATE SET"
                    " type = excluded.type, amount_minor = excluded.amount_minor,"
                    " description = excluded.description, status = excluded.status,"
                    " created_at = excluded.created_at", rows)
            events.emit(conn, desk, "card_tx", profile_id, mode, card_hash)

        await self._engine.write(write)

    async def transactions(self, profile_id: str, mode: str, card_hash: str,
                           limit: int = 500) -> list[CardTxRecord]:
        rows = await self._engine.read(lambda conn: conn.execute(
            "SELECT tx_id, type, amount_minor, description, status,"
            " NULLIF(created_at, '-infinity') AS created_at, first_seen FROM card_transactions"
            " WHERE profile_id = %s AND mode = %s AND card_hash = %s"
            " ORDER BY card_transactions.created_at DESC, tx_id DESC LIMIT %s",
            (profile_id, mode, card_hash, limit)).fetchall())
        return [CardTxRecord(r["tx_id"], r["type"], card_decimal(r["amount_minor"]),
                             r["description"], r["status"], utc(r["created_at"]),
                             written(r["first_seen"])) for r in rows]
