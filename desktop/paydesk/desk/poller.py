"""Who checks payments on a shared ledger: one desk per shop, the holder of the poller lease.

The scheduler of every desk hears ``record_changed`` through ``Poller.seen`` instead of
directly. While this desk holds the lease it watches every open record (another desk's
too); otherwise it watches only the creates it made itself and has to settle (a create is
settled by the desk that knows whether it is still under way). Another desk's unfinished
create is left to that desk, unless it has waited longer than ``STALE_CREATE`` (its desk
has gone): the poller settles it then, with the same reference.

Each check as the poller carries the lease's fence (``Fence``): a desk that lost the lease
meanwhile has its write refused (``StaleLease``) and stops watching that record.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from ..i18n import _
from ..ledger import CREATING, Cursor, Fence, Ledger, LedgerError, LinkRecord, Page, StaleLease
from .links import LinksController
from .scheduler import Scheduler, StopWatching

log = logging.getLogger("paydesk.poller")
STALE_CREATE = 120.0  # s: another desk's unfinished create older than this is the poller's


class Poller:
    """``scheduler`` is set once made (it is made with this poller's ``check`` and ``paid``)."""

    scheduler: Scheduler

    def __init__(
        self, links: LinksController, ledger: Ledger, fence: Callable[[], Fence | None], *, watch_days: float = 7.0
    ):
        self.links, self.ledger = links, ledger
        self._fence = fence
        self.watch_days = watch_days
        self._foreign = False  # the record being announced was changed by another desk

    @property
    def holder(self) -> bool:
        return self._fence() is not None

    @contextmanager
    def foreign(self) -> Iterator[None]:
        """Announcements made inside come from another desk's change."""
        self._foreign = True
        try:
            yield
        finally:
            self._foreign = False

    def _stale(self, record: LinkRecord) -> bool:
        return (datetime.now(UTC) - record.updated_at).total_seconds() > STALE_CREATE

    def _made_here(self, record: LinkRecord) -> bool:
        """A reference PayDesk drew here carries this installation's id."""
        return f"-{self.links.session.installation_id}-" in record.tx_ref

    def _mine_to_watch(self, record: LinkRecord, foreign: bool) -> bool:
        if record.state == CREATING:
            return not foreign or (self.holder and self._stale(record))
        return self.holder

    async def watch_unsettled(self) -> None:
        """At start: the unfinished creates this desk made (a run that ended before their
        answer), and any left unfinished too long (their desk has gone). Another desk's
        recent one is its own to settle: it may still be waiting for its answer."""
        for record in await self.ledger.unsettled():
            if self._made_here(record) or self._stale(record):
                self.scheduler.watch(record)

    async def watch_abandoned(self) -> None:
        """As the lease holder (every minute): creates left unfinished too long, whichever
        desk made them."""
        if self.holder:
            for record in await self.ledger.unsettled():
                if self._stale(record):
                    self.scheduler.watch(record)

    def seen(self, record: LinkRecord) -> None:
        """``record_changed``: follow it, or leave it to the desk that checks payments."""
        if record.final or self._mine_to_watch(record, self._foreign):
            self.scheduler.seen(record)
        else:
            self.scheduler.keep_only(lambda r: r.key != record.key)

    async def check(self, record: LinkRecord) -> LinkRecord:
        """The scheduler's check: only as the lease holder, fenced."""
        fence = self._fence()
        if fence is None:
            raise StopWatching(_("another desk checks payments"))
        try:
            return await self.links.check(record, fence=fence)
        except StaleLease as error:
            raise StopWatching(str(error)) from None

    async def paid(
        self,
        since: datetime,
        profile_id: str | None = None,
        mode: str | None = None,
        *,
        checked_before: datetime | None = None,
        after: Cursor | None = None,
        limit: int = 200,
    ) -> Page:
        """Paid records to read again (refunds, reversals): the lease holder's work only."""
        if not self.holder:
            return Page()
        return await self.ledger.paid_since(
            since, profile_id, mode, checked_before=checked_before, after=after, limit=limit
        )

    async def lease_changed(self, mine: bool) -> None:
        """Took the lease: watch every open record. Lost it: keep only this desk's creates
        (another desk's abandoned create is the new holder's to settle)."""
        if not mine:
            self.scheduler.keep_only(lambda r: r.state == CREATING and self._made_here(r))
            return
        pause = 1.0
        while self.holder:  # the ledger out of reach just then: again, until read or lost
            try:
                await self.watch_all()
                return
            except LedgerError as error:
                log.info("reading the open records as the lease holder failed (%s); again in %.0f s", error, pause)
                await asyncio.sleep(pause)
                pause = min(pause * 2, 30.0)

    async def watch_all(self) -> None:
        """As the lease holder: every open record (and every abandoned create) watched."""
        if not self.holder:
            return
        for record in await self.ledger.unsettled():
            if self._stale(record):
                self.scheduler.watch(record)
        since = datetime.now(UTC) - timedelta(days=self.watch_days)
        for record in await self.ledger.open_records(since=since, limit=None):  # all of them
            self.scheduler.watch(record)
        log.info("this desk checks payments now: watching %d records", len(self.scheduler.watched()))
