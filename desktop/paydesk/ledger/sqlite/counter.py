"""The counters' book in a desk's SQLite file (schema v8, ``counter_schema``), on the same
threads (``Engine``) as its links: ``SqliteCounterBook.beside(ledger)`` (``books/counter.py``).
Every write is one ``BEGIN IMMEDIATE`` transaction on the file's one writer."""

from __future__ import annotations

from ..books.counter import SqlCounterBook
from .links import InFile


class SqliteCounterBook(InFile, SqlCounterBook):
    """``SqliteCounterBook.beside(ledger)``: the book in the ledger's file, on its writer and
    readers (a sale and its link's record are written by the same writer, in order)."""


__all__ = ["SqliteCounterBook"]
