"""The PostgreSQL side of ``Dialect``: ``%s`` marks, the server's ``now()``, ``RETURNING id``,
``COPY`` for many new rows, ``FOR UPDATE`` / ``FOR SHARE``, a transaction's advisory lock
where one writer at a time must write, and the change event (``events.emit``) in the
change's own transaction."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from psycopg.errors import UniqueViolation

from ..dialect import Conn, Dialect, Row, pyformat
from ..records import LinkRecord
from . import events
from .engine import PgEngine
from .search import SELECT, aware, record

_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))"


class PgDialect(Dialect):
    m = "%s"
    lock = " FOR UPDATE"
    share = " FOR SHARE"
    ilike = "ILIKE"  # on COLLATE "C" text it folds ASCII only, as SQLite's LIKE does
    unique = UniqueViolation
    link_columns = SELECT
    unknown = "'-infinity'::timestamptz"
    time_mark = "?::timestamptz"

    def cursor_time(self, text: str) -> str:
        return text or "-infinity"

    def __init__(self, engine: PgEngine):
        self._engine = engine  # its desk names the events (set before the first write)

    def record(self, row: Row, raw: str | None = None) -> LinkRecord:
        return record(row, raw)

    def sql(self, text: str) -> str:
        return pyformat(text)

    def now(self) -> str:
        return "now()"

    def minute(self, when: str) -> str:
        return f"date_trunc('minute', {when})"

    def time(self, when: datetime) -> datetime:
        return aware(when)

    def when(self, value: Any) -> datetime:
        return value if value.tzinfo is UTC else value.astimezone(UTC)

    def new_id(self, conn: Conn, text: str, args: Sequence[Any] = ()) -> int:
        made = self.one(conn, f"{text} RETURNING id", args)
        assert made is not None
        return int(made["id"])

    def many(self, conn: Conn, text: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = list(rows)
        if rows:
            with conn.cursor() as cursor:
                cursor.executemany(self.sql(text), rows)

    def insert_many(self, conn: Conn, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        with conn.cursor() as cursor, cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def serialize(self, conn: Conn, name: str) -> None:
        conn.execute(_LOCK, (name,))

    def event(self, conn: Conn, kind: str, profile_id: str = "", mode: str = "", key: str = "") -> None:
        events.emit(conn, self._engine.desk, kind, profile_id, mode, key)


__all__ = ["PgDialect"]
