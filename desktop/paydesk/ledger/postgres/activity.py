"""The activity book on a shop's shared PostgreSQL (migration 14, ``actor_schema``): every
desk's exports, keys saved and switches to live in one book (``books/activity.py``)."""

from __future__ import annotations

from ..books.activity import SqlActivityBook
from .dialect import PgDialect
from .engine import PgEngine


class PostgresActivityBook(SqlActivityBook):
    """``PostgresActivityBook(engine)``: on the engine the links and the counters' book use."""

    def __init__(self, engine: PgEngine):
        super().__init__(engine, PgDialect(engine))


__all__ = ["PostgresActivityBook"]
