"""One poller per shop: the lease on the ``poller_lease`` row.

A desk takes the lease when it is free or expired (the epoch goes up by one for a new
holder) and renews it while it holds it, in one statement; ``LeaseKeeper`` does that every
``renew_every`` seconds with a lease of ``ttl`` seconds, so a desk that stops renewing
(closed, killed, cut off) is replaced within ``ttl + renew_every``. Closing releases it at
once. A desk that cannot renew stops counting itself the holder when its lease may have
expired, before anyone else can take it over.

A taker of a higher ``priority`` (the notification receiver, ``RECEIVER``, over the desks'
``DESK``) takes the lease even before it expires, with the next epoch: from then on the old
holder's fenced writes are refused, and its keeper hears that it lost the lease at its next
renewal (at once when its desk follows the "lease" event the taker wrote).

The epoch fences the poller's writes: a write made as the poller carries a ``Fence``
(holder and epoch) and checks it with ``check_fence(conn, fence)`` in its own transaction,
taking a share lock on the lease row; a stale holder's write raises ``StaleLease`` and is
not made. Taking the lease over waits for those transactions, so none lands after it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from psycopg import Connection
from psycopg.errors import LockNotAvailable

from ..repository import Fence, StaleLease
from .events import emit

log = logging.getLogger("paydesk.ledger.lease")
T = TypeVar("T")
SHOP = 1  # one lease row per shop (the database is the shop's)
DESK, RECEIVER = 0, 1  # lease priorities: a notification receiver takes the lease from a desk


@dataclass(frozen=True)
class LeaseState:
    """The lease as the database has it (``holder`` None: nobody holds it)."""

    holder: str | None
    holder_name: str
    epoch: int
    expires_at: datetime | None
    mine: bool = False
    priority: int = DESK  # the holder's (RECEIVER: a notification receiver checks payments)

    @property
    def fence(self) -> Fence | None:
        return Fence(self.holder, self.epoch) if self.mine and self.holder else None


def check_fence(conn: Connection[Any], fence: Fence) -> None:
    """Inside a write's transaction: go on only while ``fence`` still holds the lease (a
    share lock on the row keeps it so until the transaction ends); else ``StaleLease``."""
    row = conn.execute(
        "SELECT 1 FROM poller_lease WHERE shop = %s AND holder = %s AND epoch = %s AND expires_at > now() FOR SHARE",
        (SHOP, fence.holder, fence.epoch),
    ).fetchone()
    if row is None:
        raise StaleLease()


_TAKE = """
INSERT INTO poller_lease AS l (shop, holder, holder_name, epoch, expires_at, priority)
VALUES (%(shop)s, %(me)s, %(name)s, 1, now() + make_interval(secs => %(ttl)s), %(priority)s)
ON CONFLICT (shop) DO UPDATE SET
    holder = excluded.holder,
    holder_name = excluded.holder_name,
    epoch = CASE WHEN l.holder IS NOT DISTINCT FROM excluded.holder THEN l.epoch
                 ELSE coalesce(l.epoch, 0) + 1 END,
    expires_at = excluded.expires_at,
    priority = excluded.priority
WHERE l.holder IS NULL OR l.holder = excluded.holder OR l.expires_at IS NULL
   OR l.expires_at <= now() OR l.priority < excluded.priority
RETURNING (SELECT holder FROM poller_lease WHERE shop = %(shop)s) AS before,
          (SELECT holder_name FROM poller_lease WHERE shop = %(shop)s) AS before_name,
          holder, holder_name, epoch, expires_at, priority
