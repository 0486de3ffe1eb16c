"""The ledger as the rest of PayDesk sees it: an async repository.

Views and controllers await these methods and never see SQL; a second backend (a shared
PostgreSQL ledger for several counters) implements this same interface.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from ..service.models import PaymentLink, PaymentRequest, Transaction
from .errors import LedgerError
from .query import Cursor, LinkQuery, Page
from .records import LinkRecord
from .summary import DaySummary


class DuplicateReference(LedgerError):
    """This profile already has a record with that tx_ref (in either mode)."""

    def __init__(self, tx_ref: str):
        super().__init__(f"{tx_ref} is already in the ledger")
        self.tx_ref = tx_ref


@dataclass(frozen=True)
class Fence:
    """A write made as the shop's poller (a shared ledger's lease holder, ``epoch``): the
    ledger refuses it (``StaleLease``) once another desk holds the lease. SQLite ignores it."""

    holder: str
    epoch: int


class StaleLease(LedgerError):
    """A write made as the poller by a desk that no longer holds the lease: not made."""

    def __init__(self) -> None:
        super().__init__("Another desk checks payments now: this check was not saved")


class Ledger(abc.ABC):
    """Every link PayDesk creates and every transaction it looks up, per profile and mode.

    Writes are durable when they return. While another program holds the store, writes
    wait (never fail for it) and ``busy`` is True; listeners added with ``on_busy`` hear
    of each change.
    """

    busy: bool = False

    @abc.abstractmethod
    def on_busy(self, listener: Callable[[bool], None]) -> None:
        """Call ``listener(busy)`` (on the event loop) when saving starts or stops waiting."""

    @abc.abstractmethod
    async def opened(self) -> None:
        """Wait until the store is open and current; raises LedgerError if it cannot be."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Finish what was asked, then release the store."""

    # -- links: written before the call, completed after ---------------------------------

    @abc.abstractmethod
    async def begin_link(
        self, profile_id: str, mode: str, request: PaymentRequest, *, actor: str | None = None
    ) -> LinkRecord:
        """The intent, before the call: state "creating", made by ``actor`` (the person signed
        in; None: no staff set up). Raises DuplicateReference."""

    @abc.abstractmethod
    async def complete_link(self, profile_id: str, link: PaymentLink) -> LinkRecord:
        """The service made it: "pending", with its checkout URL and reference."""

    @abc.abstractmethod
    async def reject_link(self, profile_id: str, tx_ref: str, reason: str) -> LinkRecord:
        """The service refused it: "rejected", with why."""

    @abc.abstractmethod
    async def note_error(self, profile_id: str, tx_ref: str, reason: str) -> LinkRecord:
        """The outcome of a create is unknown: it stays "creating", with what happened."""

    @abc.abstractmethod
    async def record_lookup(
        self, profile_id: str, mode: str, tx: Transaction, *, fence: Fence | None = None, learned_by: str = "check"
    ) -> tuple[LinkRecord, bool]:
        """What a lookup said, in one transaction with what was there before. A transaction
        the ledger did not have is added (origin "lookup"). Returns the record and whether
        its state changed. With ``fence`` (the poller's check) nothing is written once the
        fence no longer holds the lease. ``learned_by`` ("check" or "notification") is kept
        with the record whenever its state changes: how PayDesk learned its state."""

    @abc.abstractmethod
    async def touch(self, profile_id: str, tx_ref: str, *, fence: Fence | None = None) -> None:
        """A check happened and said nothing new."""

    @abc.abstractmethod
    async def import_records(self, records: Sequence[LinkRecord]) -> int:
        """Add records in bulk (their ids are ignored); existing tx_refs are kept as they are.
        Returns how many were added."""

    # -- reading --------------------------------------------------------------------------

    @abc.abstractmethod
    async def get(self, profile_id: str, tx_ref: str) -> LinkRecord | None:
        """One record, with the service's last raw answer."""

    @abc.abstractmethod
    async def references_in(self, profile_id: str, refs: Sequence[str]) -> set[str]:
        """Which of ``refs`` (a few hundred at most: one query) the profile's ledger holds."""

    @abc.abstractmethod
    async def page(
        self, query: LinkQuery, after: Cursor | None = None, before: Cursor | None = None, limit: int = 100
    ) -> Page:
        """Up to ``limit`` records in the query's order, after ``after`` (or the ones just
        before ``before``), found by seeking along an index, never by skipping rows."""

    @abc.abstractmethod
    async def last_page(self, query: LinkQuery, limit: int = 100) -> Page:
        """The last ``limit`` records in the query's order (the end of the list)."""

    @abc.abstractmethod
    async def count(self, query: LinkQuery) -> int:
        """How many records the query matches."""

    @abc.abstractmethod
    async def anchors(self, query: LinkQuery, every: int) -> list[Cursor]:
        """Where every ``every``-th record of the query ends a block (rows every-1,
        2·every-1, … in the query's order): any block of the list is then found by seeking
        after the anchor before it, however far down it is."""

    @abc.abstractmethod
    async def changes(self) -> int:
        """A number that moves when another program (another PayDesk window) changed the
        store: a view compares it to know when to read again, without reading everything.
        This desk's own changes are announced by its controllers' events instead."""

    @abc.abstractmethod
    async def by_reference(self, profile_id: str, reference: str) -> LinkRecord | None:
        """The record the service knows by ``reference`` (its own id), in either mode."""

    @abc.abstractmethod
    async def day_summary(self, profile_id: str, mode: str, start: datetime, end: datetime) -> DaySummary:
        """Records made in [start, end) by state; paid amounts and fees per currency."""

    @abc.abstractmethod
    async def unsettled(self, profile_id: str | None = None) -> list[LinkRecord]:
        """Creates that may or may not have reached the service (state "creating")."""

    @abc.abstractmethod
    async def open_records(
        self,
        profile_id: str | None = None,
        mode: str | None = None,
        *,
        since: datetime | None = None,
        limit: int | None = 1000,
    ) -> list[LinkRecord]:
        """Records the service may still change (pending or unknown), newest first, made
        since ``since`` when given."""

    @abc.abstractmethod
    async def paid_since(
        self,
        since: datetime,
        profile_id: str | None = None,
        mode: str | None = None,
        *,
        checked_before: datetime | None = None,
        after: Cursor | None = None,
        limit: int = 200,
    ) -> Page:
        """Paid records (state "success") that became paid at or after ``since``, oldest
        first, a page at a time (``after``: the previous page's ``end``); only those last
        checked before ``checked_before`` when given. A refund or reversal can still come
        to them: they are read again for a while."""

    @abc.abstractmethod
    async def count_paid_since(self, since: datetime, profile_id: str | None = None, mode: str | None = None) -> int:
        """How many records ``paid_since`` would page through."""

    # -- references -----------------------------------------------------------------------

    @abc.abstractmethod
    async def peek_sequence(self, day: date) -> int:
        """The number the next reference of ``day`` would carry (nothing is used up)."""

    @abc.abstractmethod
    async def claim_sequence(self, day: date, value: int) -> bool:
        """Use up ``value`` for ``day``; False if another window used it first."""

    @abc.abstractmethod
    async def take_sequence(self, day: date) -> int:
        """Use up the next number of ``day`` and return it, in one write (nothing read
        first: of two windows taking at once, each gets its own)."""

    async def recent(self, profile_id: str, mode: str, limit: int = 100) -> list[LinkRecord]:
        """The newest links made here, for the links tab."""
        page = await self.page(LinkQuery(profile_id, mode, origin="link"), limit=limit)
        return page.records
