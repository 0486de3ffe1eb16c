"""The batches of bulk links on a shop's shared PostgreSQL (migration 5, ``batch_schema``):
``ledger.batch.BatchBook`` with the same results as ``SqliteBatchBook`` (``books/batch.py``).
A file's rows are COPYed in; every write emits a "batch" event (key str(batch id))."""

from __future__ import annotations

from ..books.batch import SqlBatchBook
from .dialect import PgDialect
from .engine import PgEngine


class PostgresBatchBook(SqlBatchBook):
    """``PostgresBatchBook(engine)``: the book of a shared ledger, on the engine the links,
    cards, inbox and counters use."""

    def __init__(self, engine: PgEngine):
        super().__init__(engine, PgDialect(engine))


__all__ = ["PostgresBatchBook"]
