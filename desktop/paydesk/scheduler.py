"""The one scheduler that decides which open records are checked with the service, and when.

Qt-free. It re-checks links that are waiting for payment (often while one is on screen,
backing off after), settles creates whose answer was lost (the same request, the same
tx_ref), and stops at a final state, except for paid ones: a refund or a reversal can still
come to them, so they are read again at a slow pace for 30 days, found a page at a time in
the ledger (``paid_since``), never all held in memory. Each check is its own task under a bounded
concurrency, so one slow check holds up nothing else; the records on screen have their own
lane, so "check now" is immediate. No exception ends it: each failure is logged, counted,
and retried with backoff; a rate limit pauses only the profile and mode it came from.

A link a notification can settle (``notified``, given by the composition root: a verified
notification for its profile and mode came lately, and it is past its first minutes) is checked at
most every ``notified_every`` s (5 minutes), never stopped: polling stays the safety net for
a notification that never comes. Not while it is on screen: a person is waiting for that one.
Yet while notifications come for its profile and mode (``delivering``: they reach a receiver
now), a link on screen is checked every ``focused_notified_every`` s (30 s), not every 2 s:
the notification is the way PAID comes, the check is only the safety net.

Each check is a call of its class for the service's budget (``service/call_class.py``): a
check asked for now (a record opened) is a person's look-up, a record on screen's is of the
codes on screen, every other (and the paid re-reads) of the background.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from .ledger import CREATING, LinkRecord
from .paid_rereads import PaidPages, PaidRereads, StopWatching
from .service.call_class import CallClass, calls_as
from .service.errors import RateLimitedError, ServiceError

log = logging.getLogger("paydesk.scheduler")
Key = tuple[str, str]  # (profile_id, tx_ref)
Group = tuple[str, str]  # (profile_id, mode)
NOTIFIED_EVERY = 300.0  # s: a link a notification can settle is checked at most this often
FOCUSED_NOTIFIED_EVERY = 30.0  # s: ...and one on screen, while notifications come
# a pass over the entries costs time in proportion to their number (thousands after a batch
# of bulk links): passes are spaced by this many times the last one's cost (at most
# LONGEST_GAP s), so that they take a small share of the loop's thread
GAP_FACTOR = 20
LONGEST_GAP = 0.25


@dataclass
class Entry:
    record: LinkRecord
    due: float
    interval: float
    failures: int = 0
    running: bool = False
    again: bool = False  # asked for while running: go again as soon as it ends
    task: asyncio.Task | None = None  # the check under way
    waiting: bool = False  # ...still waiting for a place in its lane
    moved: bool = False  # ...cancelled to go to the on-screen lane at once
    focused_since: float | None = None  # monotonic: when a view began to show it
    least: float = 0.0  # s: checked no more often than this (later()), unless on screen
    asked: bool = False  # its next check was asked for now (a record opened): a person's

    @property
    def settling(self) -> bool:
        return self.record.state == CREATING

    @property
    def group(self) -> Group:
        return (self.record.profile_id, self.record.mode)


class Scheduler(PaidRereads):
    def __init__(self, check: Callable[[LinkRecord], Awaitable[LinkRecord]],
                 settle: Callable[[LinkRecord], Awaitable[LinkRecord]], *,
                 parallel: int = 4, focus_parallel: int = 2, focused_every: float = 2.0,
                 first_every: float = 5.0, settle_first: float = 2.0, slowest: float = 120.0,
                 focused_slowest: float = 30.0, longest_pause: float = 300.0,
                 retry_first: float = 1.0, busy: Callable[[LinkRecord], bool] = lambda r: False,
                 focused_for: float = 300.0, old_after: float = 86400.0,
                 old_slowest: float = 1800.0, paid: PaidPages | None = None,
                 paid_days: float = 30.0, paid_fresh_for: float = 86400.0,
                 paid_fresh_every: float = 3600.0, paid_every: float = 43200.0,
                 paid_sweep: float = 300.0, paid_page: int = 100,
                 notified: Callable[[LinkRecord], bool] | None = None,
                 notified_every: float = NOTIFIED_EVERY,
                 delivering: Callable[[LinkRecord], bool] | None = None,
                 focused_notified_every: float = FOCUSED_NOTIFIED_EVERY):
        self._check, self._settle = check, settle
        # a link a notification can settle (its profile and mode's came lately, and it is past
        # its first minutes: desk/notified.py): checked every ``notified_every`` s at most
        self.notified = notified
        self.notified_every = notified_every
        # notifications come for its profile and mode now (desk/notified.py): a link on
        # screen is checked every ``focused_notified_every`` s, the safety net only
        self.delivering = delivering
        self.focused_notified_every = focused_notified_every
        # paid records, read again for refunds and reversals: for ``paid_days`` after they
        # were paid; every ``paid_fresh_every`` s in their first ``paid_fresh_for`` s, every
        # ``paid_every`` s after; the ledger is asked which are due every ``paid_sweep`` s,
        # and they are checked one at a time in the background lane (a slow pace)
        self._paid = paid
        self.paid_days, self.paid_fresh_for = paid_days, paid_fresh_for
        self.paid_fresh_every, self.paid_every = paid_fresh_every, paid_every
        self.paid_sweep, self.paid_page = paid_sweep, paid_page
        self._gone: set[str] = set()  # deleted profiles: their records are never checked
        self._busy = busy  # a create still under way here: not settled behind its back
        self.focused_for = focused_for  # on screen this long, a link is checked less often
        self.old_after = old_after  # a link older than this is checked at most...
        self.old_slowest = old_slowest  # ...this seldom (it is less and less likely to move)
        self.focused_every = focused_every
        self.first_every = first_every
        self.settle_first = settle_first
        self.slowest = slowest
        self.focused_slowest = focused_slowest
        self.longest_pause = longest_pause
        self.retry_first = retry_first  # the first wait after a failure; doubles after each
        self._entries: dict[Key, Entry] = {}
        self._focused: dict[str, Key] = {}  # view name -> what it shows
        self._paused: dict[Group, float] = {}  # rate limited until (monotonic)
        self._lanes = {False: asyncio.Semaphore(parallel), True: asyncio.Semaphore(focus_parallel)}
        self._tasks: set[asyncio.Task] = set()
        self._wake = asyncio.Event()
        # the loop sleeps until ``_wake_at`` (monotonic): an entry due sooner sets a timer
        # (``_soon``) instead of waking the loop for a pass over every entry now
        self._wake_at = -math.inf  # -inf: a pass is under way or about to be (it sees all)
        self._timer: asyncio.TimerHandle | None = None
        self._gap = 0.0  # s: the least time between two passes (see GAP_FACTOR)
        self._passed = -math.inf  # monotonic: when the last pass was
        self.stats: Counter[str] = Counter()  # checks, settles, failures, and each error's name

    # -- what to watch ------------------------------------------------------------------

    def watched(self) -> list[LinkRecord]:
        return [e.record for e in self._entries.values()]

    def watch(self, record: LinkRecord) -> None:
        """Keep an open record checked (a "creating" one settled) until it is final."""
        if record.final or (record.state != CREATING and not record.checkout_url
                            and record.origin == "link"):
            return
        entry = self._entries.get(record.key)
        if entry is not None:
            entry.record = record
            return
        first = self.settle_first if record.state == CREATING else self.first_every
        entry = self._entries[record.key] = Entry(
            record, time.monotonic() + self._pace(record, first), first)
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
            entry.due = min(entry.due, time.monotonic() + self.focused_notified_every)
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
        entry.interval = self.first_every
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

    def _is_focused(self, key: Key) -> bool:
        return key in self._focused.values()

    def _pace(self, record: LinkRecord, interval: float) -> float:
        """How long until the next check: often while on screen (less so after
        ``focused_for``), as ``interval`` says otherwise, and not before ``notified_every``
        when a notification can settle it."""
        key = record.key
        if not self._is_focused(key):
            return self._spaced(record, interval)
        if self._delivered(record):
            return self.focused_notified_every
        entry = self._entries.get(key)
        since = entry.focused_since if entry is not None else None
        if since is not None and time.monotonic() - since > self.focused_for:
            return min(interval, self.focused_slowest)
        return min(interval, self.focused_every)

    def _spaced(self, record: LinkRecord, wait: float) -> float:
        """``wait``, or ``notified_every`` when longer and a notification can settle
        ``record`` (not a create: only its own desk settles it, notified or not)."""
        if self.notified is None or record.state == CREATING or wait >= self.notified_every:
            return wait
        try:
            notified = self.notified(record)
        except Exception:  # the composition root's predicate: its fault checks as before
            self.stats["scheduler errors"] += 1
            log.exception("asking whether a notification can settle %s failed", record.tx_ref)
            return wait
        if not notified:
            return wait
        self.stats["spaced for notifications"] += 1
        return self.notified_every

    def _delivered(self, record: LinkRecord) -> bool:
        """Notifications come for ``record``'s profile and mode now (not for a create: only
        its own desk settles it)."""
        if self.delivering is None or record.state == CREATING:
            return False
        try:
            return self.delivering(record)
        except Exception:  # the composition root's predicate: its fault checks as before
            self.stats["scheduler errors"] += 1
            log.exception("asking whether notifications come for %s failed", record.tx_ref)
            return False

    def _slowest(self, entry: Entry) -> float:
        age = (datetime.now(UTC) - entry.record.created_at).total_seconds()
        return self.old_slowest if age > self.old_after else self.slowest

    # -- the loop -----------------------------------------------------------------------

    async def run(self) -> None:
        """Runs until cancelled; nothing else ends it."""
        if self._paid is not None:
            sweep = asyncio.get_running_loop().create_task(self._paid_loop(), name="paid sweep")
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
        for entry in list(self._entries.values()):
            if entry.running or entry.due > now or self._paused.get(entry.group, 0) > now:
                continue
            if entry.settling and self._busy(entry.record):
                entry.due = now + self.settle_first  # its create is still under way here
                continue
            entry.running = True
            task = asyncio.get_running_loop().create_task(
                self._one(entry), name=f"check {entry.record.tx_ref}")
            entry.task = task
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _sleep(self, started: float | None = None) -> None:
        """Until the next entry is due, something is asked for now (``check_now``, a check
        asked for while it ran), or an entry added comes due sooner (``_soon``)."""
        now = time.monotonic()
        self._paused = paused = {g: until for g, until in self._paused.items() if until > now}
        if paused:
            waiting = [max(e.due, paused.get(e.group, 0)) for e in self._entries.values()
                       if not e.running]
        else:
            waiting = [e.due for e in self._entries.values() if not e.running]
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

    async def _one(self, entry: Entry) -> None:
        key = entry.record.key
        try:
            entry.waiting = True
            async with self._lanes[self._is_focused(key)]:
                entry.waiting = False
                await self._attempt(entry)
        except asyncio.CancelledError:
            if not entry.moved:
                raise
        finally:
            entry.running, entry.waiting, entry.moved, entry.task = False, False, False, None
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
            pause = min(self.longest_pause, error.retry_after or 5.0)
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
        grow = 2.0 if record.state == CREATING else 1.5
        start = self.settle_first if record.state == CREATING else self.first_every
        entry.interval = max(entry.least if not entry.settling else 0.0,
                             min(self._slowest(entry), max(start, entry.interval * grow)))
        entry.due = time.monotonic() + self._pace(record, entry.interval)

    def _failed(self, entry: Entry, error: BaseException, text: str, logged: bool = False) -> None:
        self.stats["failures"] += 1
        self.stats[type(error).__name__] += 1
        entry.failures += 1
        if not logged:
            log.info("%s of %s failed (%d in a row): %s",
                     "settling" if entry.settling else "check", entry.record.tx_ref,
                     entry.failures, text)
        cap = self.focused_slowest if self._is_focused(entry.record.key) else self._slowest(entry)
        grown = entry.interval * 2 if entry.failures > 1 else self.retry_first
        entry.interval = min(cap, max(grown, self.retry_first))
        wait = entry.interval * random.uniform(0.8, 1.0)
        focused = self._is_focused(entry.record.key)
        entry.due = time.monotonic() + (wait if focused else self._spaced(entry.record, wait))
