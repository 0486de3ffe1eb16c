"""The batches' book in a desk's SQLite file (schema v9, ``batch_schema``), on the same threads
(``Engine``) as its links: ``SqliteBatchBook.beside(ledger)`` (``books/batch.py``)."""

from __future__ import annotations

from ..books.batch import SqlBatchBook
from .links import InFile


class SqliteBatchBook(InFile, SqlBatchBook):
    """``SqliteBatchBook.beside(ledger)``: the book in the ledger's file, on its writer and
    readers (a row and its link's record are written by the same writer, in order)."""


__all__ = ["SqliteBatchBook"]
