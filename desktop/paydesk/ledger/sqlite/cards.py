"""The card wallet in the ledger's SQLite file (schema v4, ``card_schema``), on the same
threads (``Engine``) as the links: ``SqliteCardLedger.beside(ledger)`` (``books/cards.py``,
operations and audit in ``books/card_operations.py``)."""

from __future__ import annotations

from ..books.cards import SqlCardLedger
from .dialect import DIALECT
from .engine import Engine
from .links import SqliteLedger


class SqliteCardLedger(SqlCardLedger):
    """``SqliteCardLedger.beside(ledger)``: the wallet in the same file, on the same threads
    (one writer, so card and link writes never contend with each other)."""

    def __init__(self, engine: Engine):
        super().__init__(engine, DIALECT)

    @classmethod
    def beside(cls, ledger: SqliteLedger) -> SqliteCardLedger:
        return cls(ledger._engine)  # one package, one file


__all__ = ["SqliteCardLedger"]
