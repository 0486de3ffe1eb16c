"""The book of a service's calls: what the budget (``budget.py``) asks before each call and
tells after it. The rules are here, once; ``MemoryBook`` keeps the book in this process, and
``ledger/postgres/budget.py`` keeps the same book on a shared ledger for every desk of a shop
(its SQL follows these rules line by line; the same tests run against both).

What the server does (Laravel's ``throttle:api``): N calls a window per client address, a
fixed window from the first hit; ``X-RateLimit-Limit`` and ``-Remaining`` on every answer;
past it 429 with ``Retry-After``. What the book does:

- **A sliding log**: a call counts from the moment it is taken until ``window`` after its
  answer (or after it was lost): the server counted it somewhere between the two, so any
  two calls the server could count in one window are both in the log when the second is
  taken. No more than the limit in any ``window`` of the log is stricter than any fixed
  window, whatever its phase.
- **Remaining corrects it**: the server's ``Remaining`` counts what the log cannot see (another
  program on the same address, a desk restarted mid-minute). Calls still in flight when it
  came, and every call taken since, count against it until its window has surely ended
  (``window`` after the first answer of that window); then the next answer tells again.
- **Until an answer tells the truth** (nothing heard yet, or the last ``Remaining`` is from a
  window that has surely ended), one call at a time.
- **The limit is learned**: ``X-RateLimit-Limit``; else a 429 teaches it (the calls of this
  log the server let through in the window its ``Retry-After`` ends, when that window began
  with one of them; a Retry-After far shorter than the window is a limit of another kind,
  and a window begun by no call of the log another program's: only its pause is taken). A
  profile can set one by
  hand (``hand``: the lower of the two is kept). A service that answers without these
  headers is not throttled: nothing waits.
- **Strict classes**: a class may take a call only while more than its reserve is left
  (``reserve``): a background check never takes the calls a person's create may need. A
  notified counter sale's re-read is a person's look-up (``call_class.py``): its customer
  waits, and the codes on screen's reserve is not enough for it.
- **Another program's calls are left to it**: the classes below a person's keep, besides
  their reserve, as many calls again as ``Remaining`` shows another program spent in the
  server's window (it will call again before the window ends; a 429 would be its).
- **The classes below spread their calls** (``spread``): a batch or the background takes
  no more than its share of a sixth of the window in any sixth (the shop's calls of every
  class counted), never the whole window in its first seconds. Otherwise the server's
  fixed window, spent by a batch at its start, would leave the counters, the notifications'
  re-reads and another program on the address only the reserve until it ends.
- **A 429 pauses everyone** until its ``Retry-After``.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from .call_class import CallClass

WINDOW = 60.0  # s: the service's window (the family's: a minute)
IN_FLIGHT_MOST = 30.0  # s: a call unanswered this long has ended at its client (its timeout)
PAUSE_WITHOUT_RETRY_AFTER = 5.0  # s: a 429 that does not say how long
LONGEST_PAUSE = 300.0  # s: the longest pause PayDesk takes from a service (errors.MAX_RETRY_AFTER)
RETRY_AFTER_SLACK = 1.0  # s: a Retry-After is whole seconds
SOON = 0.05  # s: how soon to ask again when only an answer can change the verdict


def reserve(klass: CallClass | int, limit: int) -> int:
    """The calls of a window ``klass`` leaves to the classes above it: 0 for a person's
    create; one for a person's look-up (from a limit of 10); 5% for codes on screen (3 of 60);
    2 more for bulk (5 of 60, so a batch still has 55 of 60 when nothing else calls); a
    sixth more for the background (15 of 60). Never all of the window: every class can call
    when nothing else does."""
    k = int(klass)
    if k <= 1:
        kept = 0
    elif k == 2:
        kept = 1 if limit >= 10 else 0
    else:
        kept = math.ceil(limit / 20)
        if k >= 4:
            kept += math.ceil(limit / 30)
        if k >= 5:
            kept += math.ceil(limit / 6)
    return max(0, min(kept, limit - 1))


SPREAD_PARTS = 6  # the classes below spread their calls over sixths of the window


def spread(klass: CallClass | int, limit: int) -> int | None:
    """The most calls of the shop (every class) in any sixth of the window after which
    ``klass`` waits: its share of a sixth, what its reserve leaves (9 for a batch at 60 a
    minute, 7 for the background), at least one; None: not spread (a person's calls and
    codes on screen go whenever the reserves allow)."""
    if int(klass) < int(CallClass.BULK):
        return None
    return max(1, (limit - reserve(klass, limit)) // SPREAD_PARTS)


@dataclass(frozen=True)
class Heard:
    """What one answer said of the budget."""

    status: int | None  # HTTP status (None: no answer came)
    limit: int | None = None  # X-RateLimit-Limit
    remaining: int | None = None  # X-RateLimit-Remaining
    retry_after: float | None = None  # Retry-After of a 429 (seconds)

    @property
    def has_headers(self) -> bool:
        return self.limit is not None or self.remaining is not None

    @classmethod
    def of(cls, status: int, headers: Mapping[str, str], retry_after: float | None) -> Heard:
        """From an answer's status and headers (``retry_after`` read by the caller)."""
        return cls(
            status,
            _number(headers.get("x-ratelimit-limit")),
            _number(headers.get("x-ratelimit-remaining")),
            retry_after if status == 429 else None,
        )


