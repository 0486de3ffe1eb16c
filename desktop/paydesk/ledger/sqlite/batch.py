"""The batches' book in a desk's SQLite file (schema v9, ``batch_schema``), on the same threads
(``Engine``) as its links: ``SqliteBatchBook.beside(ledger)`` (``books/batch.py``)."""

from __future__ import annotations

from ..books.batch import SqlBatchBook
from .dialect import DIALECT
from .engine import Engine
from .links import SqliteLedger


class SqliteBatchBook(SqlBatchBook):
    """``SqliteBatchBook.beside(ledger)``: the book in the ledger's file, on its writer and
    readers (a row and its link's record are written by the same writer, in order)."""

    def __init__(self, engine: Engine):
        super().__init__(engine, DIALECT)

    @classmethod
    def beside(cls, ledger: SqliteLedger) -> SqliteBatchBook:
        return cls(ledger._engine)  # one package, one file


__all__ = ["SqliteBatchBook"]
