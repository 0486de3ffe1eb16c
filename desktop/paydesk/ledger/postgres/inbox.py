"""The notification inbox on a shop's shared PostgreSQL (migration 3, ``inbox_schema``):
``ledger.inbox.Inbox`` with the same results as ``SqliteInbox`` (``books/inbox.py``). The
body is ``bytea``; every write emits an "inbox" event (key: the entry's id), so every desk
hears of a notification received or decided, and receivers on several machines keep one
original between them."""

from __future__ import annotations

from ..books.inbox import SqlInbox
from .dialect import PgDialect
from .engine import PgEngine


class PostgresInbox(SqlInbox):
    """``PostgresInbox(engine)``: the inbox of a shared ledger, on the engine the links and
    cards ledgers use."""

    def __init__(self, engine: PgEngine):
        super().__init__(engine, PgDialect(engine))


__all__ = ["PostgresInbox"]
