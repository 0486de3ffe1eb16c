"""The shop's book of calls on the shared ledger: every desk, counter and the notification
receiver of a shop take their calls to a service origin from it (``budget_schema.py``, the
rules of ``service/budget_book.py``).

A take is one round trip (``paydesk_take_call``), on the engine's budget thread
(``PgEngine.quick``: never queued behind the ledger's writes and reads); an answer is told in
another, which the call does not wait for. While the ledger cannot be reached (or a newer
PayDesk's schema is read-only here), this desk keeps to a book of its own in memory, and asks
the shop's again every few seconds: its calls still keep to what it last knew.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from ...service.budget_book import WINDOW, BookState, Heard, MemoryBook, Take
from ...service.call_class import CallClass
from ..errors import LedgerError
from .engine import PgEngine

log = logging.getLogger("paydesk.ledger.budget")
ASK_AGAIN = 5.0  # s: after the shop's book failed, this desk keeps its own this long
TAKE_MOST = 2.0  # s: a take the shop's book has not answered by then is taken here

_TAKE = "SELECT * FROM paydesk_take_call(%s, %s, %s, %s, %s)"
_HEARD = "SELECT * FROM paydesk_call_heard(%s, %s, %s, %s, %s, %s, %s, %s)"


def _state(row: Any, window: float) -> BookState:
    used = row["used"] or []
    return BookState(
        limit=row["lim"],
        left=row["lft"],
        paused_for=float(row["paused"] or 0.0),
        used={k + 1: n for k, n in enumerate(used) if n},
        others=int(row["others"] or 0),
        refusals=int(row["refusals"] or 0),
        window=window,
    )


class PgBook:
    """The book of ``origin`` on ``engine``'s shared ledger, taken as ``engine.desk``."""

    def __init__(self, engine: PgEngine, origin: str, *, window: float = WINDOW):
        self.engine, self.origin, self.window = engine, origin, window
        self.local = MemoryBook(window)  # while the shop's cannot be reached
        self._state = BookState(window=window)
        self._apart_until = 0.0  # monotonic: the local book is used until then
        self._hand: int | None = None
        self._jobs: set[asyncio.Future[Any]] = set()  # calls given back (a strong reference)

    async def take(self, klass: CallClass, hand: int | None) -> Take:
        self._hand = hand
        if time.monotonic() < self._apart_until or self.engine.read_only:
            return self._take_here(klass, hand)
        params = (self.origin, self.engine.desk, int(klass), self.window, hand)
        job = asyncio.ensure_future(self.engine.quick(lambda conn: conn.execute(_TAKE, params).fetchone()))
        try:
            row = await asyncio.wait_for(asyncio.shield(job), TAKE_MOST)
        except asyncio.CancelledError:
            job.add_done_callback(self._give_back)  # its caller has gone
            raise
        except (LedgerError, TimeoutError) as error:
            job.add_done_callback(self._give_back)
            self._apart(error)
            return self._take_here(klass, hand)
        if row is None:  # pragma: no cover - the function returns one row
            return Take(None, 0.05)
        self._state = _state(row, self.window)
        if row["call_id"] is None:
            return Take(None, float(row["wait"]))
        return Take(int(row["call_id"]))

    async def heard(self, call_id: int, heard: Heard) -> None:
        if call_id < 0:  # taken here while the shop's could not be reached
            self.local.heard_now(-call_id, heard)
            return
        params = (
            self.origin,
            call_id,
            self.window,
            self._hand,
            heard.status,
            heard.limit,
            heard.remaining,
            heard.retry_after,
        )
        try:
            row = await self.engine.quick(lambda conn: conn.execute(_HEARD, params).fetchone())
        except LedgerError as error:
            self._apart(error)
            self.local.heard_now(-1, heard)  # what it said is known here, all the same
            return
        if row is not None:
            self._state = _state(row, self.window)

    async def lost(self, call_id: int) -> None:
        await self.heard(call_id, Heard(None))

    def state(self) -> BookState:
        if time.monotonic() < self._apart_until:
            return self.local.state()
        return self._state

    def _give_back(self, job: asyncio.Future[Any]) -> None:
        """A call the shop's book gave to a caller who had gone is told lost at once, so
        it does not count as in flight."""
        if job.cancelled() or job.exception() is not None:
            return
        row = job.result()
        if row is not None and row["call_id"] is not None:
            told = asyncio.ensure_future(self.lost(int(row["call_id"])))
            self._jobs.add(told)
            told.add_done_callback(self._jobs.discard)

    def _take_here(self, klass: CallClass, hand: int | None) -> Take:
        got = self.local.take_now(klass, hand)
        return Take(-got.call_id, 0.0) if got.call_id is not None else got

    def _apart(self, error: Exception) -> None:
        if time.monotonic() >= self._apart_until:
            log.warning(
                "the shop's call budget cannot be reached (%s): this desk keeps to its own for %g s",
                error or type(error).__name__,
                ASK_AGAIN,
            )
        self._apart_until = time.monotonic() + ASK_AGAIN
