"""The scheduler's reading again of paid records (split from scheduler.py, whose
``Scheduler`` it is a part of): a refund or a reversal can come to a paid record, so every
``paid_sweep`` s the ledger is asked which were paid lately and not read for a while
(``Ledger.paid_since``, a page at a time, never all held in memory), and each is read again,
one at a time in the background lane, as a call of the budget's background class."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from .ledger import Cursor, LinkRecord, Page
from .service.call_class import CallClass, calls_as
from .service.errors import RateLimitedError, ServiceError

log = logging.getLogger("paydesk.scheduler")
Group = tuple[str, str]  # (profile_id, mode)
# the ledger's paid records (Ledger.paid_since): (since, checked_before=, after=, limit=)
PaidPages = Callable[..., Awaitable[Page]]


class StopWatching(Exception):
    """The record can no longer be checked (its profile was deleted): drop it."""


class PaidRereads:
    """Scheduler's paid sweep (it holds the attributes named below)."""

    if TYPE_CHECKING:  # what Scheduler gives its paid sweep
        _paid: PaidPages | None
        _check: Callable[[LinkRecord], Awaitable[LinkRecord]]
        _entries: dict
        _gone: set[str]
        _paused: dict[Group, float]
        _lanes: dict[bool, asyncio.Semaphore]
        stats: Counter[str]
        longest_pause: float
        paid_days: float
        paid_fresh_for: float
        paid_fresh_every: float
        paid_every: float
        paid_sweep: float
        paid_page: int

    async def _paid_loop(self) -> None:
        """Every ``paid_sweep`` s, read again the paid records that are due; survives any
        exception (logged, then the next sweep)."""
        while True:
            try:
                await self.sweep_paid()
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug here must not stop the next sweeps
                self.stats["scheduler errors"] += 1
                log.exception("re-reading paid records failed; trying again later")
            await asyncio.sleep(self.paid_sweep)

    async def sweep_paid(self) -> int:
        """Read again every paid record that is due (paid lately and not read for a while),
        a page at a time; returns how many were checked."""
        if self._paid is None:  # not asked to: paid records are not read again
            return 0
        now = datetime.now(UTC)
        checked = 0
        failing: set[Group] = set()  # offline, no key, limited: left for the next sweep
        for since, stale in (
                (now - timedelta(seconds=self.paid_fresh_for),
                 now - timedelta(seconds=self.paid_fresh_every)),
                (now - timedelta(days=self.paid_days), now - timedelta(seconds=self.paid_every))):
            after: Cursor | None = None
            while True:
                page = await self._paid(since, checked_before=stale, after=after,
                                        limit=self.paid_page)
                for record in page.records:
                    if (record.profile_id, record.mode) in failing:
                        continue
                    done = await self._recheck_paid(record)
                    if done < 0:
                        failing.add((record.profile_id, record.mode))
                    checked += max(done, 0)
                if not page.more:
                    break
                after = page.end
        return checked

    async def _recheck_paid(self, record: LinkRecord) -> int:
        """1: read again; 0: skipped; -1: failed (the rest of its group waits a sweep)."""
        group = (record.profile_id, record.mode)
        if record.profile_id in self._gone or record.key in self._entries:
            return 0
        while (pause := self._paused.get(group, 0) - time.monotonic()) > 0:
            await asyncio.sleep(pause)  # that profile and mode is rate limited: wait it out
        async with self._lanes[False]:
            self.stats["paid checks"] += 1
            try:
                with calls_as(CallClass.BACKGROUND):
                    await self._check(record)
            except asyncio.CancelledError:
                raise
            except StopWatching as why:
                log.info("not re-reading %s: %s", record.tx_ref, why)
                self._gone.add(record.profile_id)
                return 0
            except RateLimitedError as error:
                self._paused[group] = time.monotonic() + min(self.longest_pause,
                                                             error.retry_after or 5.0)
                self.stats["failures"] += 1
                self.stats[type(error).__name__] += 1
                return -1
            except ServiceError as error:
                self.stats["failures"] += 1
                self.stats[type(error).__name__] += 1
                log.info("re-reading paid %s failed: %s", record.tx_ref, error.message)
                return -1
            except Exception as error:  # logged; the next sweep tries again
                self.stats["failures"] += 1
                self.stats[type(error).__name__] += 1
                log.exception("unexpected error re-reading %s", record.tx_ref)
                return -1
        return 1
