"""What every connection to the shared ledger shares: its defaults (keepalives, timeouts,
the server's idle-transaction limit), the errors a job raises when the server is gone or
refuses, and a read's cancel when its caller stops waiting. The engine (``engine.py``) holds
the threads and the pool that use them.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from datetime import datetime
from typing import Any

import psycopg
from psycopg.rows import DictRow

from ..errors import LedgerError

log = logging.getLogger("paydesk.ledger.postgres")
Conn = psycopg.Connection[DictRow]

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
        super().__init__(f"Shared ledger unreachable since {since.astimezone():%H:%M}, retrying")


class SchemaTooNew(LedgerError):
    """The shared ledger was migrated by a newer PayDesk: this one only reads it."""

    def __init__(self) -> None:
        super().__init__("This shop's ledger was upgraded by a newer PayDesk: update PayDesk on this computer")


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
