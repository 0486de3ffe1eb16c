"""The card wallet in the ledger's SQLite file (schema v4, ``card_schema``), on the same
threads (``Engine``) as the links: ``SqliteCardLedger.beside(ledger)`` (``books/cards.py``,
operations and audit in ``books/card_operations.py``)."""

from __future__ import annotations

from ..books.cards import SqlCardLedger
from .links import InFile


class SqliteCardLedger(InFile, SqlCardLedger):
    """``SqliteCardLedger.beside(ledger)``: the wallet in the same file, on the same threads
    (one writer, so card and link writes never contend with each other)."""


__all__ = ["SqliteCardLedger"]
