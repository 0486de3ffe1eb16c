"""One budget per service origin: every call the client makes takes a permit first, and
says after what the answer told of the budget (``ServiceClient(budget=...)``).

The book (``budget_book.py``: this process's, or the shop's on a shared ledger) decides
whether a call may go. The budget here is the line of the calls that wait: served highest
class first (``call_class.py``; the same class in the order they came), so a person's create
never waits behind a background check. Only the head of the line asks the book: when the
head may not go, no class below it may either (each leaves more for the classes above).
A call that waits tells who shows it to a person, each second, how long it still may wait.

Figures for the benchmarks and the status bar: ``figures()`` (calls and waits per class,
429s, the most calls in one window) and ``state()`` (the book's view, and which classes wait).
No loop of it ends on an error: a book that fails is logged, and asked again a second later.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from .budget_book import Book, BookState, Heard, MemoryBook, Take
from .call_class import CallClass, WaitListener, caller

log = logging.getLogger("paydesk.service.budget")
POLL = 1.0  # s: a waiting line asks the book at least this often (other desks change it)
KEPT_WAITS = 2000  # waits kept per class for the figures
KEPT_CALLS = 100_000  # calls kept (when, class) for the figures


@dataclass(frozen=True)
class BudgetState:
    book: BookState
    waiting: frozenset[int] = frozenset()  # the classes with a call waiting here now


@dataclass
class Figures:
    """What one budget saw, for a benchmark to read."""

    calls: Counter = field(default_factory=Counter)  # class -> calls taken
    waits: dict[int, deque] = field(default_factory=dict)  # class -> seconds each call waited
    refusals: int = 0  # 429s answered to this process's calls
    most_in_window: int = 0  # the most of this book's calls in one window, at a take
    # (time.monotonic(), class) of each call taken here, the newest KEPT_CALLS
    taken: deque = field(default_factory=lambda: deque(maxlen=KEPT_CALLS))

    def most_in(self, seconds: float = 60.0) -> int:
        """The most calls this process took within any ``seconds`` (a minute by default)."""
        times = [t for t, _ in self.taken]
        most = first = 0
        for last, at in enumerate(times):
            while at - times[first] >= seconds:
                first += 1
            most = max(most, last - first + 1)
        return most


class Permit:
    """One call's right to go. ``answered(status, headers, retry_after)`` or ``lost()``,
    once: the call then counts until the window after it."""

    __slots__ = ("budget", "call_id", "klass", "done")

    def __init__(self, budget: Budget, call_id: int, klass: CallClass):
        self.budget, self.call_id, self.klass = budget, call_id, klass
        self.done = False

    def answered(self, status: int, headers: Mapping[str, str], retry_after: float | None = None) -> None:
        if not self.done:
            self.done = True
            self.budget._heard(self, Heard.of(status, headers, retry_after))

    def lost(self) -> None:
        if not self.done:
            self.done = True
            self.budget._lost(self)


@dataclass(eq=False)
class _Waiter:
    klass: CallClass
    order: int
    future: asyncio.Future[int]
    on_wait: WaitListener | None
    since: float


class Budget:
    """The budget of one service origin (``name``), over ``book``; ``hand``: the calls a
    window a profile allows by hand (None: as the service says)."""

    def __init__(self, book: Book | None = None, *, name: str = "", hand: int | None = None):
        self.book: Book = book if book is not None else MemoryBook()
        self.name = name
        self.hand = hand
        self.figures = Figures()
        self._line: list[_Waiter] = []
        self._order = itertools.count()
        self._server: asyncio.Task | None = None
        self._poke = asyncio.Event()
        self._jobs: set[asyncio.Task] = set()
        self._listeners: list[Callable[[], None]] = []
        self._estimate = 0.0

    def __repr__(self) -> str:
        return f"Budget({self.name!r})"

    # -- a call -------------------------------------------------------------------------

    async def take(self) -> Permit:
        """A permit for one call of the class said by ``calls_as`` (else BACKGROUND): at
        once when the book allows it and nobody waits before it, else in line."""
        who = caller()
        klass = who.klass
        if not self._line:
            try:
                got = await self.book.take(klass, self.hand)
            except Exception:
                log.exception("the call budget of %s failed; asking again", self.name)
                got = Take(None, POLL)
            if got.call_id is not None:
                return self._granted(got.call_id, klass, 0.0)
        waiter = _Waiter(
            klass, next(self._order), asyncio.get_running_loop().create_future(), who.on_wait, time.monotonic()
        )
        self._line.append(waiter)
        self._line.sort(key=lambda w: (w.klass, w.order))
        self._serve()
        self._changed()
        try:
            call_id = await asyncio.shield(waiter.future)
        except asyncio.CancelledError:
            if waiter.future.done() and not waiter.future.cancelled():
                self._spawn(self.book.lost(waiter.future.result()))  # taken, never sent
            waiter.future.cancel()
            self._remove(waiter)
            raise
        finally:
            if waiter.on_wait is not None:
                _tell(waiter.on_wait, None)
        return self._granted(call_id, klass, time.monotonic() - waiter.since)

    def _granted(self, call_id: int, klass: CallClass, waited: float) -> Permit:
        f = self.figures
        f.calls[int(klass)] += 1
        f.taken.append((time.monotonic(), int(klass)))
        f.waits.setdefault(int(klass), deque(maxlen=KEPT_WAITS)).append(waited)
        state = self.book.state()
        f.most_in_window = max(f.most_in_window, sum(state.used.values()))
        self._changed()
        return Permit(self, call_id, klass)

    def _heard(self, permit: Permit, heard: Heard) -> None:
        if heard.status == 429:
            self.figures.refusals += 1
        self._spawn(self.book.heard(permit.call_id, heard))

    def _lost(self, permit: Permit) -> None:
        self._spawn(self.book.lost(permit.call_id))

    def _spawn(self, job: Awaitable[None]) -> None:
        """Tell the book (a round trip on a shared ledger): not awaited by the call, in
        order; the line is asked again once it is told."""

        async def run() -> None:
            try:
                await job
            except Exception:
                log.exception("telling the call budget of %s failed", self.name)
            self._poke.set()
            self._changed()

        task = asyncio.get_running_loop().create_task(run())
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    # -- the line -----------------------------------------------------------------------

    def _remove(self, waiter: _Waiter) -> None:
        if waiter in self._line:
            self._line.remove(waiter)
            self._changed()

    def _serve(self) -> None:
        self._poke.set()
        if self._server is None or self._server.done():
            self._server = asyncio.get_running_loop().create_task(self._run(), name="call budget")

    async def _run(self) -> None:
        """Serve the line, head first, until it is empty. Survives any error (a book that
        fails, a bug here): logged, and the head is asked again a second later."""
        while self._line:
            try:
                await self._serve_head()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the call budget of %s failed; asking again", self.name)
                await asyncio.sleep(POLL)
        self._changed()

    async def _serve_head(self) -> None:
        head = self._line[0]
        if head.future.done():
            self._line.pop(0)
            return
        self._poke.clear()
        got = await self.book.take(head.klass, self.hand)
        if got.call_id is not None:
            if head.future.done():  # its caller went meanwhile
                await self._quietly_lost(got.call_id)
            else:
                head.future.set_result(got.call_id)
            self._remove(head)
            return
        self._estimate = got.wait
        for waiter in self._line:
            if waiter.on_wait is not None:
                _tell(waiter.on_wait, got.wait)
        self._changed()
        try:
            await asyncio.wait_for(self._poke.wait(), min(got.wait, POLL))
        except TimeoutError:
            pass

    async def _quietly_lost(self, call_id: int) -> None:
        try:
            await self.book.lost(call_id)
        except Exception:
            log.exception("the call budget of %s could not return a call", self.name)

    # -- what is shown ------------------------------------------------------------------

    def state(self) -> BudgetState:
        return BudgetState(self.book.state(), frozenset(int(w.klass) for w in self._line if not w.future.done()))

    def waiting_for(self) -> float:
        """Seconds the head of the line may still wait (0: nobody waits)."""
        return self._estimate if self._line else 0.0

    def on_change(self, listener: Callable[[], None]) -> None:
        """``listener()`` after each take, wait and answer (on the loop)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                log.exception("a listener of the call budget failed")

    async def close(self) -> None:
        """Stop serving the line (its callers are cancelled) and let the book's jobs end."""
        if self._server is not None:
            self._server.cancel()
        for waiter in self._line:
            waiter.future.cancel()
        self._line.clear()
        if self._jobs:
            await asyncio.wait(list(self._jobs), timeout=5)


def _tell(listener: WaitListener, seconds: float | None) -> None:
    try:
        listener(seconds)
    except Exception:
        log.exception("showing a wait for the service failed")
