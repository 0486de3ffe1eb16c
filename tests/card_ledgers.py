"""The card ledger on each backend, for the tests that prove its rules twice: the file's
(SQLite) and the shop's shared one (PostgreSQL, a fresh database from ``pg_url``).

``open_wallet(backend, request, tmp_path)`` yields a ``Wallet``: the card ledger, and a way
to reach its database around the ledger (raw SQL, as another program would).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paydesk.ledger.cards import CardLedger

BACKENDS = ["sqlite", "postgresql"]
CARD_TABLES = ("cards", "card_lists", "card_transactions", "card_operations", "card_audit")


@dataclass
class Wallet:
    backend: str
    cards: CardLedger
    raw: Callable[[], Any]  # a connection of its own (autocommit), around the ledger
    refused: type[Exception]  # what the database raises for a broken rule
    url: str = ""  # PostgreSQL's
    closers: list[Callable[[], Any]] = field(default_factory=list)

    def sql(self, statement: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """``statement`` (with ``?`` parameters) on a connection of its own, committed."""
        if self.backend == "postgresql":
            statement = statement.replace("?", "%s")
        db = self.raw()
        try:
            cursor = db.execute(statement, args)
            rows = [tuple(r) for r in cursor.fetchall()] if cursor.description else []
            db.commit()
            return rows
        finally:
            db.close()

    def dump(self) -> str:
        """Every row of the wallet's tables, as text."""
        if self.backend == "sqlite":
            db = self.raw()
            try:
                return "\n".join(db.iterdump())
            finally:
                db.close()
        return "\n".join(str(row) for table in CARD_TABLES for row in self.sql(f"SELECT t::text FROM {table} t"))


async def _pg_engine(url: str, desk: str) -> Any:
    from paydesk.ledger.postgres.engine import PgEngine

    engine = PgEngine(url, desk=desk)
    await engine.opened()
    return engine


async def another_desk(wallet: Wallet, desk: str = "desk-b") -> CardLedger:
    """The same shared ledger from another desk (its own engine, closed with the wallet)."""
    from paydesk.ledger.postgres.cards import PostgresCardLedger

    engine = await _pg_engine(wallet.url, desk)
    wallet.closers.append(engine.close)
    return PostgresCardLedger(engine)


@contextlib.asynccontextmanager
async def open_wallet(backend: str, request: Any, tmp_path: Path) -> AsyncIterator[Wallet]:
    if backend == "sqlite":
        from paydesk.ledger import SqliteLedger
        from paydesk.ledger.sqlite.cards import SqliteCardLedger

        path = tmp_path / "ledger.sqlite3"
        ledger = SqliteLedger(path)
        await ledger.opened()
        wallet = Wallet(
            backend,
            SqliteCardLedger.beside(ledger),
            lambda: sqlite3.connect(path, isolation_level=None),
            sqlite3.IntegrityError,
        )
        wallet.closers.append(ledger.close)
    else:
        import psycopg

        from paydesk.ledger.postgres.cards import PostgresCardLedger

        url = request.getfixturevalue("pg_url")
        engine = await _pg_engine(url, "desk-a")
        wallet = Wallet(
            backend,
            PostgresCardLedger(engine),
            lambda: psycopg.connect(url, autocommit=True),
            psycopg.IntegrityError,
            url=url,
        )
        wallet.closers.append(engine.close)
    try:
        yield wallet
    finally:
        for close in reversed(wallet.closers):
            await close()
