"""Checked rows into the batches' book (Qt-free): a new batch, or the rows of a corrected file
joined to the newest batch of the same file name, profile and mode, so that each file row
keeps the reference it was given the first time and only what is missing is created."""

from __future__ import annotations

import getpass
from collections.abc import Iterable
from pathlib import Path

from ...config.profiles import Profile
from ...i18n import N_, _, ngettext, staff
from ...ledger.batch import (
    ALL,
    CREATED,
    CREATING,
    FAILED,
    PAID,
    REFUSED,
    Batch,
    BatchBook,
    NewRow,
)
from ...ledger.errors import LedgerError
from ..formats import number_in
from .check import BulkRow

# what a row sent before must still say in a corrected file (else it is another payment)
SAME = ("amount", "currency", "email", "first_name", "last_name", "title", "tx_ref")
NAMES = {
    "amount": N_("amount"),
    "currency": N_("currency"),
    "email": N_("e-mail"),
    "first_name": N_("first name"),
    "last_name": N_("last name"),
    "title": N_("title"),
    "tx_ref": N_("reference"),
}
SENT_STATES = (CREATING, CREATED, PAID, REFUSED, FAILED)  # the rows with a link
SHOWN = 3  # changed rows named in the message
PAGE = 500


class ChangedRows(ValueError):
    """A corrected file whose rows sent before now say something else (rows moved, sorted,
    inserted or edited): joining it would send one customer's row twice and another's never.
    Refused before anything is written; ``message`` names the first such rows."""

    def __init__(self, message: str, numbers: list[int]):
        super().__init__(message)
        self.message = message
        self.numbers = numbers


def new_rows(rows: Iterable[BulkRow]) -> list[NewRow]:
    """The book's rows of checked rows: the file's own reference or "" (the batch's), and a
    row with problems skipped."""
    return [(r.number, r.values.get("tx_ref", "").strip(), dict(r.values), bool(r.problems)) for r in rows]


def _differences(was: dict[str, str], now: dict[str, str]) -> list[str]:
    def shown(values: dict[str, str], field: str) -> str:
        return values.get(field, "").strip() or _("(none)")

    return [
        f"{_(NAMES[f])} {shown(was, f)} → {shown(now, f)}"
        for f in SAME
        if was.get(f, "").strip() != now.get(f, "").strip()
    ]


def _changed_words(changed: list[str]) -> str:
    """The rows a corrected file changes, the first ``SHOWN`` said and the rest counted, and
    what to do: one sentence in the staff's language."""
    shown = "; ".join(changed[:SHOWN])
    more = len(changed) - SHOWN
    if more > 0:
        return ngettext(
            "{shown} (and {count} more): restore them, or save the file under another name to make a new batch",
            "{shown} (and {count} more): restore them, or save the file under another name to make a new batch",
            more,
        ).format(shown=shown, count=number_in(more, staff()))
    return ngettext(
        "{shown}: restore it, or save the file under another name to make a new batch",
        "{shown}: restore them, or save the file under another name to make a new batch",
        len(changed),
    ).format(shown=shown)


async def changed_rows(book: BatchBook, batch: Batch, rows: list[BulkRow]) -> list[tuple[int, str]]:
    """What each row of ``batch`` sent already (it has a link) says differently in the
    corrected file's ``rows`` ("Row 3 differs from the row sent before (amount 25 → 30)"),
    and the valid rows not sent yet whose reference, set already, the file changes (a row's
    reference is set once)."""
    by_number = {r.number: r for r in rows}
    found: list[tuple[int, str]] = []
    after = None
    while page := await book.rows(batch.id, after, PAGE):
        for was in page:
            row = by_number.get(was.number)
            if row is None:
                continue  # no longer in the file: it stays as it was
            if was.state in SENT_STATES:
                diff = _differences(was.values, row.values)
                if diff:
                    found.append(
                        (
                            was.number,
                            _("Row {number} differs from the row sent before ({fields})").format(
                                number=was.number, fields=", ".join(diff)
                            ),
                        )
                    )
                continue
            ref = row.values.get("tx_ref", "").strip() or batch.ref(was.number)
            if was.tx_ref and not row.problems and ref != was.tx_ref:
                found.append(
                    (
                        was.number,
                        _(
                            "Row {number} differs from its row in the batch, whose reference is set (reference "
                            "{tx_ref} → {ref})"
                        ).format(number=was.number, tx_ref=was.tx_ref, ref=ref),
                    )
                )
        after = page[-1].number
    return found


def user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no user name in this environment
        return "unknown"


async def keep(
    book: BatchBook,
    profile: Profile,
    mode: str,
    file: str | Path,
    rows: list[BulkRow],
    policy: str,
    *,
    name: str | None = None,
    by: str | None = None,
    desk_id: str = "",
) -> tuple[Batch, bool]:
    """The batch the checked ``rows`` of ``file`` belong to, written: the newest batch of
    that file name (its rows not sent yet take the corrected values, new rows are added,
    rows sent stay as they are), else a new one named ``name`` (default: the file's name).
    Returns it and whether it joined an earlier batch. "All or nothing" with a row with
    problems is refused here, before anything is written (ValueError), and so is a corrected
    file in which a row sent before says something else (``ChangedRows``). ``desk_id``: this
    installation's id, carried by a new batch's references as by every reference drawn
    here ("SHOP-K7QM4X-AB12CD-00042"; on a shared ledger a desk knows its own creates)."""
    if policy == ALL and any(r.problems for r in rows):
        raise ValueError(_("All or nothing: fix every row with problems first"))
    file_name = Path(file).name
    earlier = await book.find(profile.id, mode, file_name)
    if earlier is not None:
        changed = await changed_rows(book, earlier, rows)
        if changed:
            raise ChangedRows(
                _changed_words([text for _unused, text in changed]),
                [number for number, _unused in changed],
            )
        await book.add_rows(earlier.id, new_rows(rows))
        batch = await book.batch(earlier.id)
        if batch is None:
            raise LedgerError(_("batch {id} is not in the batches' book").format(id=earlier.id))
        return batch, True
    prefix = f"{profile.txref_prefix}-{desk_id}" if desk_id else profile.txref_prefix
    batch = await book.add_batch(
        profile.id, mode, name or file_name, file_name, policy, by or user(), new_rows(rows), txref_prefix=prefix
    )
    return batch, False