"""


def take_or_renew(conn: Connection[Any], me: str, name: str, ttl: float, priority: int = DESK) -> LeaseState:
    """One transaction: take the lease (free, expired, or held at a lower ``priority``),
    renew it (mine), or read who holds it. A new holder (or the holder's new name) is
    announced with a "lease" event.

    A holder's fenced write still under way (its share lock) makes the take wait at most
    ``lock_timeout``: then the lease is not this desk's this round (the keeper asks again;
    a holder cut off mid-write has its transaction ended by the server's
    ``idle_in_transaction_session_timeout``, engine.CONNECTION)."""
    conn.execute("SET LOCAL lock_timeout = '2s'")
    try:
        with conn.transaction():  # a savepoint: the read below still runs after a timeout
            row = conn.execute(
                _TAKE, {"shop": SHOP, "me": me, "name": name, "ttl": ttl, "priority": priority}
            ).fetchone()
    except LockNotAvailable:
        log.info("the poller lease is busy (a holder's write under way); asking again later")
        return read_lease(conn, me)
    if row is not None:
        if row["before"] != me:
            emit(conn, me, "lease", key=str(row["epoch"]))
            log.info("this desk checks payments now (lease epoch %s)", row["epoch"])
        elif row["before_name"] != name:  # renamed: the other desks' status bars say it now
            emit(conn, me, "lease", key=str(row["epoch"]))
        return LeaseState(me, row["holder_name"], int(row["epoch"]), row["expires_at"], True, int(row["priority"]))
    return read_lease(conn, me)


def read_lease(conn: Connection[Any], me: str = "") -> LeaseState:
    row = conn.execute(
        "SELECT holder, holder_name, epoch, expires_at, priority,"
        " expires_at > now() AS live FROM poller_lease WHERE shop = %s",
        (SHOP,),
    ).fetchone()
    if row is None or row["holder"] is None or not row["live"]:
        return LeaseState(None, "", int(row["epoch"] or 0) if row else 0, None)
    return LeaseState(
        row["holder"],
        row["holder_name"] or "",
        int(row["epoch"]),
        row["expires_at"],
        row["holder"] == me,
        int(row["priority"]),
    )


def release(conn: Connection[Any], me: str) -> bool:
    """Give the lease up at once (closing): the next desk need not wait for it to expire."""
    row = conn.execute(
        "UPDATE poller_lease SET expires_at = now(), holder = NULL WHERE shop = %s AND holder = %s RETURNING epoch",
        (SHOP, me),
    ).fetchone()
    if row is not None:
        emit(conn, me, "lease", key=str(row["epoch"]))
    return row is not None


class LeaseEngine(Protocol):
    """What the keeper needs of ``PgEngine``."""

    desk: str

    async def write(self, fn: Callable[[Connection[Any]], T]) -> T: ...

    async def read(self, fn: Callable[[Connection[Any]], T]) -> T: ...


class LeaseKeeper:
    """Takes and renews the lease for ``engine.desk`` (shown to others as ``name``) while it
    runs; ``on_change(state)`` hears every change of holder, epoch or holder's name (on the
    loop).
    ``priority``: ``DESK``, or ``RECEIVER`` (takes the lease from a desk holding it)."""

    def __init__(
        self,
        engine: LeaseEngine,
        name: str,
        *,
        ttl: float = 10.0,
        renew_every: float = 3.0,
        on_change: Callable[[LeaseState], None] | None = None,
        priority: int = DESK,
    ):
        self.engine, self.name = engine, name
        self.ttl, self.renew_every = ttl, renew_every
        self.priority = priority
        self.on_change = on_change
        self.state = LeaseState(None, "", 0, None)
        self.watch_only = False  # only read who holds it (a key-less counter: it never holds it)
        self._held_until = 0.0  # monotonic: when a lease renewed by this desk surely ends
        self._wake = asyncio.Event()

    @property
    def fence(self) -> Fence | None:
        """This desk's fence while it holds the lease (and surely still does), else None."""
        if self.state.mine and time.monotonic() >= self._held_until:
            self._set(LeaseState(None, "", self.state.epoch, None))
        return self.state.fence

    def poke(self) -> None:
        """Read the lease again now (another desk said it changed)."""
        self._wake.set()

    async def run(self) -> None:
        """Until cancelled: renew, or take over when the lease is free. Never ends on an error."""
        me = self.engine.desk
        while True:
            asked = time.monotonic()
            try:
                if self.watch_only:
                    state = await self.engine.read(lambda conn: read_lease(conn, me))
                else:
                    state = await self.engine.write(
                        lambda conn: take_or_renew(conn, me, self.name, self.ttl, self.priority)
                    )
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - unreachable, or a bug: logged, again
                log.info("renewing the poller lease failed: %s", error)
                if self.state.mine and time.monotonic() >= self._held_until:
                    self._set(LeaseState(None, "", self.state.epoch, None))
            else:
                if state.mine:  # counted from before the ask: the database's clock may be ahead
                    self._held_until = asked + self.ttl - self.renew_every / 2
                self._set(state)
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), self.renew_every)
            except TimeoutError:
                pass

    async def release(self) -> None:
        """Give the lease up (closing); a failure is logged (it then expires by itself)."""
        me = self.engine.desk
        was_mine = self.state.mine
        self._set(LeaseState(None, "", self.state.epoch, None))
        if not was_mine:
            return
        try:
            await self.engine.write(lambda conn: release(conn, me))
        except Exception as error:  # noqa: BLE001 - it expires within ttl anyway
            log.info("releasing the poller lease failed (it expires by itself): %s", error)

    def _set(self, state: LeaseState) -> None:
        before = self.state
        self.state = state
        if (before.holder, before.epoch, before.mine, before.holder_name) != (
            state.holder,
            state.epoch,
            state.mine,
            state.holder_name,
        ):
            if self.on_change is not None:
                try:
                    self.on_change(state)
                except Exception:  # a receiver's fault is not the keeper's
                    log.exception("a receiver of the poller lease failed")
