"""A batch's results file (issue 20 §3): every row of the file as it was loaded (its ``email``
the customer's address), then what became of it: its state in words, the reference its link
was made with, the service's reference and own word for the state, the checkout URL, the
error, and whether the link was e-mailed (``emailed``: yes, failed or no; ``emailed_at``
when, in UTC, ISO 8601; ``email_error`` why it failed). Every column name is said once.
CSV (UTF-8 with a BOM, so Excel reads it right) or XLSX by the file's suffix; guarded
against formulas as the exports are (desk/export.py: an apostrophe before a CSV cell a
spreadsheet would run, XLSX cells marked as text). Qt-free; the rows are read from
the book page by page and the file written on a worker thread, beside the target, put in
place only when whole.
"""

from __future__ import annotations

import asyncio
import csv
import os
from collections.abc import Sequence
from datetime import UTC
from pathlib import Path

from ...ledger.batch import (
    CREATED,
    CREATING,
    FAILED,
    NOT_SENT,
    PAID,
    REFUSED,
    SENT,
    SKIPPED,
    WAITING,
    Batch,
    BatchBook,
    BatchRow,
)
from ..export import service_state, spreadsheet_safe
from .sheet import FIELDS

# a row's state as the results file says it
STATE_WORDS = {
    WAITING: "not sent",
    CREATING: "sent, answer not in yet",
    CREATED: "created",
    PAID: "paid",
    REFUSED: "refused by the service",
    FAILED: "failed or cancelled",
    SKIPPED: "skipped: the row had problems",
}
# whether the row's link was e-mailed, as the results file says it (the latest try wins)
EMAILED_WORDS = {SENT: "yes", NOT_SENT: "failed", None: "no"}
RESULTS = (
    "result",
    "link_tx_ref",
    "service_reference",
    "service_state",
    "checkout_url",
    "error",
    "emailed",
    "emailed_at",
    "email_error",
)
PAGE = 1000


def columns(rows: Sequence[BatchRow]) -> list[str]:
    """The header: the file's row number, the link's fields, the extra fields the rows hold
    (in the order first met), then the results."""
    extra: dict[str, None] = {}
    for row in rows:
        for name in row.values:
            if name not in FIELDS:
                extra.setdefault(name, None)
    return ["row", *FIELDS, *extra, *RESULTS]


def cells(row: BatchRow, header: Sequence[str]) -> list[str]:
    """One row's cells as text, in the order of ``header`` (unguarded)."""
    record = row.record
    emailed = EMAILED_WORDS.get(row.email_state, "failed")
    at = row.email_at if emailed != "no" else None
    result = {
        "row": str(row.number),
        "result": STATE_WORDS.get(row.state, row.state),
        "link_tx_ref": row.tx_ref if row.state != SKIPPED else "",
        "service_reference": (record.reference or "") if record else "",
        "service_state": service_state(record) if record else "",
        "checkout_url": (record.checkout_url or "") if record else "",
        "error": (record.error or "") if record else "",
        "emailed": emailed,
        "emailed_at": at.astimezone(UTC).isoformat(timespec="seconds") if at else "",
        "email_error": (row.email_error or "") if emailed == "failed" else "",
    }
    return [result[name] if name in result else row.values.get(name, "") for name in header]


def _csv(path: Path, header: list[str], rows: Sequence[BatchRow]) -> None:
    with open(path, "w", encoding="utf-8-sig", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(header)
        out.writerows([spreadsheet_safe(c) for c in cells(row, header)] for row in rows)


def _xlsx(path: Path, header: list[str], rows: Sequence[BatchRow], title: str) -> None:
    from openpyxl import Workbook  # only when an XLSX is asked for
    from openpyxl.cell import WriteOnlyCell

    book = Workbook(write_only=True)
    sheet = book.create_sheet(title)
    sheet.append(header)
    for row in rows:
        line = []
        for text in cells(row, header):
            cell = WriteOnlyCell(sheet, value=text or None)
            if text:
                cell.data_type = "s"  # text stays text: never a formula, never a number
            line.append(cell)
        sheet.append(line)
    book.save(path)


def write_results(path: Path, batch: Batch, rows: Sequence[BatchRow]) -> Path:
    """Write the results of ``rows`` (a batch's, by number) to ``path``: XLSX when its
    suffix says so, else CSV. Blocking: call it on a worker thread."""
    header = columns(rows)
    partial = path.with_name(path.name + ".part")
    try:
        if path.suffix.lower() == ".xlsx":
            _xlsx(partial, header, rows, _sheet_title(batch.name))
        else:
            _csv(partial, header, rows)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path


def _sheet_title(name: str) -> str:
    """An XLSX sheet's title: at most 31 characters, none of []:*?/\\."""
    cleaned = " ".join("".join(" " if ch in "[]:*?/\\" else ch for ch in name).split())
    return cleaned[:31] or "Results"


async def all_rows(book: BatchBook, batch_id: int) -> list[BatchRow]:
    """Every row of a batch, by number, read page by page."""
    rows: list[BatchRow] = []
    after = None
    while True:
        page = await book.rows(batch_id, after=after, limit=PAGE)
        rows += page
        if len(page) < PAGE:
            return rows
        after = page[-1].number


async def save_results(book: BatchBook, batch: Batch, path: Path) -> int:
    """The batch's results file at ``path`` (the rows read from the book, the file written
    on a worker thread); returns how many rows it holds."""
    rows = await all_rows(book, batch.id)
    await asyncio.to_thread(write_results, path, batch, rows)
    return len(rows)
