"""What every connection to the shared ledger shares: its defaults (keepalives, timeouts,
the server's idle-transaction limit), the errors a job raises when the server is gone or
refuses, and a read's cancel when its caller stops waiting. The engine (``engine.py``) holds
the threads and the pool that use them.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import psycopg
from psycopg.rows import DictRow, dict_row

from ...i18n import _
from ..errors import LedgerError

log = logging.getLogger("paydesk.ledger.postgres")
# which part of psycopg serves: "c" (its C speed-up, built against the system's libpq),
# "binary" (its wheel's), or "python", whose pages are 3 to 4 times slower (SHARED_LEDGER.md)
IMPLEMENTATION = psycopg.pq.__impl__
Conn = psycopg.Connection[DictRow]
T = TypeVar("T")

# every connection's defaults (a URL's own values win): a dead server or a cut cable is
# noticed in seconds, not after the kernel's two hours
CONNECTION = {
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "connect_timeout": 5,
    "tcp_user_timeout": 10000,
    "application_name": "paydesk",
    # the server's side: a desk cut off inside a transaction (a fenced poller write holding
    # a share lock on the lease row) has it rolled back within seconds, not hours. The feed's
    # connection is autocommit and idle outside any transaction: these never end it.
    "options": "-c idle_in_transaction_session_timeout=10s -c tcp_keepalives_idle=5"
    " -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3",
}
PROBE_FIRST, PROBE_MOST = 1.0, 5.0  # s: a server out of reach is asked again this often


class LedgerUnreachable(LedgerError):
    """The shared ledger's server cannot be reached; ``since`` when (UTC)."""

    def __init__(self, since: datetime):
        self.since = since
        super().__init__(
            _("Shared ledger unreachable since {time}, retrying").format(time=f"{since.astimezone():%H:%M}")
        )


class SchemaTooNew(LedgerError):
    """The shared ledger was migrated by a newer PayDesk: this one only reads it."""

    def __init__(self) -> None:
        super().__init__(_("This shop's ledger was upgraded by a newer PayDesk: update PayDesk on this computer"))


class Gone(BaseException):
    """A pooled connection failed its check and the server refuses a new one: the pool
    would otherwise retry until its timeout (a BaseException, so the pool lets it out)."""

    def __init__(self, cause: BaseException):
        super().__init__()
        self.cause = cause


class Cancellable:
    """The connection a read is running on, so that a caller who stops waiting can cancel it."""

    __slots__ = ("abandoned", "conn", "lock")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.conn: Conn | None = None
        self.abandoned = False

    def cancel(self) -> None:
        with self.lock:
            self.abandoned = True
            conn = self.conn
        if conn is not None:
            threading.Thread(target=_cancel, args=(conn,), name="ledger-cancel", daemon=True).start()


def read_on(conn: Conn, fn: Callable[[Conn], T], cancellable: Cancellable | None) -> T:
    """``fn(conn)``, a read; again when a cancel meant for this connection's previous read
    stopped it instead: ``Cancellable.cancel`` sends it from a thread of its own, and by the
    time the server hears it the connection may be back in the pool running another asker's
    read. The asker who gave up gets nothing; this one gets its answer.

    One cancel can stop two statements: the server signals the backend, and its process
    group (PostgreSQL's ``signal_child``), and a second signal that lands after the first
    stopped a statement stops the next one; a signal that lands while the connection is
    idle is dropped. So the read is asked again after a pause (on this reader's thread),
    twice at most."""
    for pause in STRAY_CANCEL_PAUSES:
        try:
            return fn(conn)
        except psycopg.errors.QueryCanceled as exc:
            if (cancellable is not None and cancellable.abandoned) or "user request" not in str(exc):
                raise
            log.info("a cancel meant for an earlier read stopped this one: reading again")
            time.sleep(pause)
    return fn(conn)


STRAY_CANCEL_PAUSES = (0.02, 0.1)  # seconds before each new try (the last try raises)


def _cancel(conn: Conn) -> None:
    try:
        conn.cancel_safe(timeout=5)
    except Exception as exc:  # noqa: BLE001 - the statement then ends by itself
        log.debug("could not cancel a superseded query: %s", type(exc).__name__)


def report_unwaited(future: asyncio.Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("a change whose window had closed could not be saved: %s", future.exception())


def consume(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def nothing(conn: Conn) -> None:
    return None


def lost(exc: psycopg.OperationalError) -> bool:
    """Is this the server gone (rather than a statement's own failure, as a cancel or a
    deadlock, which are OperationalErrors too)?"""
    state = exc.sqlstate
    return state is None or state.startswith("08") or state in ("57P01", "57P02", "57P03")


class Handover:
    """A connection made already, handed to a new pool as its first: the engine's own
    connection that found the server answering and its schema migrated (``engine.py``), so
    that opening the ledger connects once, not twice (each connection is a new process on
    the server and a few milliseconds). ``connection_class`` is the pool's: its first
    ``connect`` is that connection, every later one a new connection."""

    @classmethod
    def made(cls, params: dict[str, Any], prepare: Callable[[Conn], object]) -> Handover:
        """A new connection (autocommit, rows as dicts), ``prepare``d (migrated) before it is
        handed over; closed if that fails."""
        conn = psycopg.connect(**params, autocommit=True, row_factory=dict_row)
        try:
            prepare(conn)
        except BaseException:
            conn.close()
            raise
        log.info("connected to the shared ledger: psycopg %s, %s", psycopg.__version__, IMPLEMENTATION)
        return cls(conn)

    def __init__(self, conn: Conn):
        self._conn: Conn | None = conn
        self._lock = threading.Lock()
        handover = self

        class Connections(psycopg.Connection[DictRow]):
            @classmethod
            def connect(cls, conninfo: str = "", **kwargs: Any) -> Any:
                made = handover.take()
                return made if made is not None else psycopg.Connection.connect(conninfo, **kwargs)

        self.connection_class: type[Conn] = Connections

    def take(self) -> Conn | None:
        """The connection (once), if it is still open."""
        with self._lock:
            conn, self._conn = self._conn, None
        return conn if conn is not None and not conn.closed else None

    def close(self) -> None:
        """Close the connection if no pool took it."""
        conn = self.take()
        if conn is not None:
            conn.close()
