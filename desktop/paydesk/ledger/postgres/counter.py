"""The counters' book on a shop's shared PostgreSQL (migration 4, ``counter_schema``):
``ledger.counter.CounterBook`` with the same results as ``SqliteCounterBook``
(``books/counter.py``), where finance sees every counter's shifts and sales.

Desks of one shop write at once: opening a shift, adding a sale and closing a shift first
take a transaction's advisory lock on the counter's name (``PgDialect.serialize``); every
write emits a "sale" (key tx_ref) or "shift" (key str(shift id)) event."""

from __future__ import annotations

from ..books.counter import SqlCounterBook
from .dialect import PgDialect
from .engine import PgEngine


class PostgresCounterBook(SqlCounterBook):
    """``PostgresCounterBook(engine)``: the book of a shared ledger, on the engine the links,
    cards and inbox use."""

    def __init__(self, engine: PgEngine):
        super().__init__(engine, PgDialect(engine))


__all__ = ["PostgresCounterBook"]
