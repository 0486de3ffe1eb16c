"""The card wallet (``ledger.cards.CardLedger``) in SQL, once for both backends: schema v4 of
the file (``card_schema``), migration 2 of the shared ledger (``postgres/card_schema``). The
cards and their transactions here, operations and audit in ``card_operations``.

Times written are the ledger's (the server's on a shared ledger), so desks whose clocks
disagree still agree on which cards a list no longer shows. A time the service did not give
is ``Dialect.unknown`` (the file's empty text, PostgreSQL's -infinity): it pages last, and
reads as none. Every write emits its event ("cards", "card", "card_tx") in its transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ...service.models import CardTransaction, VirtualCard
from ..amounts import card_decimal, card_minor
from ..cards import CardLedger, CardPage, CardQuery, CardRecord, CardTxRecord, mask, transaction_id
from ..dialect import Conn, Dialect, Row, Runner
from ..errors import LedgerError
from ..query import like
from ..records import stamp
from .card_operations import SqlCardOperations

_CARD_COLUMNS = (
    "card_hash, profile_id, mode, masked, name_on_card, currency_code,"
    " balance_minor, amount_minor, charge_minor, paid_minor, state, expiration,"
    " card_type, callback, created_at, seen_at, listed"
)

_UPSERT_CARD = (
    f"INSERT INTO cards ({_CARD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
    " COALESCE(?, {unknown}), {now}, true)"
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
    " created_at = CASE WHEN excluded.created_at = {unknown} THEN cards.created_at"
    " ELSE excluded.created_at END,"
    " seen_at = excluded.seen_at, listed = true"
)


def search_term(text: str) -> str:
    """What the user typed, as the search column holds it: lower case; a number typed in
    groups ("4242 42") without its spaces."""
    term = text.strip().lower()
    if term.replace(" ", "").replace("*", "").isdigit():
        term = term.replace(" ", "")
    return term


def _cursor(record: CardRecord) -> tuple[str, str]:
    """Where a page ended, as the file's ledger says it: the creation time's text ('' when
    unknown) and the card."""
    return (stamp(record.created_at) if record.created_at else "", record.card_hash)


class SqlCardLedger(SqlCardOperations, CardLedger):
    """The wallet on ``engine``, in ``dialect``'s SQL (one writer per file: card and link
    writes never contend with each other)."""

    def __init__(self, engine: Runner, dialect: Dialect):
        self._engine = engine
        self._d = dialect
        self._upsert = _UPSERT_CARD.replace("{unknown}", dialect.unknown)
        # an unknown creation time is stored as such (it sorts last, newest first), read as none
        self._select = _CARD_COLUMNS.replace("created_at", f"NULLIF(created_at, {dialect.unknown}) AS created_at")

    def _card_row(self, profile_id: str, mode: str, card: VirtualCard) -> tuple[Any, ...]:
        # card_pan and cvv are read here only to be left out: the masked form is all there is
        return (
            card.card_hash,
            profile_id,
            mode,
            mask(card.masked_card, card.card_pan),
            card.name_on_card or "",
            card.currency_code,
            card_minor(card.balance),
            card_minor(card.amount),
            card_minor(card.charge),
            card_minor(card.paid),
            card.status_raw,
            card.expiration,
            card.card_type,
            card.callback,
            self._d.time(card.created_at) if card.created_at else None,
        )

    def _card(self, row: Row) -> CardRecord:
        return CardRecord(
            profile_id=row["profile_id"],
            mode=row["mode"],
            card_hash=row["card_hash"],
            masked=row["masked"],
            name_on_card=row["name_on_card"],
            currency_code=row["currency_code"],
            balance=card_decimal(row["balance_minor"]),
            state=row["state"],
            expiration=row["expiration"],
            created_at=self._d.maybe(row["created_at"]),
            seen_at=self._d.when(row["seen_at"]),
            amount=card_decimal(row["amount_minor"]),
            charge=card_decimal(row["charge_minor"]),
            paid=card_decimal(row["paid_minor"]),
            card_type=row["card_type"],
            callback=row["callback"],
            listed=bool(row["listed"]),
        )

    def _one_card(self, conn: Conn, profile_id: str, mode: str, card_hash: str) -> CardRecord | None:
        row = self._d.one(
            conn,
            f"SELECT {self._select} FROM cards WHERE profile_id = ? AND mode = ? AND card_hash = ?",
            (profile_id, mode, card_hash),
        )
        return None if row is None else self._card(row)

    def _must_card(self, conn: Conn, profile_id: str, mode: str, card_hash: str) -> CardRecord:
        found = self._one_card(conn, profile_id, mode, card_hash)
        if found is None:
            raise LedgerError(f"card {card_hash} is not in the ledger")
        return found

    def _card_where(self, query: CardQuery) -> tuple[str, list[Any]]:
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

    # -- cards --------------------------------------------------------------------------

    async def store_cards(self, profile_id: str, mode: str, cards: Sequence[VirtualCard]) -> list[str]:
        now = self._d.now()  # one moment: what this list did not show was seen before it

        def write(conn: Conn) -> list[str]:  # the rows are made here, off the loop
            # in one order, so two desks storing the same list at once never deadlock
            rows = sorted((self._card_row(profile_id, mode, c) for c in cards), key=lambda r: r[0])
            self._d.many(conn, self._upsert.replace("{now}", now), rows)
            gone = self._d.all(
                conn,
                "UPDATE cards SET listed = false WHERE profile_id = ?"
                " AND mode = ? AND listed AND seen_at < {now} RETURNING card_hash",
                (profile_id, mode),
                now=now,
            )
            self._d.run(
                conn,
                "INSERT INTO card_lists (profile_id, mode, refreshed_at)"
                " VALUES (?, ?, {now}) ON CONFLICT (profile_id, mode) DO UPDATE SET"
                " refreshed_at = excluded.refreshed_at",
                (profile_id, mode),
                now=now,
            )
            self._d.event(conn, "cards", profile_id, mode)
            return sorted(r["card_hash"] for r in gone)

        return await self._engine.write(write)

    async def store_card(self, profile_id: str, mode: str, card: VirtualCard) -> CardRecord:
        row = self._card_row(profile_id, mode, card)
        now = self._d.now()

        def write(conn: Conn) -> CardRecord:
            before = self._one_card(conn, profile_id, mode, card.card_hash)
            self._d.run(conn, self._upsert, row, now=now)
            if before is not None and not before.listed:  # the list still does not show it
                self._d.run(
                    conn,
                    "UPDATE cards SET listed = false WHERE profile_id = ? AND mode = ? AND card_hash = ?",
                    (profile_id, mode, card.card_hash),
                )
            self._d.event(conn, "card", profile_id, mode, card.card_hash)
            return self._must_card(conn, profile_id, mode, card.card_hash)  # written above

        return await self._engine.write(write)

    async def note_state(self, profile_id: str, mode: str, card_hash: str, state: int) -> CardRecord | None:
        def write(conn: Conn) -> CardRecord | None:
            changed = self._d.run(
                conn,
                "UPDATE cards SET state = ?, balance_minor = CASE WHEN ? = 0 THEN 0"
                " ELSE balance_minor END WHERE profile_id = ? AND mode = ? AND card_hash = ?",
                (state, state, profile_id, mode, card_hash),
            ).rowcount
            if changed:
                self._d.event(conn, "card", profile_id, mode, card_hash)
            return self._one_card(conn, profile_id, mode, card_hash)

        return await self._engine.write(write)

    async def card(self, profile_id: str, mode: str, card_hash: str) -> CardRecord | None:
        return await self._engine.read(lambda conn: self._one_card(conn, profile_id, mode, card_hash))

    async def card_page(self, query: CardQuery, after: tuple[str, str] | None = None, limit: int = 100) -> CardPage:
        where, args = self._card_where(query)
        if after is not None:
            where += f" AND (created_at, card_hash) < ({self._d.time_mark}, ?)"
            args += [self._d.cursor_time(after[0]), after[1]]
        sql = f"SELECT {self._select} FROM cards WHERE {where} ORDER BY cards.created_at DESC, card_hash DESC LIMIT ?"

        def read(conn: Conn) -> CardPage:
            records = [self._card(r) for r in self._d.all(conn, sql, (*args, limit + 1))]
            more = len(records) > limit
            return CardPage(records[:limit], _cursor(records[limit - 1]) if more else None, more)

        return await self._engine.read(read)

    async def card_count(self, query: CardQuery) -> int:
        where, args = self._card_where(query)
        row = await self._engine.read(
            lambda conn: self._d.one(conn, f"SELECT count(*) AS n FROM cards WHERE {where}", args)
        )
        return int(row["n"]) if row else 0

    async def refreshed_at(self, profile_id: str, mode: str) -> datetime | None:
        row = await self._engine.read(
            lambda conn: self._d.one(
                conn, "SELECT refreshed_at FROM card_lists WHERE profile_id = ? AND mode = ?", (profile_id, mode)
            )
        )
        return self._d.maybe(row["refreshed_at"]) if row else None

    async def store_transactions(
        self, profile_id: str, mode: str, card_hash: str, transactions: Sequence[CardTransaction]
    ) -> None:
        rows = [
            (
                profile_id,
                mode,
                card_hash,
                transaction_id(t),
                t.type or "",
                card_minor(t.amount),
                t.description or "",
                t.status,
                self._d.time(t.created_at) if t.created_at else None,
            )
            for t in transactions
        ]
        if not rows:
            return
        now = self._d.now()  # first seen: when they were read

        def write(conn: Conn) -> None:
            self._d.many(
                conn,
                (
                    "INSERT INTO card_transactions (profile_id, mode, card_hash, tx_id, type,"
                    " amount_minor, description, status, created_at, first_seen)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, COALESCE(?, {unknown}), {now})"
                    " ON CONFLICT (profile_id, mode, card_hash, tx_id) DO UPDATE SET"
                    " type = excluded.type, amount_minor = excluded.amount_minor,"
                    " description = excluded.description, status = excluded.status,"
                    " created_at = excluded.created_at"
                )
                .replace("{unknown}", self._d.unknown)
                .replace("{now}", now),
                rows,
            )
            self._d.event(conn, "card_tx", profile_id, mode, card_hash)

        await self._engine.write(write)

    async def transactions(self, profile_id: str, mode: str, card_hash: str, limit: int = 500) -> list[CardTxRecord]:
        rows = await self._engine.read(
            lambda conn: self._d.all(
                conn,
                "SELECT tx_id, type, amount_minor, description, status,"
                f" NULLIF(created_at, {self._d.unknown}) AS created_at, first_seen"
                " FROM card_transactions WHERE profile_id = ? AND mode = ? AND card_hash = ?"
                " ORDER BY card_transactions.created_at DESC, tx_id DESC LIMIT ?",
                (profile_id, mode, card_hash, limit),
            )
        )
        return [
            CardTxRecord(
                r["tx_id"],
                r["type"],
                card_decimal(r["amount_minor"]),
                r["description"],
                r["status"],
                self._d.maybe(r["created_at"]),
                self._d.when(r["first_seen"]),
            )
            for r in rows
        ]


__all__ = ["SqlCardLedger", "search_term"]
