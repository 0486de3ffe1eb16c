"""What a view asks the ledger for: filters, a sort, and pages fetched by seeking (keyset)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from .records import LinkRecord

# The sorts the ledger browser offers; each has an index (see schema.py).
SORTS = ("created", "amount", "state", "customer", "email", "reference", "currency", "checked")


@dataclass(frozen=True)
class LinkQuery:
    """Records of one profile and mode. Every filter is optional; ``text`` searches the
    reference, the service's reference, the e-mail and the customer's name."""

    profile_id: str
    mode: str
    text: str = ""
    states: frozenset[str] = frozenset()
    currencies: frozenset[str] = frozenset()
    created_from: datetime | None = None  # inclusive
    created_to: datetime | None = None  # exclusive
    origin: str | None = None  # "link" (made here) or "lookup"; None: both
    tx_refs: frozenset[str] = frozenset()  # exactly these (e.g. what a reconcile changed)
    voided: bool | None = None  # True: only sales voided at a counter; False: none; None: both
    sort: str = "created"
    descending: bool = True

    def __post_init__(self) -> None:
        if self.sort not in SORTS:
            raise ValueError(f"unknown sort {self.sort!r}")

    def admits_state(self, record: LinkRecord) -> bool:
        """Whether ``record``'s state and void pass the query's state filters (the list
        filtered by state holds it)."""
        return (not self.states or record.state in self.states) and (
            self.voided is None or (record.voided_at is not None) == self.voided
        )

    def sorted_by(self, sort: str, descending: bool | None = None) -> LinkQuery:
        return replace(self, sort=sort, descending=self.descending if descending is None else descending)


@dataclass(frozen=True)
class Cursor:
    """A row's place in a sort: its values of the sort's key columns (seek from there)."""

    values: tuple[Any, ...]


@dataclass(frozen=True)
class Page:
    records: list[LinkRecord] = field(default_factory=list)
    start: Cursor | None = None  # the first row: pass as ``before`` for the page before
    end: Cursor | None = None  # the last row: pass as ``after`` for the next page
    more: bool = False  # another page follows in the direction this one was read


def like(text: str) -> str:
    """A LIKE pattern (with ESCAPE '\\') that finds ``text`` anywhere, taken literally."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
