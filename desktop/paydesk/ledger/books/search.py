"""What both backends' searches share (``sqlite/search.py``: the file's full-text index;
``postgres/search.py``: trigrams): the links' columns every read takes, with a counter's
void; a literal LIKE pattern; and a page made of the rows read, in the query's order.
``Search`` is the one interface of a ``LinkQuery`` on either backend (``books/links.py``
asks it for pages, counts and anchors)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

from ..amounts import from_minor
from ..query import Cursor, Page
from ..records import LinkRecord
from .link_rows import COLUMNS as WRITTEN

# what a record is read with: its id, the columns a write names (link_rows.py) but the
# service's raw answer (read only by the details that show it), and the folded customer key
COLUMNS = ("id", *(c for c in WRITTEN if c != "raw"), "customer_key")
# A sale voided at a counter: its void in the counter book, read with the record by
# (profile_id, tx_ref), one seek in counter_voids' unique index per record read (both
# backends say it so)
_VOID = "FROM counter_voids cv WHERE cv.profile_id = links.profile_id AND cv.tx_ref = links.tx_ref"
VOIDED_AT = f"(SELECT cv.voided_at {_VOID}) AS voided_at"
VOIDED = f"EXISTS (SELECT 1 {_VOID})"  # a condition: the record is a sale voided at a counter
SELECT = ", ".join(f"links.{c}" for c in COLUMNS) + ", " + VOIDED_AT


class Search(Protocol):
    """A ``LinkQuery`` on one backend (``sqlite.search.Plan``, ``postgres.search.Plan``)."""

    def page(self, conn: Any, cursor: Cursor | None, limit: int, backwards: bool = False) -> Page: ...

    def count(self, conn: Any) -> int: ...

    def anchors(self, conn: Any, every: int) -> list[Cursor]: ...


def record_of(
    row: Any, raw: str | None, when: Callable[[Any], datetime], maybe: Callable[[Any], datetime | None]
) -> LinkRecord:
    """A record from ``SELECT``'s columns: ``when`` reads a time always there, ``maybe``
    one that may be none (a check never made, a sale never voided)."""
    fee, currency = row["fee_minor"], row["currency"]
    return LinkRecord(
        id=row["id"],
        profile_id=row["profile_id"],
        mode=row["mode"],
        tx_ref=row["tx_ref"],
        amount=from_minor(row["amount_minor"], currency),
        currency=currency,
        fee=None if fee is None else from_minor(fee, currency),
        email=row["email"],
        first_name=row["first_name"],
        last_name=row["last_name"],
        state=row["state"],
        state_raw=row["state_raw"],
        checkout_url=row["checkout_url"],
        reference=row["reference"],
        customization=json.loads(row["customization"] or "{}"),
        meta=json.loads(row["meta"] or "{}"),
        callback_url=row["callback_url"],
        return_url=row["return_url"],
        origin=row["origin"],
        error=row["error"],
        created_at=when(row["created_at"]),
        updated_at=when(row["updated_at"]),
        checked_at=maybe(row["checked_at"]),
        learned_by=row["learned_by"],
        voided_at=maybe(row["voided_at"]),
        actor=row["actor"],
        raw_json=raw,
    )


def page_of(
    rows: list[Any], limit: int, backwards: bool, columns: Sequence[str], record: Callable[[Any], LinkRecord]
) -> Page:
    """Up to ``limit`` of ``rows`` (read one more than that, so ``more`` is known), in the
    query's order (a page read backwards is turned round), its ends at the sort's
    ``columns``."""
    more = len(rows) > limit
    rows = rows[:limit]
    if backwards:
        rows.reverse()
    if not rows:
        return Page([], None, None, more)

    def at(row: Any) -> Cursor:
        return Cursor(tuple(row[c] for c in columns))

    return Page([record(r) for r in rows], at(rows[0]), at(rows[-1]), more)


__all__ = ["COLUMNS", "SELECT", "VOIDED", "VOIDED_AT", "Search", "page_of", "record_of"]
