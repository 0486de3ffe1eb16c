"""The SQLite side of ``Dialect``: ``?`` marks, times as fixed-width UTC text written from
the desk's clock, ``lastrowid``, ``executemany``, no row locks (``BEGIN IMMEDIATE``: the
file's one writer holds it) and no change events (no other desk shares the file)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from ..dialect import Conn, Dialect, Row
from ..records import LinkRecord, parse_written, stamp
from .search import SELECT, record


class SqliteDialect(Dialect):
    m = "?"
    unique = sqlite3.IntegrityError
    link_columns = SELECT
    never = "''"  # text order: before every time

    def record(self, row: Row, raw: str | None = None) -> LinkRecord:
        return record(row, raw)

    def now(self) -> str:
        return f"'{stamp()}'"  # digits, '-', ':', '.', 'T' and 'Z' only

    def run(self, conn: Conn, text: str, args: Sequence[Any] = (), *, now: str | None = None) -> Any:
        """As ``Dialect.run``, with the moment bound as a parameter rather than written into
        the text: the statement's text stays the same from one write to the next, and the
        connection's statement cache keeps it prepared."""
        if "{now}" in text:
            text, args = bound_now(text, args, now or self.now())
        return conn.execute(text, tuple(args))

    def minute(self, when: str) -> str:
        return f"substr({when}, 1, 16)"  # "2026-01-02T03:04"

    def indexed(self, index: str) -> str:
        return f" INDEXED BY {index}"

    def time(self, when: datetime) -> str:
        return stamp(when)

    def when(self, value: Any) -> datetime:
        return parse_written(value)

    def new_id(self, conn: Conn, text: str, args: Sequence[Any] = ()) -> int:
        made = self.run(conn, text, args).lastrowid
        assert made is not None
        return int(made)

    def many(self, conn: Conn, text: str, rows: Iterable[Sequence[Any]]) -> None:
        conn.executemany(text, rows)


def bound_now(text: str, args: Sequence[Any], now: str) -> tuple[str, list[Any]]:
    """``text``'s ``{now}`` as ``?`` marks, and ``args`` with ``now``'s value (a quoted
    literal, ``SqliteDialect.now``) at their places (the text's ``?`` are all marks)."""
    if len(now) < 2 or now[0] != "'" or now[-1] != "'":
        return text.replace("{now}", now), list(args)
    value, given = now[1:-1], list(args)
    parts = text.split("{now}")
    bound: list[Any] = []
    for part in parts[:-1]:
        marks = part.count("?")
        bound += given[:marks]
        del given[:marks]
        bound.append(value)
    return "?".join(parts), bound + given


DIALECT = SqliteDialect()

__all__ = ["DIALECT", "SqliteDialect"]
