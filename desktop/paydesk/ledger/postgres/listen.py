"""The event feed: what the other desks wrote, read from the ``events`` table as it happens.

A thread of its own with a connection of its own (autocommit, never pooled, the engine's
keepalives: ``engine.conninfo()``) that ``LISTEN``s on ``paydesk_events``. A notification is
only a doorbell: on every (re)connect, on every notification and every ``safety_every``
seconds anyway, the feed reads the rows after the last one it handed over
(``id > last ORDER BY id``, in batches), so correctness never depends on a notification
arriving. The rows go to ``deliver(events)`` on the event loop (``call_soon_threadsafe``).

Ids are drawn when a transaction inserts its event and become visible when it commits, so a
row can appear below ``last`` after a later one was read (two desks writing at once). Such
gaps are remembered and read again for ``hole_for`` seconds (a rolled-back transaction
leaves a gap forever): nothing committed is missed.

The connection lost, the feed marks the engine unreachable, tries again with back-off
(forever), and marks it reachable once it is back. No exception ends the thread: each is
logged. ``close()`` stops it promptly.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import psycopg
from psycopg.rows import dict_row

log = logging.getLogger("paydesk.ledger.listen")
CHANNEL = "paydesk_events"
APP_NAME = "paydesk events"  # the feed's connection, as pg_stat_activity shows it
_COLUMNS = "id, at, desk, kind, profile_id, mode, key"


@dataclass(frozen=True)
class LedgerEvent:
    """One row of ``events``: which desk changed what (``kind``, and its ``key``)."""

    id: int
    at: datetime
    desk: str
    kind: str
    profile_id: str
    mode: str
    key: str


class FeedEngine(Protocol):
    """What the feed needs of ``PgEngine``."""

    def conninfo(self) -> dict[str, Any]: ...

    def mark_reachable(self, reachable: bool) -> None: ...

    def clean(self, text: str) -> str: ...


class EventFeed:
    """``await feed.start()``; ``deliver(list[LedgerEvent])`` is then called on the loop for
    every row written after the start, in id order, each once; ``await feed.close()``."""

    def __init__(
        self,
        engine: FeedEngine,
        deliver: Callable[[list[LedgerEvent]], None],
        *,
        batch: int = 500,
        safety_every: float = 3.0,
        wake_every: float = 0.25,
        backoff_first: float = 0.5,
        backoff_most: float = 10.0,
        hole_for: float = 120.0,
        last: int | None = None,
    ):
        self._engine = engine
        self._deliver = deliver
        self.batch, self.safety_every, self.wake_every = batch, safety_every, wake_every
        self.backoff_first, self.backoff_most, self.hole_for = backoff_first, backoff_most, hole_for
        # the last id handed over (None: the newest row when it first connects); a desk
        # gives the newest row as it was before its views first read (``newest_event``)
        self.last: int | None = last
        self._holes: dict[int, float] = {}  # ids not seen below ``last`` -> when first missed
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready: asyncio.Future[None] | None = None
        self._conn: psycopg.Connection[dict[str, Any]] | None = None
        self.connects = 0  # how many times it connected (1 + reconnections)

    # -- the loop's side ----------------------------------------------------------------

    async def start(self, timeout: float = 15.0) -> None:  # noqa: ASYNC109 (returns after it (the thread keeps trying))
        """Start the thread; returns once it listens and knows where the feed starts (the
        newest event now), or after ``timeout`` (it keeps trying in the background)."""
        if self._thread is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._ready = self._loop.create_future()
        self._thread = threading.Thread(target=self._run, name="paydesk-events", daemon=True)
        self._thread.start()
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), timeout)
        except TimeoutError:
            log.warning("the event feed is not connected yet; it keeps trying")

    async def close(self, timeout: float = 5.0) -> None:  # noqa: ASYNC109 (the thread's join limit)
        """Stop the thread (within ``wake_every`` unless it is connecting) and its connection."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            await asyncio.to_thread(thread.join, timeout)

    def _to_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            self._stop.set()
            return
        try:
            loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # the loop closed meanwhile
            self._stop.set()

    def _started(self) -> None:
        if self._ready is not None and not self._ready.done():
            self._ready.set_result(None)

    def _hand_over(self, events: list[LedgerEvent]) -> None:
        try:
            self._deliver(events)
        except Exception:  # a receiver's fault must not stop the feed
            log.exception("handling %d ledger events failed", len(events))

    # -- the thread ---------------------------------------------------------------------

    def _run(self) -> None:
        delay = self.backoff_first
        while not self._stop.is_set():
            try:
                conn = psycopg.connect(
                    **{**self._engine.conninfo(), "application_name": APP_NAME}, autocommit=True, row_factory=dict_row
                )
            except psycopg.OperationalError as error:  # the server cannot be reached
                log.info("event feed: the shared ledger is unreachable (%s); again in %.1f s", self._why(error), delay)
                self._to_loop(self._engine.mark_reachable, False)
            except Exception:  # nothing ends the feed: logged, then again
                log.exception("event feed cannot connect; again in %.1f s", delay)
            else:
                try:
                    self._session(conn)
                    delay = 0.0  # a connection lost: connect again at once (no back-off yet)
                except psycopg.OperationalError as error:
                    log.info("event feed: connection lost (%s); connecting again", self._why(error))
                    delay = 0.0
                except Exception:  # nothing ends the feed: logged, then again
                    log.exception("event feed failed; again in %.1f s", delay)
                finally:
                    self._disconnect()
            if self._stop.wait(delay):
                break
            delay = min(self.backoff_most, max(self.backoff_first, delay * 2))

    def _why(self, error: BaseException) -> str:
        """The first line of what psycopg said, without the password."""
        return self._engine.clean(_first_line(error))

    def _disconnect(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # a broken connection may refuse to close
                log.debug("closing the event feed's connection failed", exc_info=True)

    def _session(self, conn: psycopg.Connection[dict[str, Any]]) -> None:
        """One connection's life: listen, catch up, then read on every doorbell."""
        self._conn = conn
        conn.execute(f"LISTEN {CHANNEL}")
        self.connects += 1
        if self.last is None:  # the first connection: the feed starts after the newest row
            row = conn.execute("SELECT coalesce(max(id), 0) AS last FROM events").fetchone()
            self.last = int(row["last"]) if row else 0
        self._to_loop(self._engine.mark_reachable, True)
        self._catch_up(conn)
        self._to_loop(self._started)
        safety = time.monotonic() + self.safety_every
        while not self._stop.is_set():
            rang = list(conn.notifies(timeout=self.wake_every, stop_after=1))
            if rang or time.monotonic() >= safety:
                self._catch_up(conn)
                safety = time.monotonic() + self.safety_every

    def _catch_up(self, conn: psycopg.Connection[dict[str, Any]]) -> None:
        """Hand over every row after ``last`` (and any that filled a gap), in batches."""
        assert self.last is not None
        found = self._fill_holes(conn)
        while not self._stop.is_set():
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM events WHERE id > %s ORDER BY id LIMIT %s", (self.last, self.batch)
            ).fetchall()
            events = found + [_event(row) for row in rows]
            found = []
            if rows:
                self._note_holes(rows)
                self.last = int(rows[-1]["id"])
            if events:
                self._to_loop(self._hand_over, sorted(events, key=lambda e: e.id))
            if len(rows) < self.batch:
                return

    def _note_holes(self, rows: Sequence[dict[str, Any]]) -> None:
        now = time.monotonic()
        expected = (self.last or 0) + 1
        for row in rows:
            for missing in range(expected, int(row["id"])):
                if len(self._holes) < 100_000:
                    self._holes[missing] = now
            expected = int(row["id"]) + 1

    def _fill_holes(self, conn: psycopg.Connection[dict[str, Any]]) -> list[LedgerEvent]:
        if not self._holes:
            return []
        now = time.monotonic()
        for hole in [h for h, since in self._holes.items() if now - since > self.hole_for]:
            del self._holes[hole]  # a rolled-back transaction's id: it never comes
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM events WHERE id = ANY(%s) ORDER BY id", (list(self._holes),)
        ).fetchall()
        for row in rows:
            self._holes.pop(int(row["id"]), None)
        return [_event(row) for row in rows]


def newest_event(conn: psycopg.Connection[Any]) -> int:
    """The id of the newest event now (0: none): where a feed started later should start."""
    row = conn.execute("SELECT coalesce(max(id), 0) AS last FROM events").fetchone()
    return int(row["last"] if isinstance(row, dict) else row[0]) if row else 0


def _event(row: dict[str, Any]) -> LedgerEvent:
    return LedgerEvent(
        id=int(row["id"]),
        at=row["at"],
        desk=row["desk"],
        kind=row["kind"],
        profile_id=row["profile_id"],
        mode=row["mode"],
        key=row["key"],
    )


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
