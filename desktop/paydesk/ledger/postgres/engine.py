"""PostgreSQL off the event loop: sync psycopg 3 and a psycopg_pool on the engine's own
threads, and awaitables for both (never psycopg's asyncio mode: qasync's loop on Windows is
a ProactorEventLoop, which psycopg's async connections refuse).

- Writes run one at a time, in order, on the writer thread, each ``fn(conn)`` in one
  transaction. A write is never abandoned because its caller stopped waiting.
- Reads run on the reader threads, in autocommit. A caller that stops waiting cancels its
  statement on the server.
- A lost server (refused, cut, silent past the TCP keepalives, a pool that gives no
  connection) raises ``LedgerUnreachable`` and marks the engine down (``on_reachable(False)``,
  once, on the loop); the next job that reaches it marks it up again. While down, each job
  first tries one connection of its own (fails fast) before it rebuilds the pool, and the
  engine itself asks again every few seconds (``PROBE_FIRST`` doubling to ``PROBE_MOST``), so
  that its return is heard within seconds even when nothing else asks.
- The password is given apart from the URL and never appears in an exception's text: the
  pool is built from keyword arguments, and what psycopg says about a connection is cleaned.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from ..errors import LedgerClosed, LedgerError
from .connection import (
    CONNECTION,
    PROBE_FIRST,
    PROBE_MOST,
    Cancellable,
    Conn,
    Gone,
    Handover,
    LedgerUnreachable,
    SchemaTooNew,
    consume,
    lost,
    nothing,
    read_on,
    report_unwaited,
)
from .refusal import UNREACHABLE, LedgerRefused, classify
from .schema import KNOWN, migrate

__all__ = ["CONNECTION", "Conn", "LedgerRefused", "LedgerUnreachable", "PgEngine", "SchemaTooNew"]

log = logging.getLogger("paydesk.ledger.postgres")
T = TypeVar("T")


class PgEngine:
    """The threads, the pool and the schema behind a shared (PostgreSQL) ledger."""

    def __init__(
        self,
        url: str,
        *,
        password: str | None = None,
        desk: str,
        readers: int = 2,
        on_reachable: Callable[[bool], None] | None = None,
        wait: float = 10.0,
    ):
        self.desk = desk
        self.on_reachable = on_reachable or (lambda reachable: None)
        self.reachable = True
        self.down_since: datetime | None = None
        self.version = 0  # the database's schema version, once opened
        self.read_only = False  # a newer PayDesk's schema: writes raise SchemaTooNew
        self.wait = wait  # how long a job waits for a pooled connection
        self._readers = max(1, readers)
        self.most = self._readers + 2  # pooled connections (a key-less counter's: 1, set before its first job)
        self._secrets = [s for s in (password,) if s]
        try:
            params: dict[str, Any] = conninfo_to_dict(url)
        except psycopg.Error as exc:
            raise LedgerError(
                f"The shared ledger's address is not valid: {self._clean(str(exc), url).strip()}"
            ) from None
        if params.get("password"):
            self._secrets.append(str(params["password"]))
        if password:
            params["password"] = password
        self._params = {**CONNECTION, **params}
        if params.get("options"):  # the URL's own options go after (and so win over) ours
            self._params["options"] = f"{CONNECTION['options']} {params['options']}"
        self._lock = threading.Lock()  # the pool, the schema, reachability
        self._pool: ConnectionPool[Conn] | None = None
        self._handover: Handover | None = None  # the pool's first connection (connection.py)
        self._opened = False
        self._closing = False  # no new jobs; the queued writes still run
        self._closed = False  # the queued writes ran: no pool any more
        self._loop: asyncio.AbstractEventLoop | None = None
        self._probing: asyncio.Task[None] | None = None  # while down: asking again (_probe)
        self._writer = concurrent.futures.ThreadPoolExecutor(1, "ledger-pg-writer")
        self._reader = concurrent.futures.ThreadPoolExecutor(self._readers, "ledger-pg-reader")
        # the call budget's statements (``budget.py``): never queued behind writes or reads
        self._quick = concurrent.futures.ThreadPoolExecutor(1, "ledger-pg-budget")

    # -- what other parts need --------------------------------------------------------

    def conninfo(self) -> dict[str, Any]:
        """The keyword arguments of a connection of one's own (the listener's):
        ``psycopg.connect(**engine.conninfo(), autocommit=True)``. They hold the password:
        never log them."""
        return dict(self._params)

    def clean(self, text: str) -> str:
        """``text`` without the password (for a message about a connection of one's own)."""
        return self._clean(text)

    def _clean(self, text: str, *more: str) -> str:
        for secret in [*self._secrets, *more]:
            if secret:
                text = text.replace(secret, "***")
        return text

    def mark_reachable(self, reachable: bool) -> None:
        """Say whether the server answers (the engine's jobs do; the listener may too).
        ``on_reachable`` hears of each change once, on the loop."""
        with self._lock:
            if reachable == self.reachable:
                return
            self.reachable = reachable
            self.down_since = None if reachable else datetime.now(UTC)
        if reachable:
            log.info("the shared ledger answers again")
        else:
            log.warning("the shared ledger is unreachable")
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or running is loop:
            self._tell(reachable)
        else:
            try:
                loop.call_soon_threadsafe(self._tell, reachable)
            except RuntimeError:  # the loop is closed: nobody is listening
                pass

    def _tell(self, reachable: bool) -> None:
        if not reachable:
            self._probe_later()
        try:
            self.on_reachable(reachable)
        except Exception:  # a listener's problem is not the ledger's
            log.exception("reachability listener failed")

    def _probe_later(self) -> None:
        """On the loop, once the engine is down: ``_probe`` until it answers again."""
        if self._closing or (self._probing is not None and not self._probing.done()):
            return
        try:
            self._probing = asyncio.get_running_loop().create_task(self._probe(), name="shared ledger probe")
        except RuntimeError:  # no loop runs here: the next job finds out
            self._probing = None

    async def _probe(self) -> None:
        """While the server is out of reach: a round trip now and then, so that the moment
        it answers every listener hears it (``mark_reachable(True)``, by the job itself).
        Never ends on an error; ends when it answers or the engine closes."""
        delay = PROBE_FIRST
        while not self.reachable and not self._closing:
            await asyncio.sleep(delay)
            delay = min(delay * 2, PROBE_MOST)
            if self.reachable or self._closing:
                return
            try:
                await asyncio.shield(self._submit(self._reader, lambda: self._run(nothing, write=False)))
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - still out of reach: again later
                log.debug("the shared ledger does not answer yet: %s", type(error).__name__)

    # -- connections (on the engine's threads) ----------------------------------------

    def _unreachable(self, exc: BaseException, pool: ConnectionPool[Conn] | None) -> LedgerError:
        """What a failed job raises: LedgerUnreachable (and the engine marked down) when
        nothing answers, LedgerRefused saying why when the server refused this desk."""
        text = self._clean(str(exc))
        refusal = classify(text, self._params, getattr(exc, "sqlstate", None))
        log.warning("shared ledger: %s", text.strip() or type(exc).__name__)
        if refusal.kind != UNREACHABLE:
            return LedgerRefused(refusal)
        with self._lock:
            if pool is not None and self._pool is pool:
                self._pool = None  # a fresh one once the server answers again
                threading.Thread(
                    target=pool.close, kwargs={"timeout": 2}, name="ledger-pool-close", daemon=True
                ).start()
        self.mark_reachable(False)
        since = self.down_since or datetime.now(UTC)
        return LedgerUnreachable(since)

    def _pool_now(self) -> ConnectionPool[Conn]:
        """The pool, made (and the schema migrated) if there is none; raises what a failed
        connection says."""
        with self._lock:
            pool = self._pool
        if pool is not None:
            return pool
        # one connection of its own first: a server that is down says so at once (a pool would
        # retry until its timeout); it migrates, then is the pool's first (no second connect)
        handover = Handover.made(self._params, nothing if self._opened else self._migrate)
        with self._lock:
            if self._pool is None and not self._closed:
                if self._handover is not None:
                    self._handover.close()  # an earlier pool's first, if that pool never took it
                self._handover = handover
                pool = ConnectionPool(
                    connection_class=handover.connection_class,
                    kwargs={**self._params, "autocommit": True, "row_factory": dict_row},
                    min_size=1,
                    max_size=self.most,
                    open=False,
                    check=self._check,
                    configure=self._configure,
                    name="paydesk-ledger",
                    timeout=self.wait,
                    max_idle=300,
                )
                pool.open(wait=False)
                self._pool = pool
            pool = self._pool
        if self._handover is not handover:
            handover.close()  # another job made the pool meanwhile
        elif pool is not None:  # ready before the first job asks (a job waiting would grow it)
            try:
                pool.wait(timeout=self.wait)  # at once: its first connection is the one handed over
            except PoolTimeout:  # the pool closed itself
                with self._lock:
                    self._pool = None if self._pool is pool else self._pool
                raise
        if pool is None:
            raise LedgerClosed("The ledger is closed")
        return pool

    def _check(self, conn: Conn) -> None:
        """The pool's check of a connection it hands out (a round trip). A broken one is
        replaced; when the server cannot be reached at all, the job fails at once."""
        try:
            ConnectionPool.check_connection(conn)
        except psycopg.Error:
            try:
                psycopg.connect(**self._params).close()
            except psycopg.OperationalError as exc:
                raise Gone(exc) from None
            raise  # the server is back (restarted): the pool makes a new connection

    def _configure(self, conn: Conn) -> None:
        if self.read_only:
            conn.execute("SET default_transaction_read_only = on")

    def _migrate(self, conn: Conn) -> None:
        version = migrate(conn)
        with self._lock:
            self.version = version
            self.read_only = version > KNOWN
            self._opened = True
        if self.read_only:
            log.warning(
                "the shared ledger's schema (%s) is newer than this PayDesk's (%s): opened read-only", version, KNOWN
            )

    def _run(self, fn: Callable[[Conn], T], *, write: bool, cancellable: Cancellable | None = None) -> T:
        """One job on this thread: a pooled connection, ``fn`` (in a transaction if
        ``write``), reachability kept."""
        if self._closing and not write:
            raise LedgerClosed("The ledger is closed")
        for _ in range(2):
            try:
                return self._attempt(fn, write=write, cancellable=cancellable)
            except PoolClosed:  # another job found the server gone and dropped that pool
                if self._closed:
                    raise LedgerClosed("The ledger is closed") from None
        return self._attempt(fn, write=write, cancellable=cancellable)

    def _attempt(self, fn: Callable[[Conn], T], *, write: bool, cancellable: Cancellable | None) -> T:
        pool: ConnectionPool[Conn] | None = None
        try:
            pool = self._pool_now()
            if write and self.read_only:
                raise SchemaTooNew()
            with pool.connection() as conn:
                if cancellable is not None:
                    with cancellable.lock:
                        if cancellable.abandoned:
                            raise LedgerError("superseded")  # nobody waits for it
                        cancellable.conn = conn
                try:
                    if write:
                        with conn.transaction():
                            result = fn(conn)
                    else:
                        result = read_on(conn, fn, cancellable)
                finally:
                    if cancellable is not None:
                        with cancellable.lock:
                            cancellable.conn = None
        except Gone as gone:
            raise self._unreachable(gone.cause, pool) from None
        except PoolTimeout as exc:
            raise self._unreachable(exc, pool) from None
        except psycopg.OperationalError as exc:
            if isinstance(exc, PoolClosed) or not lost(exc):
                raise
            raise self._unreachable(exc, pool) from None
        self.mark_reachable(True)
        return result

    def _submit(self, executor: concurrent.futures.ThreadPoolExecutor, call: Callable[[], T]) -> asyncio.Future[T]:
        loop = asyncio.get_running_loop()
        self._loop = loop
        return asyncio.wrap_future(executor.submit(call), loop=loop)

    async def opened(self) -> None:
        """Connect and migrate (once); raises LedgerUnreachable, or LedgerError saying why
        the server refused this desk."""
        if self._closing:
            raise LedgerClosed("The ledger is closed")
        if self._opened and self._pool is not None:
            return
        await asyncio.shield(self._submit(self._writer, lambda: self._run(nothing, write=False)))

    async def write(self, fn: Callable[[Conn], T]) -> T:
        """Run ``fn(conn)`` in one transaction on the writer thread. If the caller is
        cancelled, the write still happens; only the waiting stops. Raises SchemaTooNew on a
        newer PayDesk's ledger."""
        if self._closing:
            raise LedgerClosed("The ledger is closed")
        future = self._submit(self._writer, lambda: self._run(fn, write=True))
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            future.add_done_callback(report_unwaited)
            raise

    async def read(self, fn: Callable[[Conn], T]) -> T:
        """Run ``fn(conn)`` on a reader (autocommit). Cancelling the caller cancels the query."""
        if self._closing:
            raise LedgerClosed("The ledger is closed")
        cancellable = Cancellable()
        future = self._submit(self._reader, lambda: self._run(fn, write=False, cancellable=cancellable))
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            future.add_done_callback(consume)  # "cancelled" is what was asked for
            cancellable.cancel()
            raise

    async def quick(self, fn: Callable[[Conn], T]) -> T:
        """Run ``fn(conn)`` (autocommit: one statement is one transaction) on a thread of its
        own, never queued behind the ledger's writes and reads: the call budget's round trip,
        which a person's create may wait for. If the caller is cancelled, it still runs
        (what it took is told later). Raises SchemaTooNew on a newer PayDesk's ledger."""
        if self._closing:
            raise LedgerClosed("The ledger is closed")
        if self.read_only:
            raise SchemaTooNew()
        future = self._submit(self._quick, lambda: self._run(fn, write=False))
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            future.add_done_callback(consume)
            raise

    async def close(self) -> None:
        """Finish every queued write (connecting, and migrating, for them if the engine had
        not yet), then close the pool."""
        if self._closing:
            return
        self._closing = True
        if self._probing is not None:
            self._probing.cancel()

        def shut() -> None:
            self._writer.shutdown(wait=True)  # the writes queued before close() land
            self._quick.shutdown(wait=True)
            self._reader.shutdown(wait=True, cancel_futures=True)
            with self._lock:
                self._closed = True
                pool, self._pool = self._pool, None
            if pool is not None:
                pool.close(timeout=5)
            if self._handover is not None:
                self._handover.close()

        await asyncio.to_thread(shut)
