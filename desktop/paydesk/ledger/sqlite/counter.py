"""The counters' book in a desk's SQLite file (schema v8, ``counter_schema``), on the same
threads (``Engine``) as its links: ``SqliteCounterBook.beside(ledger)`` (``books/counter.py``).
Every write is one ``BEGIN IMMEDIATE`` transaction on the file's one writer."""

from __future__ import annotations

from ..books.counter import SqlCounterBook
from .dialect import DIALECT
from .engine import Engine
from .links import SqliteLedger


class SqliteCounterBook(SqlCounterBook):
    """``SqliteCounterBook.beside(ledger)``: the book in the ledger's file, on its writer and
    readers (a sale and its link's record are written by the same writer, in order)."""

    def __init__(self, engine: Engine):
        super().__init__(engine, DIALECT)

    @classmethod
    def beside(cls, ledger: SqliteLedger) -> SqliteCounterBook:
        return cls(ledger._engine)  # one package, one file


__all__ = ["SqliteCounterBook"]