def _a_windows_end(retry_after: float | None, window: float) -> bool:
    """Does a 429's Retry-After look like the end of a window of ``window`` seconds? One much
    shorter says a limit of another kind (so many a second): then only its pause is taken."""
    return retry_after is not None and retry_after >= window / 10


def _number(text: str | None) -> int | None:
    if text is None:
        return None
    text = text.strip()
    return int(text[:9]) if text.isascii() and text.isdigit() else None


@dataclass(frozen=True)
class Take:
    """The book's verdict: ``call_id`` when the call may go, else None and ``wait``: the
    seconds until this class may go, as best known (the time a person is told)."""

    call_id: int | None
    wait: float = 0.0


@dataclass(frozen=True)
class BookState:
    """The budget as the book last saw it (for the status bar, the bulk estimate, figures)."""

    limit: int | None = None  # None: not throttled (or not known yet)
    left: int | None = None  # calls left in the window for a person's call (None: no limit)
    paused_for: float = 0.0  # s: a 429 asked everyone to wait this long still
    used: Mapping[int, int] = field(default_factory=dict)  # this log's calls in the window, by class
    others: int = 0  # calls the service counted that are not in the log (another program)
    refusals: int = 0  # 429s heard, ever
    window: float = WINDOW


class Book(Protocol):
    """Where a budget keeps its calls: this process's (``MemoryBook``) or the shop's."""

    window: float

    async def take(self, klass: CallClass, hand: int | None) -> Take: ...

    async def heard(self, call_id: int, heard: Heard) -> None: ...

    async def lost(self, call_id: int) -> None: ...

    def state(self) -> BookState: ...


@dataclass
class _Call:
    klass: int
    sent: float
    answered: float | None = None
    expires: float = math.inf


