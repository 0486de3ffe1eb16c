"""A bulk import into a desk's SQLite file (``SqliteLedger.import_records``): many records in
one transaction; when they outnumber what is there, the indexes are dropped and built again
after (sorting once beats inserting one by one)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..amounts import to_minor
from ..books.links import COLUMNS
from ..records import LinkRecord, stamp
from .search import index_text

_INSERT = (f"INSERT OR IGNORE INTO links ({', '.join(COLUMNS)})"
           f" VALUES ({', '.join('?' for _ in COLUMNS)})")


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value) if value else "{}"


def row_of(r: LinkRecord) -> tuple[Any, ...]:
    return (r.profile_id, r.mode, r.tx_ref, to_minor(r.amount, r.currency),
            None if r.fee is None else to_minor(r.fee, r.currency), r.currency, r.email,
            r.first_name, r.last_name, r.state, r.state_raw, r.checkout_url, r.reference,
            _json(r.customization), _json(r.meta), r.callback_url, r.return_url,
            r.origin, r.error, stamp(r.created_at), stamp(r.updated_at),
            stamp(r.checked_at) if r.checked_at else "", r.raw_json, r.learned_by)


def bulk_insert(db: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> int:
    """Insert many rows in the current transaction; how many were added (a tx_ref there
    already is left as it is)."""
    count = db.execute("SELECT count(*) FROM links").fetchone()[0]
    indexes = []
    if len(rows) >= max(10_000, count):
        indexes = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index'"
                             " AND tbl_name = 'links' AND sql IS NOT NULL").fetchall()
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
