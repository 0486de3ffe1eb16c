"""A bulk import into the shared ledger (``PostgresLedger.import_records``): the rows COPYed
into a scratch table, and those whose tx_ref is new added in their order. When they
outnumber what is there, the indexes (but the unique ones) are dropped and built again
after, as the SQLite file's import does: building once beats inserting one by one (the
trigram index most)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..books.links import COLUMNS
from ..books.links import row_of as links_row
from ..records import LinkRecord
from .search import Conn, Row, aware

ANALYZE_AFTER = 1000  # records added by one import, above which the statistics are renewed
REBUILD_FROM = 10_000  # records imported at once, from which the indexes are built again after


def row_of(r: LinkRecord) -> tuple[Any, ...]:
    return links_row(r, aware, None)


def import_rows(conn: Conn, rows: Iterable[tuple[Any, ...]], count: int) -> list[tuple[str, str, int]]:
    """Add the ``count`` rows whose tx_ref is new; returns (profile_id, mode, how many) of
    what was added. ``rows`` may be made as they are copied (a generator): 200,000 rows
    held at once would make each of the garbage collector's full passes meanwhile walk
    them all, on whichever thread it runs, the window's too."""
    columns = ", ".join(COLUMNS)
    conn.execute(
        f"CREATE TEMP TABLE links_import ON COMMIT DROP AS SELECT 0::bigint AS ord, {columns} FROM links WITH NO DATA"
    )
    with conn.cursor().copy(f"COPY links_import (ord, {columns}) FROM STDIN") as copy:
        for number, row in enumerate(rows):
            copy.write_row((number, *row))
    indexes: list[Row] = []
    there = conn.execute("SELECT count(*) AS n FROM links").fetchone()
    if count >= max(REBUILD_FROM, int(there["n"]) if there else 0):
        indexes = conn.execute(
            "SELECT c.relname AS name, pg_get_indexdef(c.oid) AS sql FROM pg_index i"
            " JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'links'::regclass"
            " AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)"
        ).fetchall()
        for index in indexes:
            conn.execute(f'DROP INDEX "{index["name"]}"')
    added = conn.execute(
        f"WITH added AS (INSERT INTO links ({columns}) SELECT {columns} FROM links_import"
        f" ORDER BY ord ON CONFLICT (profile_id, tx_ref) DO NOTHING RETURNING profile_id, mode)"
        f" SELECT profile_id, mode, count(*) AS n FROM added GROUP BY profile_id, mode"
        f" ORDER BY profile_id, mode"
    ).fetchall()
    for index in indexes:
        conn.execute(index["sql"])
    if sum(row["n"] for row in added) >= ANALYZE_AFTER:
        conn.execute("ANALYZE links")  # the planner's figures, at once (not at autovacuum's)
    return [(row["profile_id"], row["mode"], int(row["n"])) for row in added]


__all__ = ["ANALYZE_AFTER", "REBUILD_FROM", "import_rows", "row_of"]
