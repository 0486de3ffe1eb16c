"""Checked rows into the batches' book (Qt-free): a new batch, or the rows of a corrected file
joined to the newest batch of the same file name, profile and mode, so that each file row
keeps the reference it was given the first time and only what is missing is created."""

from __future__ import annotations

import getpass
from collections.abc import Iterable
from pathlib import Path

from ...config.profiles import Profile
from ...ledger.batch import ALL, Batch, BatchBook, NewRow
from ...ledger.engine import LedgerError
from .check import BulkRow


def new_rows(rows: Iterable[BulkRow]) -> list[NewRow]:
    """The book's rows of checked rows: the file's own reference or "" (the batch's), and a
    row with problems skipped."""
    return [(r.number, r.values.get("tx_ref", "").strip(), dict(r.values), bool(r.problems))
            for r in rows]


def user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no user name in this environment
        return "unknown"


async def keep(book: BatchBook, profile: Profile, mode: str, file: str | Path,
               rows: list[BulkRow], policy: str, *, name: str | None = None,
               by: str | None = None, desk_id: str = "") -> tuple[Batch, bool]:
    """The batch the checked ``rows`` of ``file`` belong to, written: the newest batch of
    that file name (its rows not sent yet take the corrected values, new rows are added,
    rows sent stay as they are), else a new one named ``name`` (default: the file's name).
    Returns it and whether it joined an earlier batch. "All or nothing" with a row with
    problems is refused here, before anything is written (ValueError). ``desk_id``: this
    installation's id, carried by a new batch's references as by every reference drawn
    here ("SHOP-K7QM4X-AB12CD-00042"; on a shared ledger a desk knows its own creates)."""
    if policy == ALL and any(r.problems for r in rows):
        raise ValueError("All or nothing: fix every row with problems first")
    file_name = Path(file).name
    earlier = await book.find(profile.id, mode, file_name)
    if earlier is not None:
        await book.add_rows(earlier.id, new_rows(rows))
        batch = await book.batch(earlier.id)
        if batch is None:
            raise LedgerError(f"batch {earlier.id} is not in the batches' book")
        return batch, True
    prefix = f"{profile.txref_prefix}-{desk_id}" if desk_id else profile.txref_prefix
    batch = await book.add_batch(profile.id, mode, name or file_name, file_name, policy,
                                 by or user(), new_rows(rows), txref_prefix=prefix)
    return batch, False
