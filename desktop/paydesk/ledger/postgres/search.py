"""A LinkQuery as PostgreSQL: filters, keyset paging on an index per sort, and text search.

The same queries as the SQLite ledger's (``..search``), with the same results: every sort
walks its index (``schema.SORT_INDEXES``, text ``COLLATE "C"``: byte order, as SQLite's), and
text search is a LIKE of the term folded (``..fold``) on ``search_folded`` (the references,
the e-mail and the name, folded by the server: ``search_schema.py``), taken literally,
through the trigram index ``links_search``; PostgreSQL's planner, which keeps statistics,
decides by itself when a term is too broad for that index.

One sort needs more than the index's order: a record never checked has no ``checked_at``
(NULL in PostgreSQL, empty text in SQLite, where it sorts before every time). Its pages are
read as two runs along the same index, the never-checked ones (by id) and the checked ones,
in SQLite's order.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from psycopg import Connection

from ..books.search import SELECT, VOIDED, page_of, record_of
from ..fold import fold
from ..query import Cursor, LinkQuery, Page, like
from ..records import LinkRecord
from ..schema import SORT_INDEXES

Row = dict[str, Any]
Conn = Connection[Row]

NULLABLE = "checked_at"  # the one sort key that may be missing (the "checked" sort)
_Run = tuple[list[str], list[Any], tuple[str, ...]]


def _utc(when: datetime) -> datetime:
    return when if when.tzinfo is UTC else when.astimezone(UTC)


def aware(when: datetime) -> datetime:
    """A time as a parameter: a naive one is UTC (as ``records.stamp`` reads it), never the
    session's time zone."""
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when


def _maybe(when: datetime | None) -> datetime | None:
    return None if when is None else _utc(when)


def record(row: Row, raw: str | None = None) -> LinkRecord:
    return record_of(row, raw, _utc, _maybe)


