"""A LinkQuery as SQL: filters, keyset paging on an index per sort, and text search.

Text search covers the reference, the service's reference, the e-mail and the customer's
name. Three characters or more go through the trigram index (``links_fts``) when they are
selective; a term that matches thousands of rows (or one of one or two characters) is
checked row by row along the sort's index instead, where matches are dense and a page
fills after a few hundred rows.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from ..books.search import SELECT, VOIDED, page_of, record_of
from ..fold import fold
from ..query import Cursor, LinkQuery, Page, like
from ..records import LinkRecord, parse_stamp, parse_written, stamp
from ..schema import SORT_INDEXES

BROAD = 2000  # matches from the trigram index above which a term counts as broad


def record(row: sqlite3.Row, raw: str | None = None) -> LinkRecord:
    return record_of(row, raw, parse_written, parse_stamp)


class Plan:
    """The FROM and WHERE of one query (text strategy decided against the data)."""

    def __init__(self, db: sqlite3.Connection, query: LinkQuery):
        self.query = query
        self.source = "links"
        self.source_args: list[Any] = []
        self.conditions = ["links.profile_id = ?", "links.mode = ?"]
        self.args: list[Any] = [query.profile_id, query.mode]
        if query.states:
            self._within("links.state", sorted(query.states))
        if query.currencies:
            self._within("links.currency", sorted(query.currencies))
        if query.created_from is not None:
            self.conditions.append("links.created_at >= ?")
            self.args.append(stamp(query.created_from))
        if query.created_to is not None:
            self.conditions.append("links.created_at < ?")
            self.args.append(stamp(query.created_to))
        if query.origin:
            self.conditions.append("links.origin = ?")
            self.args.append(query.origin)
        if query.tx_refs:
            self.conditions.append("links.tx_ref IN (SELECT value FROM json_each(?))")
            self.args.append(json.dumps(sorted(query.tx_refs)))
        if query.voided is not None:
            self.conditions.append(VOIDED if query.voided else f"NOT {VOIDED}")
        text = fold(query.text.strip())  # accents and case folded (fold.py)
        if text:
            if len(text) >= 3 and not self._broad(db, text):
                # the index takes a plain LIKE (a % or _ typed only widens what it finds);
                # each hit is then checked exactly
                self.source = (
                    "(SELECT rowid AS hit FROM links_fts WHERE search_folded LIKE ?)"
                    " AS hits CROSS JOIN links ON links.id = hits.hit"
                )
                self.source_args = [f"%{text}%"]
            self.conditions.append("links.search_folded LIKE ? ESCAPE '\\'")
            self.args.append(like(text))

    def _within(self, column: str, values: list[str]) -> None:
        self.conditions.append(f"{column} IN ({', '.join('?' for _ in values)})")
        self.args += values

    @staticmethod
    def _broad(db: sqlite3.Connection, text: str) -> bool:
        found = db.execute(
            "SELECT count(*) FROM (SELECT 1 FROM links_fts WHERE search_folded LIKE ? LIMIT ?)", (f"%{text}%", BROAD)
        ).fetchone()[0]
        return found >= BROAD

    def where(self) -> str:
        return " AND ".join(self.conditions)

    def count(self, db: sqlite3.Connection) -> int:
        sql = f"SELECT count(*) FROM {self.source} WHERE {self.where()}"
        return db.execute(sql, self.source_args + self.args).fetchone()[0]

    def page_sql(self, cursor: Cursor | None, limit: int, backwards: bool = False) -> tuple[str, list[Any]]:
        """The SELECT of one page: ``limit`` + 1 rows after ``cursor`` in the query's order,
        or before it ``backwards`` (then in reverse order)."""
        columns = SORT_INDEXES[self.query.sort]
        descending = self.query.descending != backwards
        conditions, args = list(self.conditions), list(self.args)
        if cursor is not None:
            keys = ", ".join(f"links.{c}" for c in columns)
            marks = ", ".join("?" for _ in columns)
            conditions.append(f"({keys}) {'<' if descending else '>'} ({marks})")
            args += list(cursor.values)
        direction = "DESC" if descending else "ASC"
        order = ", ".join(f"links.{c} {direction}" for c in columns)
        sql = f"SELECT {SELECT} FROM {self.source} WHERE {' AND '.join(conditions)} ORDER BY {order} LIMIT ?"
        return sql, self.source_args + args + [limit + 1]

    def anchors(self, db: sqlite3.Connection, every: int) -> list[Cursor]:
        """The sort keys of rows every-1, 2·every-1, … (one pass along the sort's index)."""
        columns = SORT_INDEXES[self.query.sort]
        direction = "DESC" if self.query.descending else "ASC"
        order = ", ".join(f"links.{c} {direction}" for c in columns)
        keys = ", ".join(f"links.{c} AS k{i}" for i, c in enumerate(columns))
        sql = (
            f"SELECT * FROM (SELECT {keys}, row_number() OVER (ORDER BY {order}) AS n"
            f" FROM {self.source} WHERE {self.where()}) WHERE n % ? = 0"
        )
        rows = db.execute(sql, self.source_args + self.args + [every]).fetchall()
        return [Cursor(tuple(row[f"k{i}"] for i in range(len(columns)))) for row in rows]

    def page(self, db: sqlite3.Connection, cursor: Cursor | None, limit: int, backwards: bool = False) -> Page:
        """Up to ``limit`` records next to ``cursor``, always in the query's order."""
        rows = db.execute(*self.page_sql(cursor, limit, backwards)).fetchall()
        return page_of(rows, limit, backwards, SORT_INDEXES[self.query.sort], record)


# -- the search index (links_fts), kept by the ledger's own writes ----------------------


def index_text(db: sqlite3.Connection, where: str, args: Sequence[Any]) -> None:
    """Fold these rows' text (``search_folded``, by the writer's ``paydesk_fold``) and add
    it to the search index (a statement each, however many rows)."""
    db.execute(f"UPDATE links SET search_folded = paydesk_fold(search_text) WHERE {where}", tuple(args))
    db.execute(
        f"INSERT INTO links_fts (rowid, search_folded) SELECT id, search_folded FROM links WHERE {where}", tuple(args)
    )


def unindex_text(db: sqlite3.Connection, where: str, args: Sequence[Any]) -> None:
    """Take these rows' text, as it is now (folded as it was indexed), out of the index."""
    db.execute(
        "INSERT INTO links_fts (links_fts, rowid, search_folded) SELECT 'delete', id,"
        f" search_folded FROM links WHERE {where}",
        tuple(args),
    )
