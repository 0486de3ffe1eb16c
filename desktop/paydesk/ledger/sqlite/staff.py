"""The staff book in a desk's SQLite file (schema v13, ``staff_schema``), on the same threads
(``Engine``) as its links: ``SqliteStaffBook.beside(ledger)`` (``books/staff.py``). The PIN
is compared and counted by the book's Python, in one ``BEGIN IMMEDIATE`` transaction."""

from __future__ import annotations

from ..books.staff import SqlStaffBook
from .links import InFile


class SqliteStaffBook(InFile, SqlStaffBook):
    """``SqliteStaffBook.beside(ledger)``: the book in the ledger's file."""


__all__ = ["SqliteStaffBook"]
