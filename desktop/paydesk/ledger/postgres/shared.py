"""A desk's ledgers on the shop's shared PostgreSQL ledger: one engine (its pool and
threads) under the links ledger and the card ledger, as ``SqliteCardLedger.beside`` shares
the SQLite file."""

from __future__ import annotations

from collections.abc import Callable

from .cards import PostgresCardLedger
from .engine import PgEngine
from .links import PostgresLedger


def open_shared(
    url: str,
    *,
    password: str | None = None,
    desk: str,
    on_reachable: Callable[[bool], None] | None = None,
) -> tuple[PgEngine, PostgresLedger, PostgresCardLedger]:
    """The engine (not connected yet: ``await ledger.opened()``), the links ledger and the
    card ledger on it. ``password`` apart from ``url`` (from the keyring); ``desk``: this
    desk's installation id (``engine.desk`` may be set later, before the first write);
    ``on_reachable(bool)``: told on the loop when the server stops or starts answering."""
    engine = PgEngine(url, password=password, desk=desk, on_reachable=on_reachable)
    return engine, PostgresLedger(engine), PostgresCardLedger(engine)
