"""What the two ledger backends differ in, and nothing more: ``Dialect``. Each book is
written once (``books/``) over it; ``sqlite/dialect.py`` and ``postgres/dialect.py`` fill
it in.

A book's SQL is written with ``?`` for a parameter (``Dialect.sql`` turns it into the
backend's own); a time "now" is ``{now}`` in it (``Dialect.now``: a literal of the
desk's clock on SQLite, the server's ``now()`` on PostgreSQL); a row-lock clause is
``Dialect.lock`` / ``Dialect.share`` (nothing on SQLite, whose one writer holds the file).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, Protocol, TypeVar

from .records import LinkRecord

T = TypeVar("T")
Conn = Any  # a sqlite3.Connection or a psycopg Connection: both answer execute()
Row = Any  # a sqlite3.Row or a psycopg dict row: both are read by column name


class Runner(Protocol):
    """The engine under a book: ``write`` runs one transaction on the writer, ``read`` a
    read on any reader (``sqlite.engine.Engine``, ``postgres.engine.PgEngine``)."""

    async def read(self, fn: Callable[[Any], T]) -> T: ...

    async def write(self, fn: Callable[[Any], T]) -> T: ...


@lru_cache(maxsize=512)
def _pyformat(sql: str) -> str:
    return sql.replace("%", "%%").replace("?", "%s")


class Dialect:
    """The questions, and what both backends answer alike (``sqlite.dialect.SqliteDialect``,
    ``postgres.dialect.PgDialect``)."""

    #: the parameter mark, for SQL built with ``{m}`` (``counter_sql``, ``batch_sql``)
    m = "?"
    #: the clause that holds a read row until the transaction ends (``SELECT ... FOR UPDATE``)
    lock = ""
    #: the same for a row others may read but not change meanwhile
    share = ""
    #: the exception a unique index's refusal raises
    unique: type[Exception] = Exception
    #: the case-blind (ASCII letters) LIKE
    ilike = "LIKE"
    #: the links' columns every book's join reads (``books/search.SELECT``), and how a row of them
    #: becomes a record
    link_columns = ""

    #: a time never set (a record never checked): NULL, or the file's empty text
    never = "NULL"
    #: a time a NOT NULL column does not know (the service did not say): sorts before any
    #: other, so last of a list newest first
    unknown = "''"
    #: the parameter mark of a time given as a page cursor's text (``cursor_time``)
    time_mark = "?"

    def cursor_time(self, text: str) -> str:
        """A page cursor's time (the file's text, '' when unknown) as a parameter."""
        return text

    def record(self, row: Row, raw: str | None = None) -> LinkRecord:
        """A record from ``link_columns`` (``raw``: the service's last answer, if read)."""
        raise NotImplementedError

    def sql(self, text: str) -> str:
        """``text`` with the backend's parameter mark."""
        return text

    def now(self) -> str:
        """An SQL expression of this moment, as the backend stores times."""
        raise NotImplementedError

    def minute(self, when: str) -> str:
        """An SQL expression of the minute of the time ``when`` (an SQL expression)."""
        raise NotImplementedError

    def indexed(self, index: str) -> str:
        """A hint that a table is read along ``index`` (where a planner needs one)."""
        return ""

    def time(self, when: datetime) -> Any:
        """A time as a parameter."""
        raise NotImplementedError

    def when(self, value: Any) -> datetime:
        """A time read from a NOT NULL column."""
        raise NotImplementedError

    def maybe(self, value: Any) -> datetime | None:
        """A time read from a column that may hold none (NULL, or the file's empty text)."""
        return self.when(value) if value else None

    def run(self, conn: Conn, text: str, args: Sequence[Any] = (), *, now: str | None = None) -> Any:
        """``conn.execute`` of ``text`` (``?`` marks; ``{now}``: ``now`` if given, one
        transaction's moment, else ``self.now()``) with ``args``."""
        if "{now}" in text:
            text = text.replace("{now}", now or self.now())
        return conn.execute(self.sql(text), tuple(args))

    def one(self, conn: Conn, text: str, args: Sequence[Any] = (), *, now: str | None = None) -> Row | None:
        return self.run(conn, text, args, now=now).fetchone()

    def all(self, conn: Conn, text: str, args: Sequence[Any] = (), *, now: str | None = None) -> list[Row]:
        return list(self.run(conn, text, args, now=now).fetchall())

    def new_id(self, conn: Conn, text: str, args: Sequence[Any] = ()) -> int:
        """The id of the row ``text`` (an INSERT) adds."""
        raise NotImplementedError

    def many(self, conn: Conn, text: str, rows: Iterable[Sequence[Any]]) -> None:
        """``text`` once per row (an UPDATE or INSERT of many rows)."""
        raise NotImplementedError

    def insert_many(self, conn: Conn, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Many new rows of ``table`` in one go."""
        marks = ", ".join("?" for _ in columns)
        self.many(conn, f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    def serialize(self, conn: Conn, name: str) -> None:
        """Until the transaction ends, this writer alone writes what ``name`` names (one
        writer per file already on SQLite: nothing to do)."""

    def event(self, conn: Conn, kind: str, profile_id: str = "", mode: str = "", key: str = "") -> None:
        """The change event, in the change's transaction (a shared ledger's other desks hear
        of it; a desk's own file has no one to tell)."""


def pyformat(sql: str) -> str:
    """``?`` marks as psycopg's ``%s`` (a literal ``%`` doubled)."""
    return _pyformat(sql)


__all__ = ["Conn", "Dialect", "Row", "Runner", "pyformat"]
