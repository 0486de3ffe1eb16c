"""What both backends' batch SQL shares (``batch_sqlite``, ``postgres/batch``): a row's state
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
)
from .records import LinkRecord

Row = Any  # a sqlite3.Row or a psycopg dict row: both are read by column name
When = Callable[[Any], datetime]


def _quoted(values: Iterable[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


# a row's state: its link's, else skipped, else waiting (a skipped row is never sent; one
# with a link was sent before a corrected file marked it, and its link is what it is)
STATE = ("CASE WHEN links.state IS NULL THEN"
         f" (CASE WHEN r.skipped = 1 THEN '{SKIPPED}' ELSE '{WAITING}' END)"
         + "".join(f" WHEN links.state IN ({_quoted(states)}) THEN '{state}'"
                   for state, states in LINK_STATES.items())
         + f" ELSE '{WAITING}' END")

ROWS_FROM = ("batch_rows r LEFT JOIN links"
             " ON links.profile_id = r.profile_id AND links.tx_ref = r.tx_ref")

# the latest e-mail note of a row (append-only: the highest id wins)
EMAIL_COLUMNS = ("(SELECT e.ok FROM batch_emails e WHERE e.batch_id = r.batch_id"
                 " AND e.number = r.number ORDER BY e.id DESC LIMIT 1) AS row_email_ok,"
                 " (SELECT e.error FROM batch_emails e WHERE e.batch_id = r.batch_id"
                 " AND e.number = r.number ORDER BY e.id DESC LIMIT 1) AS row_email_error")

ROW_COLUMNS = ("r.batch_id AS row_batch_id, r.number AS row_number, r.tx_ref AS row_tx_ref,"
               f" r.cells AS row_cells, {STATE} AS row_state, {EMAIL_COLUMNS}")

BATCH_SELECT = ("SELECT b.id, b.profile_id, b.mode, b.name, b.file_name, b.made_at, b.made_by,"
                " b.policy, b.prefix,"
                " (SELECT COUNT(*) FROM batch_rows c WHERE c.batch_id = b.id) AS row_count"
                " FROM batches b")

# waiting rows of a batch (not sent, not skipped): the runner's next ones, the "unfinished"
WAITING_WHERE = ("r.skipped = 0 AND NOT EXISTS (SELECT 1 FROM links"
                 " WHERE links.profile_id = r.profile_id AND links.tx_ref = r.tx_ref)")


def row_select(link_columns: str) -> str:
    """``SELECT`` of batch rows with their link's columns (the backend's ``search.SELECT``)."""
    return f"SELECT {ROW_COLUMNS}, {link_columns} FROM {ROWS_FROM}"


def rows_where(batch_id: int, after: int | None, states: tuple[str, ...],
               mark: str) -> tuple[str, list[Any]]:
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


FIGURES = (f"SELECT t.state, COUNT(*) AS n FROM (SELECT {STATE} AS state FROM {ROWS_FROM}"
           " WHERE r.batch_id = {m}) t GROUP BY t.state")


def figures(rows: Iterable[Row]) -> BatchFigures:
    return BatchFigures.of({row["state"]: int(row["n"]) for row in rows})


def batch(row: Row, when: When) -> Batch:
    """A row of ``BATCH_SELECT``."""
    return Batch(id=int(row["id"]), profile_id=row["profile_id"], mode=row["mode"],
                 name=row["name"], file_name=row["file_name"], made_at=when(row["made_at"]),
                 made_by=row["made_by"], rows=int(row["row_count"]), policy=row["policy"],
                 prefix=row["prefix"])


def batch_row(row: Row, record: Callable[[Row], LinkRecord]) -> BatchRow:
    """A row of ``row_select``; ``record`` reads the link's columns (absent: NULL id)."""
    ok = row["row_email_ok"]
    return BatchRow(batch_id=int(row["row_batch_id"]), number=int(row["row_number"]),
                    tx_ref=row["row_tx_ref"], values=json.loads(row["row_cells"]),
                    state=row["row_state"], record=None if row["id"] is None else record(row),
                    email_state=None if ok is None else (SENT if int(ok) else NOT_SENT),
                    email_error=row["row_email_error"])


def cells(values: dict[str, str]) -> str:
    return json.dumps(values, sort_keys=True, ensure_ascii=False)


# a batch's rows never sent (no link): a corrected file may change them (``add_rows``)
UNSENT = ("SELECT r.number AS number, r.cells AS cells, r.skipped AS skipped FROM batch_rows r"
          " LEFT JOIN links ON links.profile_id = r.profile_id AND links.tx_ref = r.tx_ref"
          " WHERE r.batch_id = {m} AND links.id IS NULL")


def corrections(rows: list[NewRow], have: set[int],
                unsent: Iterable[Row]) -> tuple[list[NewRow], list[tuple[str, int, int]]]:
    """What a corrected file changes: its rows the batch lacks (to insert), and the
    (cells, skipped, number) of its rows never sent whose values or skipped flag differ (to
    update; their reference stays)."""
    was = {int(r["number"]): (r["cells"], int(r["skipped"])) for r in unsent}
    added = [row for row in rows if row[0] not in have]
    again = []
    for number, _, values, skipped in rows:
        now = (cells(values), int(skipped))
        if number in was and was[number] != now:
            again.append((now[0], now[1], number))
    return added, again
