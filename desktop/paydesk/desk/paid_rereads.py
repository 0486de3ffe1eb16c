"""The scheduler's reading again of paid records (``PaidSweep``, run by scheduler.py's
``Scheduler`` beside its own loop): a refund or a reversal can come to a paid record, so every
``PaidPacing.sweep`` s the ledger is asked which were paid lately and not read for a while
(``Ledger.paid_since``, a page at a time, never all held in memory), and each is read again,
one at a time in the background lane, as a call of the budget's background class."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from ..ledger import Cursor, LinkRecord, Page
from ..service.call_class import CallClass, calls_as
from ..service.errors import RateLimitedError, ServiceError
from .pacing import PaidPacing

log = logging.getLogger("paydesk.scheduler")
Group = tuple[str, str]  # (profile_id, mode)
# the ledger's paid records (Ledger.paid_since): (since, checked_before=, after=, limit=)
PaidPages = Callable[..., Awaitable[Page]]


class StopWatching(Exception):
    """The record can no longer be checked (its profile was deleted): drop it."""


class PaidSweep:
    """The scheduler's sweep of paid records. It shares the scheduler's background lane,
    its pauses per profile and mode (a 429), its deleted profiles and its figures;
    ``skip(record)``: the scheduler watches it already (or its profile is gone)."""

    def __init__(
        self,
        pages: PaidPages,
        check: Callable[[LinkRecord], Awaitable[LinkRecord]],
        pacing: PaidPacing,
        *,
        lane: asyncio.Semaphore,
        paused: dict[Group, float],
        gone: set[str],
        skip: Callable[[LinkRecord], bool],
        stats: Counter[str],
        longest_pause: float,
    ):
        self.pages, self.check, self.pacing = pages, check, pacing
        self.lane, self.paused, self.gone, self.skip = lane, paused, gone, skip
        self.stats, self.longest_pause = stats, longest_pause

    async def run(self) -> None:
        """Every ``pacing.sweep`` s, read again the paid records that are due; survives any
        exception (logged, then the next sweep)."""
        while True:
            try:
                await self.sweep_paid()
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug here must not stop the next sweeps
                self.stats["scheduler errors"] += 1
                log.exception("re-reading paid records failed; trying again later")
            await asyncio.sleep(self.pacing.sweep)

    async def sweep_paid(self) -> int:
        """Read again every paid record that is due (paid lately and not read for a while),
        a page at a time; returns how many were checked."""
        now = datetime.now(UTC)
        checked = 0
        failing: set[Group] = set()  # offline, no key, limited: left for the next sweep
        for since, stale in (
            (now - timedelta(seconds=self.pacing.fresh_for), now - timedelta(seconds=self.pacing.fresh_every)),
            (now - timedelta(days=self.pacing.days), now - timedelta(seconds=self.pacing.every)),
        ):
            after: Cursor | None = None
            while True:
                page = await self.pages(since, checked_before=stale, after=after, limit=self.pacing.page)
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
        if record.profile_id in self.gone or self.skip(record):
            return 0
        while (pause := self.paused.get(group, 0) - time.monotonic()) > 0:  # noqa: ASYNC110 (waits out a time, no event)
            await asyncio.sleep(pause)  # that profile and mode is rate limited: wait it out
        async with self.lane:
            self.stats["paid checks"] += 1
            try:
                with calls_as(CallClass.BACKGROUND):
                    await self.check(record)
            except asyncio.CancelledError:
                raise
            except StopWatching as why:
                log.info("not re-reading %s: %s", record.tx_ref, why)
                self.gone.add(record.profile_id)
                return 0
            except RateLimitedError as error:
                self.paused[group] = time.monotonic() + min(self.longest_pause, error.retry_after or 5.0)
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
