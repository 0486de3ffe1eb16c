"""The activity book in a desk's SQLite file (schema v12, ``actor_schema``), on the same
threads (``Engine``) as its links: ``SqliteActivityBook.beside(ledger)`` (``books/activity.py``)."""

from __future__ import annotations

from ..books.activity import SqlActivityBook
from .links import InFile


class SqliteActivityBook(InFile, SqlActivityBook):
    """``SqliteActivityBook.beside(ledger)``: the book in the ledger's file, on its writer."""


__all__ = ["SqliteActivityBook"]
