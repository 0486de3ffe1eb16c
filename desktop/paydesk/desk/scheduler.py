"""The one scheduler that decides which open records are checked with the service, and when.

Qt-free. It re-checks links that are waiting for payment (often while one is on screen,
backing off after), settles creates whose answer was lost (the same request, the same
tx_ref), and stops at a final state, except for paid ones: a refund or a reversal can still
come to them, so they are read again at a slow pace for 30 days, found a page at a time in
the ledger (``paid_since``), never all held in memory. Each check is its own task under a bounded
concurrency, so one slow check holds up nothing else; the records on screen have their own
lane, so "check now" is immediate. A check's task starts only when its lane has a place
(``lanes.py``): a slow service piles up no waiting checks. No exception ends it: each failure is logged, counted,
and retried with backoff; a rate limit pauses only the profile and mode it came from.

How often: ``desk/pacing.py`` (a link a notification can settle, too); each record's next
wait: ``desk/spacing.py``.

Each check is a call of its class for the service's budget (``service/call_class.py``): a
check asked for now (a record opened) is a person's look-up, a record on screen's is of the
codes on screen, every other (and the paid re-reads) of the background.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import math
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable

from ..ledger import CREATING, LinkRecord
from ..service.call_class import CallClass, calls_as
from ..service.errors import RateLimitedError, ServiceError
from .lanes import Lanes
from .pacing import PACING, PAID_PACING, Pacing, PaidPacing
from .paid_rereads import PaidPages, PaidSweep, StopWatching
from .spacing import Spacing
from .watched import Entry, Group, Key

log = logging.getLogger("paydesk.scheduler")
# a pass over the entries costs time in proportion to their number (thousands after a batch
# of bulk links): passes are spaced by this many times the last one's cost (at most
# LONGEST_GAP s), so that they take a small share of the loop's thread
GAP_FACTOR = 20
LONGEST_GAP = 0.25


class Scheduler(Spacing):
    """``Scheduler(check, settle)``: ``pacing`` how often (``desk/pacing.py``); ``paid``
    the ledger's paid records, read again at ``paid_pacing`` (None: never); ``busy(record)``
    a create of it still under way here (not settled behind its back); ``notified`` and
    ``delivering`` see the module's words."""

    def __init__(
        self,
        check: Callable[[LinkRecord], Awaitable[LinkRecord]],
        settle: Callable[[LinkRecord], Awaitable[LinkRecord]],
        *,
        pacing: Pacing = PACING,
        parallel: int = 4,
        focus_parallel: int = 2,
        busy: Callable[[LinkRecord], bool] = lambda r: False,
        paid: PaidPages | None = None,
        paid_pacing: PaidPacing = PAID_PACING,
        notified: Callable[[LinkRecord], bool] | None = None,
        delivering: Callable[[LinkRecord], bool] | None = None,
    ):
        self._check, self._settle = check, settle
        self.pacing = pacing
        self.notified = notified  # a notification can settle it (desk/notified.py)
        self.delivering = delivering  # notifications come for its profile and mode now
        self._gone: set[str] = set()  # deleted profiles: their records are never checked
        self._busy = busy
        self._entries: dict[Key, Entry] = {}
        self._focused: dict[str, Key] = {}  # view name -> what it shows
        self._paused: dict[Group, float] = {}  # rate limited until (monotonic)
        self._lanes = Lanes(parallel, focus_parallel)  # a check starts when its lane has room
        self._tasks: set[asyncio.Task] = set()
        self._wake = asyncio.Event()
        # the loop sleeps until ``_wake_at`` (monotonic): an entry due sooner sets a timer
        # (``_soon``) instead of waking the loop for a pass over every entry now
        self._wake_at = -math.inf  # -inf: a pass is under way or about to be (it sees all)
        self._timer: asyncio.TimerHandle | None = None
        self._gap = 0.0  # s: the least time between two passes (see GAP_FACTOR)
        self._passed = -math.inf  # monotonic: when the last pass was
        self.stats: Counter[str] = Counter()  # checks, settles, failures, and each error's name
        # paid records, read again for refunds and reversals, one at a time in the
        # background lane (a slow pace)
        self.paid = (
            None
            if paid is None
            else PaidSweep(
                paid,
                check,
                paid_pacing,
                lane=self._lanes.gates[False],
                paused=self._paused,
                gone=self._gone,
                skip=lambda record: record.key in self._entries,
                stats=self.stats,
                longest_pause=pacing.longest_pause,
            )
        )

    async def sweep_paid(self) -> int:
        """Read again every paid record that is due now; how many were (0 without ``paid``)."""
        return await self.paid.sweep_paid() if self.paid is not None else 0

    # -- what to watch ------------------------------------------------------------------

    def watched(self) -> list[LinkRecord]:
        return [e.record for e in self._entries.values()]

    def watch(self, record: LinkRecord) -> None:
        """Keep an open record checked (a "creating" one settled) until it is final."""
        if record.final or (record.state != CREATING and not record.checkout_url and record.origin == "link"):
            return
        entry = self._entries.get(record.key)
        if entry is not None:
            entry.record = record
            return
        first = self.pacing.settle_first if record.state == CREATING else self.pacing.first_every
        entry = self._entries[record.key] = Entry(record, time.monotonic() + self._pace(record, first), first)
        self._soon(entry.due)

    def seen(self, record: LinkRecord) -> None:
        """A record changed elsewhere (created, settled, checked): follow it."""
        if record.final:
            self._entries.pop(record.key, None)
        elif record.key in self._entries:
            self._entries[record.key].record = record
        else:
            self.watch(record)

    def later(self, key: Key, every: float) -> None:
        """Check the watched record ``key`` first in ``every`` s, and no more often after
        (unless a view shows it): a link of a batch of bulk links, one of hundreds made at
        once and paid over days by people not watching a screen here. A "creating" one is
        settled at the usual pace."""
        entry = self._entries.get(key)
        if entry is None or entry.settling:
            return
        entry.least = every
        entry.interval = max(entry.interval, every)
        if not self._is_focused(key):
            entry.due = max(entry.due, time.monotonic() + every)

    def keep_only(self, keep: Callable[[LinkRecord], bool]) -> None:
        """Stop watching every record ``keep`` refuses (another desk checks them now)."""
        for key in [k for k, e in self._entries.items() if not keep(e.record)]:
            del self._entries[key]

    def forget(self, profile_id: str) -> None:
        """A profile was deleted: none of its records is checked again."""
        self._gone.add(profile_id)
        for key in [k for k in self._entries if k[0] == profile_id]:
            del self._entries[key]

    def focus(self, view: str, record: LinkRecord | None) -> None:
        """``view`` shows ``record`` now (None: nothing): check it often, starting now."""
        previous = self._focused.pop(view, None)
        if previous is not None and previous in self._entries and not self._is_focused(previous):
            self._entries[previous].focused_since = None
        if record is None:
            return
        self._focused[view] = record.key
        if not self._delivered(record):
            self.check_now(record)
            return
        self.watch(record)  # notifications bring PAID: no look-up now, the safety net's pace
        entry = self._entries.get(record.key)
        if entry is not None:
            if entry.focused_since is None:
                entry.focused_since = time.monotonic()
            entry.due = min(entry.due, time.monotonic() + self.pacing.focused_notified_every)
            self._soon(entry.due)

    def check_now(self, record: LinkRecord) -> None:
        self.watch(record)
        entry = self._entries.get(record.key)
        if entry is None:
            return
        if self._is_focused(record.key) and entry.focused_since is None:
            entry.focused_since = time.monotonic()
        entry.asked = True
        if entry.running and entry.waiting and entry.task is not None:
            entry.moved = True  # waiting behind slow checks: start again in the on-screen lane
            entry.task.cancel()
        elif entry.running:
            entry.again = True
        entry.due = time.monotonic()
        entry.interval = self.pacing.first_every
        self._wake.set()

    def _soon(self, due: float) -> None:
        """An entry comes due at ``due``: the loop wakes by then (not sooner than the gap
        between passes allows), by a timer: adding an entry costs no pass over the others."""
        due = max(due, self._passed + self._gap)
        if due >= self._wake_at:
            return  # the loop wakes by then anyway
        self._wake_at = due
        if self._timer is not None:
            self._timer.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop running: the loop's first pass sees the entry
            return
        self._timer = loop.call_later(max(0.0, due - time.monotonic()), self._wake.set)

    # -- the loop -----------------------------------------------------------------------

    async def run(self) -> None:
        """Runs until cancelled; nothing else ends it."""
        if self.paid is not None:
            sweep = asyncio.get_running_loop().create_task(self.paid.run(), name="paid sweep")
            self._tasks.add(sweep)
            sweep.add_done_callback(self._tasks.discard)
        try:
            while True:
                try:
                    started = time.perf_counter()
                    self._dispatch()
                    await self._sleep(started)
                except asyncio.CancelledError:
                    raise
                except Exception:  # a bug here must not stop every check
                    self.stats["scheduler errors"] += 1
                    log.exception("the scheduler hit an unexpected error; it goes on")
                    await asyncio.sleep(1.0)
        finally:
            tasks = list(self._tasks)
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.wait(tasks, timeout=5)

    def _dispatch(self) -> None:
        now = time.monotonic()
        due: dict[bool, list[Entry]] = {False: [], True: []}  # by lane (on screen or not)
        for entry in list(self._entries.values()):
            if entry.running or entry.due > now or self._paused.get(entry.group, 0) > now:
                continue
            if entry.settling and self._busy(entry.record):
                entry.due = now + self.pacing.settle_first  # its create is still under way here
                continue
            due[self._is_focused(entry.record.key)].append(entry)
        for focused, ready in due.items():
            # as many as the lane has room for, the longest due first: the others stay due
            room = self._lanes.room(focused)
            for entry in ready if len(ready) <= room else heapq.nsmallest(room, ready, key=lambda e: e.due):
                self._start(entry, focused)

    def _start(self, entry: Entry, focused: bool) -> None:
        entry.running = True
        self._lanes.started(focused)
        task = asyncio.get_running_loop().create_task(self._one(entry, focused), name=f"check {entry.record.tx_ref}")
        entry.task = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _sleep(self, started: float | None = None) -> None:
        """Until the next entry is due, something is asked for now (``check_now``, a check
        asked for while it ran), or an entry added comes due sooner (``_soon``)."""
        now = time.monotonic()
        paused = self._paused  # kept in place: the paid sweep holds it too
        for group in [g for g, until in paused.items() if until <= now]:
            del paused[group]
        full = self._lanes.full()  # its records wait for a check to end (``_one``), not a time
        entries = [
            e for e in self._entries.values() if not e.running and not (full and self._is_focused(e.record.key) in full)
        ]
        if paused:
            waiting = [max(e.due, paused.get(e.group, 0)) for e in entries]
        else:
            waiting = [e.due for e in entries]
        if started is not None:  # this pass's cost (dispatch and this) spaces the next one
            self._gap = min(LONGEST_GAP, GAP_FACTOR * (time.perf_counter() - started))
        self._passed = now
        wake_at = max(min(waiting) if waiting else now + 3600.0, now + self._gap)
        self._wake.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._wake_at = wake_at
        try:
            await asyncio.wait_for(self._wake.wait(), max(0.0, wake_at - now))
        except TimeoutError:
            pass
        finally:
            self._wake_at = -math.inf  # the next pass sees every entry

    async def _one(self, entry: Entry, focused: bool) -> None:
        key = entry.record.key
        try:
            entry.waiting = True
            async with self._lanes.gates[focused]:
                entry.waiting = False
                await self._attempt(entry)
        except asyncio.CancelledError:
            if not entry.moved:
                raise
        finally:
            entry.running, entry.waiting, entry.moved, entry.task = False, False, False, None
            if self._lanes.ended(focused):
                self._soon(time.monotonic())  # a place in a full lane: the records due take it
            if entry.again and key in self._entries:
                entry.again = False
                entry.due = time.monotonic()
                self._wake.set()  # asked for while it ran (check_now): at once
            elif key in self._entries:
                self._soon(entry.due)

    def _class_of(self, entry: Entry) -> CallClass:
        if entry.asked:
            return CallClass.PERSON_LOOKUP
        return CallClass.ON_SCREEN if self._is_focused(entry.record.key) else CallClass.BACKGROUND

    async def _attempt(self, entry: Entry) -> None:
        key, settling = entry.record.key, entry.settling
        self.stats["settles" if settling else "checks"] += 1
        klass, entry.asked = self._class_of(entry), False
        try:
            with calls_as(klass):
                record = await (self._settle if settling else self._check)(entry.record)
        except asyncio.CancelledError:
            raise
        except StopWatching as why:
            log.info("no longer watching %s: %s", entry.record.tx_ref, why)
            self._entries.pop(key, None)
            return
        except RateLimitedError as error:
            pause = min(self.pacing.longest_pause, error.retry_after or 5.0)
            self._paused[entry.group] = time.monotonic() + pause
            self._failed(entry, error, f"rate limited, pausing {pause:g} s")
            entry.due = self._paused[entry.group]
            return
        except ServiceError as error:
            self._failed(entry, error, error.message)
            return
        except Exception as error:  # logged with its traceback, then retried
            log.exception("unexpected error checking %s", entry.record.tx_ref)
            self._failed(entry, error, str(error), logged=True)
            return
        entry.failures = 0
        if record.final:
            self._entries.pop(key, None)
            return
        entry.record = record
        entry.interval = self.pacing.grown(entry.interval, entry.settling, entry.least, self._slowest(entry))
        entry.due = time.monotonic() + self._pace(record, entry.interval)

    def _failed(self, entry: Entry, error: BaseException, text: str, logged: bool = False) -> None:
        self.stats["failures"] += 1
        self.stats[type(error).__name__] += 1
        entry.failures += 1
        if not logged:
            log.info(
                "%s of %s failed (%d in a row): %s",
                "settling" if entry.settling else "check",
                entry.record.tx_ref,
                entry.failures,
                text,
            )
        cap = self.pacing.focused_slowest if self._is_focused(entry.record.key) else self._slowest(entry)
        entry.interval = self.pacing.after_failure(entry.interval, entry.failures, cap)
        wait = entry.interval * random.uniform(0.8, 1.0)
        focused = self._is_focused(entry.record.key)
        entry.due = time.monotonic() + (wait if focused else self._spaced(entry.record, wait))
