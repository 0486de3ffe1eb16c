"""The card wallet in the shop's shared ledger (PostgreSQL, migration 2, ``card_schema``):
``books/cards.py`` with the same results as ``SqliteCardLedger``. Several desks write here
at once: the partial unique indexes refuse a second open operation from any desk, and
finishing or losing an operation locks its row; every write emits its events."""

from __future__ import annotations

from ..books.cards import SqlCardLedger
from .dialect import PgDialect
from .engine import PgEngine


class PostgresCardLedger(SqlCardLedger):
    """``PostgresCardLedger(engine)``: the wallet in the shared ledger, on the engine's
    threads."""

    def __init__(self, engine: PgEngine):
        super().__init__(engine, PgDialect(engine))


__all__ = ["PostgresCardLedger"]