class Plan:
    """The WHERE of one query, and its pages, counts and anchors."""

    def __init__(self, query: LinkQuery):
        self.query = query
        self.columns: tuple[str, ...] = SORT_INDEXES[query.sort]
        self.conditions = ["links.profile_id = %s", "links.mode = %s"]
        self.args: list[Any] = [query.profile_id, query.mode]
        for column, values in (("state", query.states), ("currency", query.currencies), ("tx_ref", query.tx_refs)):
            if values:
                self.conditions.append(f"links.{column} = ANY(%s)")
                self.args.append(sorted(values))
        for condition, value in (
            ("links.created_at >= %s", query.created_from),
            ("links.created_at < %s", query.created_to),
        ):
            if value is not None:
                self.conditions.append(condition)
                self.args.append(aware(value))
        if query.origin:
            self.conditions.append("links.origin = %s")
            self.args.append(query.origin)
        if query.voided is not None:
            self.conditions.append(VOIDED if query.voided else f"NOT {VOIDED}")
        text = fold(query.text.strip())  # accents and case folded, as search_folded is
        if text:  # backslash is LIKE's escape in PostgreSQL too: like() applies as it is
            self.conditions.append("links.search_folded LIKE %s")
            self.args.append(like(text))

    def where(self) -> str:
        return " AND ".join(self.conditions)

    def count(self, conn: Conn) -> int:
        row = conn.execute(f"SELECT count(*) AS n FROM links WHERE {self.where()}", self.args).fetchone()
        return int(row["n"]) if row else 0

    def _order(self, descending: bool, columns: tuple[str, ...] | None = None) -> str:
        direction = "DESC" if descending else "ASC"
        return ", ".join(f"links.{c} {direction}" for c in columns or self.columns)

    def _run(
        self, conditions: list[str], args: list[Any], descending: bool, columns: tuple[str, ...], limit: int
    ) -> tuple[str, list[Any]]:
        sql = (
            f"SELECT {SELECT} FROM links WHERE {' AND '.join(self.conditions + conditions)}"
            f" ORDER BY {self._order(descending, columns)} LIMIT %s"
        )
        return sql, self.args + args + [limit]

    def page_sql(self, cursor: Cursor | None, limit: int, backwards: bool = False) -> tuple[str, list[Any]]:
        """The SELECT of one page: ``limit`` + 1 rows after ``cursor`` in the query's order,
        or before it ``backwards`` (then in reverse order)."""
        descending = self.query.descending != backwards
        if NULLABLE in self.columns:
            return self._nullable_sql(cursor, limit + 1, descending)
        conditions: list[str] = []
        args: list[Any] = []
        if cursor is not None:
            keys = ", ".join(f"links.{c}" for c in self.columns)
            marks = ", ".join("%s" for _ in self.columns)
            conditions.append(f"({keys}) {'<' if descending else '>'} ({marks})")
            args += list(cursor.values)
        return self._run(conditions, args, descending, self.columns, limit + 1)

    def _nullable_sql(self, cursor: Cursor | None, limit: int, descending: bool) -> tuple[str, list[Any]]:
        """Never checked first (ascending) or last (descending), as SQLite sorts them: two
        runs along the index, each seeking from the cursor when the cursor is in it."""
        column, rest = self.columns[0], self.columns[1:]
        op = "<" if descending else ">"
        # each run: its conditions, their values, the columns it is ordered (and sought) by
        missing: _Run | None = ([f"links.{column} IS NULL"], [], rest)
        present: _Run | None = ([f"links.{column} IS NOT NULL"], [], self.columns)
        if cursor is not None:
            within = missing if cursor.values[0] is None else present
            assert within is not None
            _, values, keys = within
            within[0].append(f"({', '.join(f'links.{c}' for c in keys)}) {op} ({', '.join('%s' for _ in keys)})")
            values.extend(cursor.values[len(self.columns) - len(keys) :])
            if within is missing and descending:
                present = None  # every checked one came before
            if within is present and not descending:
                missing = None  # every never-checked one came before
        runs = [r for r in ((present, missing) if descending else (missing, present)) if r]
        parts, args = [], []
        for number, (conditions, values, keys) in enumerate(runs):
            sql, run_args = self._run(conditions, values, descending, keys, limit)
            parts.append(f"(SELECT {number} AS run, s.* FROM ({sql}) AS s)")
            args += run_args
        direction = "DESC" if descending else "ASC"
        order = ", ".join(f"{c} {direction}" for c in self.columns)
        return (f"SELECT * FROM ({' UNION ALL '.join(parts)}) AS runs ORDER BY run, {order} LIMIT %s", args + [limit])

    def anchors(self, conn: Conn, every: int) -> list[Cursor]:
        """The sort keys of rows every-1, 2·every-1, … (one pass along the sort's index)."""
        direction = "DESC" if self.query.descending else "ASC"
        nulls = " NULLS LAST" if self.query.descending else " NULLS FIRST"
        order = ", ".join(f"links.{c} {direction}{nulls if c == NULLABLE else ''}" for c in self.columns)
        keys = ", ".join(f"links.{c} AS k{i}" for i, c in enumerate(self.columns))
        sql = (
            f"SELECT * FROM (SELECT {keys}, row_number() OVER (ORDER BY {order}) AS n"
            f" FROM links WHERE {self.where()}) AS numbered WHERE mod(n, %s) = 0 ORDER BY n"
        )
        rows = conn.execute(sql, self.args + [every]).fetchall()
        return [Cursor(tuple(row[f"k{i}"] for i in range(len(self.columns)))) for row in rows]

    def page(self, conn: Conn, cursor: Cursor | None, limit: int, backwards: bool = False) -> Page:
        """Up to ``limit`` records next to ``cursor``, always in the query's order."""
        rows = conn.execute(*self.page_sql(cursor, limit, backwards)).fetchall()
        return page_of(rows, limit, backwards, self.columns, record)