class MemoryBook:
    """The book of one service origin in this process. ``clock``: seconds (monotonic)."""

    def __init__(self, window: float = WINDOW, clock: Callable[[], float] = time.monotonic):
        self.window = window
        self._clock = clock
        self._ids = itertools.count(1)
        self._calls: dict[int, _Call] = {}  # the log: every call still counted
        self._flying: dict[int, _Call] = {}  # those not answered yet
        self._used: Counter[int] = Counter()  # the log's calls by class
        self._expiring: list[tuple[float, int]] = []  # (expires, id): a heap
        self.limit: int | None = None
        self.limit_from: str | None = None  # "header" or "refusal"
        self.headers_seen: bool | None = None  # None: nothing heard yet
        self.remaining: int | None = None
        self.since_remaining = 0
        self.remaining_until = -math.inf  # the window of the last Remaining surely ends by then
        self.paused_until = -math.inf
        self.refusals = 0
        self._hand: int | None = None

    # -- what a budget asks ---------------------------------------------------------------

    async def take(self, klass: CallClass, hand: int | None) -> Take:
        return self.take_now(klass, hand)

    def take_now(self, klass: CallClass, hand: int | None) -> Take:
        now = self._clock()
        self._hand = hand
        self._prune(now)
        wait = self._verdict(int(klass), now, hand)
        if wait is not None:
            return Take(None, max(SOON, wait))
        call_id = next(self._ids)
        call = _Call(int(klass), now, expires=now + self.window + IN_FLIGHT_MOST)
        self._calls[call_id] = self._flying[call_id] = call
        self._used[call.klass] += 1
        heapq.heappush(self._expiring, (now + self.window + IN_FLIGHT_MOST, call_id))
        if now < self.remaining_until:
            self.since_remaining += 1
        return Take(call_id)

    async def heard(self, call_id: int, heard: Heard) -> None:
        self.heard_now(call_id, heard)

    def heard_now(self, call_id: int, heard: Heard) -> None:
        now = self._clock()
        self._end(call_id, now)
        if heard.limit is not None and heard.limit > 0:
            self.limit, self.limit_from = heard.limit, "header"
        if heard.has_headers:
            self.headers_seen = True
        elif heard.status is not None and heard.status != 429 and self.headers_seen is None:
            self.headers_seen = False  # it answers without them: not throttled
        in_flight = self._in_flight(now)
        if heard.remaining is not None:
            # Remaining only falls within a window: more than before, a new one began (or
            # answers crossed: then the old one is kept longer, which is the safe side)
            if self.remaining is None or now >= self.remaining_until or heard.remaining > self.remaining:
                self.remaining_until = now + self.window
            self.remaining, self.since_remaining = heard.remaining, in_flight
        if heard.status == 429:
            self.refusals += 1
            self._drop(call_id)  # not counted by the server: it refuses before it counts
            pause = min(LONGEST_PAUSE, PAUSE_WITHOUT_RETRY_AFTER if heard.retry_after is None else heard.retry_after)
            resets = now + pause
            self.paused_until = max(self.paused_until, resets)
            self.remaining, self.since_remaining = 0, in_flight
            self.remaining_until = resets  # the server said when this window ends
            if self.limit_from != "header" and _a_windows_end(heard.retry_after, self.window):
                # what the server let through in its window (Retry-After is whole seconds,
                # rounded up: the window began within the second before ``resets - window``);
                # none let through teaches no limit
                # The window began with a call of this log, or another program began it
                # and what it spent is not known: then only the pause is taken
                start = resets - self.window - RETRY_AFTER_SLACK
                sent = [c.sent for c in self._calls.values() if c.answered is not None and c.sent >= start]
                if sent and min(sent) <= start + 2 * RETRY_AFTER_SLACK:
                    self.limit, self.limit_from = len(sent), "refusal"

    async def lost(self, call_id: int) -> None:
        self._end(call_id, self._clock())

    def state(self) -> BookState:
        now = self._clock()
        self._prune(now)
        used = {k: n for k, n in self._used.items() if n}
        limit = self._effective(self._hand)
        left = others = None
        if limit is not None:
            left = self._left(limit, now)
            if self.remaining is not None and now < self.remaining_until and self.limit:
                others = max(0, self.limit - self.remaining - len(self._calls))
        return BookState(
            limit=limit,
            left=left,
            paused_for=max(0.0, self.paused_until - now),
            used=used,
            others=others or 0,
            refusals=self.refusals,
            window=self.window,
        )

    # -- the rules -----------------------------------------------------------------------

    def _effective(self, hand: int | None) -> int | None:
        hand = None if hand is None else max(1, hand)
        if self.limit is None:
            return hand
        return self.limit if hand is None else min(self.limit, hand)

    def _left(self, limit: int, now: float) -> int:
        left = limit - len(self._calls)
        if self.remaining is not None and now < self.remaining_until:
            left = min(left, self.remaining - self.since_remaining)
        return left

    def _verdict(self, klass: int, now: float, hand: int | None) -> float | None:
        """None: the call may go; else how long until it may, as best known."""
        if now < self.paused_until:
            return self.paused_until - now
        in_flight = self._in_flight(now)
        if self.headers_seen is None and in_flight:
            return SOON  # nothing heard yet: one call at a time until an answer tells
        limit = self._effective(hand)
        if limit is None:
            return None  # not throttled
        fresh = now < self.remaining_until
        if self.headers_seen and not fresh and in_flight:
            return SOON  # the last Remaining is from a window that ended: one at a time
        kept = reserve(klass, limit) + self._theirs(klass, fresh)
        by_log = limit - len(self._calls)
        by_remaining = self.remaining - self.since_remaining if (fresh and self.remaining is not None) else math.inf
        if min(by_log, by_remaining) > kept:
            return self._spread(klass, limit, now)
        wait = 0.0
        if by_log <= kept:  # the (kept - by_log + 1)th call to leave the log frees one
            soonest = heapq.nsmallest(kept - by_log + 1, (c.expires for c in self._calls.values()))
            wait = max(wait, soonest[-1] - now if soonest else SOON)
        if by_remaining <= kept:
            wait = max(wait, self.remaining_until - now)
        return wait

    def _theirs(self, klass: int, fresh: bool) -> int:
        """What the classes below leave to another program on the address besides their
        reserve: as many calls again as the service counted from it in this window (its
        ``Remaining`` less this log's calls, every one of the window's being in the log)."""
        if klass < int(CallClass.BULK) or not fresh or self.remaining is None or not self.limit:
            return 0
        return max(0, self.limit - self.remaining + self.since_remaining - len(self._calls))

    def _spread(self, klass: int, limit: int, now: float) -> float | None:
        """None: ``klass`` may go as far as spreading goes; else how long until the
        calls taken in the last sixth of the window are fewer than its share."""
        most = spread(klass, limit)
        if most is None:
            return None
        stretch = self.window / SPREAD_PARTS
        recent = sorted((c.sent for c in self._calls.values() if c.sent > now - stretch), reverse=True)
        if len(recent) < most:
            return None
        return recent[most - 1] + stretch - now  # that one leaves the stretch: one fewer

    def _in_flight(self, now: float) -> int:
        return sum(1 for c in self._flying.values() if now - c.sent < IN_FLIGHT_MOST)

    def _end(self, call_id: int, now: float) -> _Call | None:
        call = self._calls.get(call_id)
        self._flying.pop(call_id, None)
        if call is None or call.answered is not None:
            return call
        call.answered = now
        call.expires = now + self.window
        heapq.heappush(self._expiring, (call.expires, call_id))
        return call

    def _drop(self, call_id: int) -> None:
        call = self._calls.pop(call_id, None)
        self._flying.pop(call_id, None)
        if call is not None:
            self._used[call.klass] -= 1

    def _prune(self, now: float) -> None:
        heap = self._expiring
        while heap and heap[0][0] <= now:
            expires, call_id = heapq.heappop(heap)
            call = self._calls.get(call_id)
            if call is not None and call.expires <= now:
                self._drop(call_id)
