"""The activity book: who did what that leaves no record of its own (an export, profile keys
saved, a switch to live mode), when, and in which profile and mode.

A person's other writes carry their name beside the record itself (``actor`` on a link, a
counter's sale, void, decision and shift, a card operation and its audit lines:
``actor_schema.py``). Each entry is one row written once; the store refuses to change or
delete one. Read newest first, a page at a time (keyset by id).

``ActivityBook`` is the interface; ``SqliteActivityBook`` (beside a desk's SQLite ledger) and
``PostgresActivityBook`` (on a shop's shared ledger) implement it (``books/activity.py``).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from datetime import datetime

EXPORT = "export"  # a file written from the ledger (transactions, the card audit)
KEYS_SAVED = "keys saved"  # a profile saved with new keys
SWITCHED_TO_LIVE = "switched to live"  # the desk switched to live mode


@dataclass(frozen=True)
class Activity:
    id: int
    at: datetime
    actor: str | None  # the person signed in; None: no staff set up
    action: str  # EXPORT, KEYS_SAVED or SWITCHED_TO_LIVE
    profile_id: str = ""
    mode: str = ""
    detail: str = ""  # what, in a few words ("Transactions to May.csv, 120 records")


class ActivityBook(abc.ABC):
    """Writes are durable when they return; each is one transaction."""

    @abc.abstractmethod
    async def note(
        self, action: str, actor: str | None, *, profile_id: str = "", mode: str = "", detail: str = ""
    ) -> Activity:
        """One entry, stamped now."""

    @abc.abstractmethod
    async def page(self, before: int | None = None, limit: int = 100) -> list[Activity]:
        """Entries newest first, those with id < ``before``."""

    @abc.abstractmethod
    async def count(self) -> int: ...


__all__ = ["EXPORT", "KEYS_SAVED", "SWITCHED_TO_LIVE", "Activity", "ActivityBook"]
