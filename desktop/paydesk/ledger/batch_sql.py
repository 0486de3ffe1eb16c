"""What the batch SQL of both backends holds (``books/batch.py``): a row's state
derived from its link (``STATE``, in the rule order of ``batch.py``), the batch and row
selects, and how their rows are read. Only the parameter mark and how a time is read
differ between the backends."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from .batch import (
    LINK_STATES,
    NOT_SENT,
    SENT,
    SKIPPED,
    WAITING,
    Batch,
    BatchFigures,
    BatchRow,
    NewRow,
    check_states,
    row_ref,
)
from .records import LinkRecord

Row = Any  # a sqlite3.Row or a psycopg dict row: both are read by column name
When = Callable[[Any], datetime]


def _quoted(values: Iterable[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


# a row's state: its link's, else skipped, else waiting (a skipped row is never sent and
# holds no reference, so it joins no link; a row joins its link only by its own reference)
STATE = (
    "CASE WHEN links.state IS NULL THEN"
    f" (CASE WHEN r.skipped = 1 THEN '{SKIPPED}' ELSE '{WAITING}' END)"
    + "".join(f" WHEN links.state IN ({_quoted(states)}) THEN '{state}'" for state, states in LINK_STATES.items())
    + f" ELSE '{WAITING}' END"
)

ROWS_FROM = (
    "batch_rows r LEFT JOIN links ON r.skipped = 0 AND links.profile_id = r.profile_id AND links.tx_ref = r.tx_ref"
)

# the latest e-mail note of a row (append-only: the highest id wins): sent or not, the
# error, and when
EMAIL_COLUMNS = ", ".join(
    f"(SELECT e.{column} FROM batch_emails e WHERE e.batch_id = r.batch_id"
    f" AND e.number = r.number ORDER BY e.id DESC LIMIT 1) AS row_email_{name}"
    for column, name in (("ok", "ok"), ("error", "error"), ("noted_at", "at"))
)

ROW_COLUMNS = (
    "r.batch_id AS row_batch_id, r.number AS row_number, r.tx_ref AS row_tx_ref,"
    f" r.cells AS row_cells, {STATE} AS row_state, {EMAIL_COLUMNS}"
)

BATCH_SELECT = (
    "SELECT b.id, b.profile_id, b.mode, b.name, b.file_name, b.made_at, b.made_by,"
    " b.policy, b.prefix,"
    " (SELECT COUNT(*) FROM batch_rows c WHERE c.batch_id = b.id) AS row_count"
    " FROM batches b"
)

# waiting rows of a batch (not sent, not skipped): the runner's next ones, the "unfinished"
WAITING_WHERE = (
    "r.skipped = 0 AND r.tx_ref IS NOT NULL AND NOT EXISTS (SELECT 1 FROM links"
    " WHERE links.profile_id = r.profile_id AND links.tx_ref = r.tx_ref)"
)


def row_select(link_columns: str) -> str:
    """``SELECT`` of batch rows with their link's columns (``Dialect.link_columns``: ``books/search.SELECT``)."""
    return f"SELECT {ROW_COLUMNS}, {link_columns} FROM {ROWS_FROM}"


def rows_where(batch_id: int, after: int | None, states: tuple[str, ...], mark: str) -> tuple[str, list[Any]]:
    check_states(states)
    parts, args = [f"r.batch_id = {mark}"], [batch_id]
    if after is not None:
        parts.append(f"r.number > {mark}")
        args.append(after)
    if states == (WAITING,):  # the runner's question, said so an index answers it
        parts.append(WAITING_WHERE)
    elif states:
        parts.append(f"({STATE}) IN ({_quoted(sorted(states))})")
    return " AND ".join(parts), args


FIGURES = (
    f"SELECT t.state, COUNT(*) AS n FROM (SELECT {STATE} AS state FROM {ROWS_FROM}"
    " WHERE r.batch_id = {m}) t GROUP BY t.state"
)


def figures(rows: Iterable[Row]) -> BatchFigures:
    return BatchFigures.of({row["state"]: int(row["n"]) for row in rows})


def batch(row: Row, when: When) -> Batch:
    """A row of ``BATCH_SELECT``."""
    return Batch(
        id=int(row["id"]),
        profile_id=row["profile_id"],
        mode=row["mode"],
        name=row["name"],
        file_name=row["file_name"],
        made_at=when(row["made_at"]),
        made_by=row["made_by"],
        rows=int(row["row_count"]),
        policy=row["policy"],
        prefix=row["prefix"],
    )


def batch_row(row: Row, record: Callable[[Row], LinkRecord], when: When) -> BatchRow:
    """A row of ``row_select``; ``record`` reads the link's columns (absent: NULL id),
    ``when`` the time of its latest e-mail note."""
    ok, at = row["row_email_ok"], row["row_email_at"]
    return BatchRow(
        batch_id=int(row["row_batch_id"]),
        number=int(row["row_number"]),
        tx_ref=row["row_tx_ref"] or "",
        values=json.loads(row["row_cells"]),
        state=row["row_state"],
        record=None if row["id"] is None else record(row),
        email_state=None if ok is None else (SENT if int(ok) else NOT_SENT),
        email_error=row["row_email_error"],
        email_at=None if at is None else when(at),
    )


def cells(values: dict[str, str]) -> str:
    return json.dumps(values, sort_keys=True, ensure_ascii=False)


# a batch's rows never sent (no link): a corrected file may change them (``add_rows``)
UNSENT = (
    "SELECT r.number AS number, r.cells AS cells, r.skipped AS skipped,"
    " r.tx_ref AS tx_ref FROM batch_rows r"
    " LEFT JOIN links ON links.profile_id = r.profile_id AND links.tx_ref = r.tx_ref"
    " WHERE r.batch_id = {m} AND links.id IS NULL"
)


def new_ref(prefix: str, number: int, tx_ref: str, skipped: bool) -> str | None:
    """A row's reference when written: none for a skipped row (NULL: it joins no link), its
    own, else the batch's (``row_ref``)."""
    return None if skipped else (tx_ref or row_ref(prefix, number))


def corrections(
    prefix: str, rows: list[NewRow], have: set[int], unsent: Iterable[Row]
) -> tuple[list[NewRow], list[tuple[str, int, int]], list[tuple[str, int]]]:
    """What a corrected file changes: its rows the batch lacks (to insert), the (cells,
    skipped, number) of its rows never sent whose values or skipped flag differ (to update),
    and the (tx_ref, number) of its rows skipped before that are valid now and so take
    their reference, once: the corrected file's own, else the batch's. A row that has a
    reference keeps it."""
    was = {int(r["number"]): (r["cells"], int(r["skipped"]), r["tx_ref"]) for r in unsent}
    added = [row for row in rows if row[0] not in have]
    again, refs = [], []
    for number, tx_ref, values, skipped in rows:
        if number not in was:
            continue
        now = (cells(values), int(skipped))
        if was[number][:2] != now:
            again.append((now[0], now[1], number))
        ref = new_ref(prefix, number, tx_ref, skipped)
        if was[number][2] is None and ref is not None:
            refs.append((ref, number))
    return added, again, refs
