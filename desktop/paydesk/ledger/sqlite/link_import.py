"""A bulk import into a desk's SQLite file (``SqliteLedger.import_records``): many records in
one transaction; when they outnumber what is there, the indexes are dropped and built again
after (sorting once beats inserting one by one)."""

from __future__ import annotations

import sqlite3
from typing import Any

from ..books.links import COLUMNS
from ..books.links import row_of as links_row
from ..records import LinkRecord, stamp
from .search import index_text

_INSERT = f"INSERT OR IGNORE INTO links ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)})"


def row_of(r: LinkRecord) -> tuple[Any, ...]:
    return links_row(r, stamp, "")


def bulk_insert(db: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> int:
    """Insert many rows in the current transaction; how many were added (a tx_ref there
    already is left as it is)."""
    count = db.execute("SELECT count(*) FROM links").fetchone()[0]
    indexes = []
    if len(rows) >= max(10_000, count):
        indexes = db.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'links' AND sql IS NOT NULL"
        ).fetchall()
        for index in indexes:
            db.execute(f"DROP INDEX {index['name']}")
    last = db.execute("SELECT COALESCE(MAX(id), 0) FROM links").fetchone()[0]
    before = db.total_changes
    db.executemany(_INSERT, rows)
    added = db.total_changes - before
    for index in indexes:
        db.execute(index["sql"])
    index_text(db, "id > ?", (last,))
    return added


__all__ = ["bulk_insert", "row_of"]
