"""The notification inbox in a desk's SQLite file (schema v7, ``inbox_schema``), on the same
threads (``Engine``) as its links: ``SqliteInbox.beside(ledger)`` (``books/inbox.py``).
A receive is one ``BEGIN IMMEDIATE`` transaction: two receivers on the same file (the
desk's and a headless one) keep one original between them."""

from __future__ import annotations

from ..books.inbox import SqlInbox
from .links import InFile


class SqliteInbox(InFile, SqlInbox):
    """``SqliteInbox.beside(ledger)``: the inbox in the ledger's file, on its writer and
    readers (one writer: a notification kept and a record written never contend)."""


__all__ = ["SqliteInbox"]
