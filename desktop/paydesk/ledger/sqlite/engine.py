"""SQLite off the caller's thread: one writer connection on its own thread, a few reader
connections on theirs, and awaitables for both.

- Writes run one at a time, in order, each in one ``BEGIN IMMEDIATE`` transaction. When
  another program holds the file, a write waits and retries in the background (never
  raising "database is locked" at its caller) and ``on_busy(True)`` says so until it lands.
  A write is never abandoned because its caller stopped waiting: what was asked is written.
- Reads run on any free reader. A caller that stops waiting (a query superseded by a newer
  one) interrupts its statement, so the reader is free again at once.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...i18n import _
from ..errors import LedgerClosed, LedgerError

log = logging.getLogger("paydesk.ledger")
T = TypeVar("T")


def is_busy(error: BaseException) -> bool:
    return isinstance(error, sqlite3.OperationalError) and ("locked" in str(error) or "busy" in str(error))


class _Job:
    __slots__ = ("fn", "loop", "future", "abandoned")

    def __init__(self, fn: Callable[[sqlite3.Connection], Any], loop: asyncio.AbstractEventLoop):
        self.fn = fn
        self.loop = loop
        self.future: asyncio.Future = loop.create_future()
        self.abandoned = False  # set from the loop's thread: nobody waits for a read any more

    def settle(self, ok: bool, value: Any) -> None:
        def deliver() -> None:
            if self.future.done():
                return
            if ok:
                self.future.set_result(value)
            else:
                self.future.set_exception(value)

        try:
            self.loop.call_soon_threadsafe(deliver)
        except RuntimeError:  # the loop is closed: nobody is waiting
            pass


def _consume(future: asyncio.Future) -> None:
    if not future.cancelled():
        future.exception()


def _report_unwaited(future: asyncio.Future) -> None:
    """A write finished after its caller stopped waiting: say if it failed."""
    if not future.cancelled() and future.exception() is not None:
        log.error("a change whose window had closed could not be saved: %s", future.exception())


class _Worker(threading.Thread):
    """Owns one connection; runs jobs from its queue until it gets None."""

    def __init__(
        self,
        name: str,
        jobs: queue.SimpleQueue[_Job | None],
        connect: Callable[[], sqlite3.Connection],
        ready: concurrent.futures.Future | None = None,
    ):
        super().__init__(name=name, daemon=True)
        self.jobs = jobs
        self._connect = connect
        self._ready = ready  # readers wait for the writer to have migrated the file
        self._lock = threading.Lock()
        self._current: _Job | None = None
        self.db: sqlite3.Connection | None = None

    def run(self) -> None:
        failure: BaseException | None = None
        db: sqlite3.Connection | None = None
        try:
            if self._ready is not None:
                self._ready.result()
            db = self.db = self._connect()
        except BaseException as exc:  # noqa: BLE001 - every job then says why
            failure = exc
        while True:
            job = self.jobs.get()
            if job is None:
                break
            if job.abandoned:
                job.settle(False, asyncio.CancelledError())
                continue
            if db is None:  # it could not connect; failure says why
                job.settle(False, LedgerError(_("The ledger cannot be opened: {why}").format(why=failure)))
                continue
            with self._lock:
                self._current = job
            try:
                result = job.fn(db)
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting coroutine
                job.settle(False, exc)
            else:
                job.settle(True, result)
            finally:
                with self._lock:
                    self._current = None
        if self.db is not None:
            try:
                self.db.close()
            except sqlite3.Error:
                pass

    def interrupt(self, job: _Job) -> bool:
        """Stop ``job``'s statement if this worker is running it now."""
        with self._lock:
            if self._current is job and self.db is not None:
                self.db.interrupt()
                return True
        return False


class Engine:
    """The threads and connections behind a SQLite ledger."""

    def __init__(
        self,
        path: Path,
        *,
        prepare: Callable[[sqlite3.Connection], None],
        readers: int = 2,
        busy_timeout_ms: int = 250,
        on_busy: Callable[[bool], None] | None = None,
    ):
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self.on_busy = on_busy or (lambda busy: None)
        self.busy = False
        self._closing = False
        self._closed = False
        self._opened: concurrent.futures.Future = concurrent.futures.Future()
        self._write_jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._read_jobs: queue.SimpleQueue = queue.SimpleQueue()

        def writer_connection() -> sqlite3.Connection:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                db = self._connection()

                def set_up() -> None:
                    db.execute("PRAGMA cache_size = -32000")  # 32 MB: a large ledger's indexes
                    db.execute("PRAGMA journal_mode = WAL")
                    db.execute("PRAGMA synchronous = NORMAL")

                # another window opening (and migrating) the same file at the same moment
                # holds it for a while: wait for it, as writes do, rather than fail to open
                self._retry_busy(set_up)
                self._retry_busy(lambda: prepare(db))
            except BaseException as exc:
                self._opened.set_exception(exc)
                raise
            self._opened.set_result(True)
            return db

        def reader_connection() -> sqlite3.Connection:
            db = self._connection()

            def set_up() -> None:
                db.execute("PRAGMA query_only = 1")
                db.execute("PRAGMA cache_size = -4000")  # 4 MB each: pages found by seeking

            self._retry_busy(set_up, saving=False)
            return db

        self._writer = _Worker("ledger-writer", self._write_jobs, writer_connection)
        self._readers = [
            _Worker(f"ledger-reader-{i}", self._read_jobs, reader_connection, self._opened) for i in range(readers)
        ]
        self._writer.start()
        for reader in self._readers:
            reader.start()

    def _connection(self) -> sqlite3.Connection:
        db = sqlite3.connect(
            str(self.path), isolation_level=None, check_same_thread=False, timeout=self.busy_timeout_ms / 1000
        )
        db.row_factory = sqlite3.Row
        db.execute(f"PRAGMA busy_timeout = {self.busy_timeout_ms}")
        return db

    async def opened(self) -> None:
        """Wait for the file to be open and migrated; raises what went wrong."""
        try:
            await asyncio.wrap_future(self._opened)
        except LedgerError:
            raise
        except Exception as exc:
            raise LedgerError(_("The ledger cannot be opened: {why}").format(why=exc)) from exc

    # -- busy: another program holds the file -----------------------------------------

    def _set_busy(self, busy: bool) -> None:
        if busy != self.busy:
            self.busy = busy
            if busy:
                log.warning("the ledger is busy (another program holds it); saving waits")
            else:
                log.info("the ledger is free again; delayed saving done")
            try:
                self.on_busy(busy)
            except Exception:  # a listener's problem is not the write's
                log.exception("busy listener failed")

    def _retry_busy(self, attempt: Callable[[], T], *, saving: bool = True) -> T:
        """Run ``attempt`` until the file is free. Gives up only when closing has waited long.
        Only saving (the writer) says that the ledger is busy."""
        delay = 0.05
        while True:
            try:
                result = attempt()
            except sqlite3.OperationalError as exc:
                if not is_busy(exc):
                    raise
                if self._closing and time.monotonic() > self._give_up_at:
                    raise LedgerError(_("The ledger stayed busy; this change was not saved")) from None
                if saving:
                    self._set_busy(True)
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            if saving:
                self._set_busy(False)
            return result

    # -- jobs -------------------------------------------------------------------------

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(db)`` in one write transaction on the writer thread.

        If the caller is cancelled, the write still happens (it is not undone by a closed
        window); only the waiting stops."""
        if self._closed or self._closing:
            raise LedgerClosed("The ledger is closed")

        def transaction(db: sqlite3.Connection) -> T:
            def once() -> T:
                db.execute("BEGIN IMMEDIATE")
                try:
                    result = fn(db)
                    db.execute("COMMIT")
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
                return result

            return self._retry_busy(once)

        job = _Job(transaction, asyncio.get_running_loop())
        self._write_jobs.put(job)
        try:
            return await asyncio.shield(job.future)
        except asyncio.CancelledError:
            job.future.add_done_callback(_report_unwaited)
            raise

    async def on_writer(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(db)`` on the writer's connection, outside any transaction, in turn with
        the writes: for what only that connection can say (``PRAGMA data_version`` there
        moves only when another connection, i.e. another program, committed)."""
        if self._closed or self._closing:
            raise LedgerClosed("The ledger is closed")
        job = _Job(lambda db: self._retry_busy(lambda: fn(db), saving=False), asyncio.get_running_loop())
        self._write_jobs.put(job)
        try:
            return await asyncio.shield(job.future)
        except asyncio.CancelledError:
            job.future.add_done_callback(_consume)  # nobody waits for it any more
            raise

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(db)`` on a reader. Cancelling the caller interrupts the query."""
        if self._closed or self._closing:
            raise LedgerClosed("The ledger is closed")
        await self.opened()

        def attempt(db: sqlite3.Connection) -> T:
            return self._retry_busy(lambda: fn(db), saving=False)

        job = _Job(attempt, asyncio.get_running_loop())
        self._read_jobs.put(job)
        try:
            return await asyncio.shield(job.future)
        except asyncio.CancelledError:
            job.abandoned = True
            job.future.add_done_callback(_consume)  # "interrupted" is what was asked for
            for reader in self._readers:
                reader.interrupt(job)
            raise

    # -- closing ----------------------------------------------------------------------

    _give_up_at = float("inf")

    async def close(self, wait_for_busy: float = 10.0) -> None:
        """Finish every queued write (waiting up to ``wait_for_busy`` s for a busy file),
        then close the connections."""
        if self._closed:
            return
        self._closing = True
        self._give_up_at = time.monotonic() + wait_for_busy
        loop = asyncio.get_running_loop()
        done = loop.create_future()

        def optimize(db: sqlite3.Connection) -> None:
            try:
                db.execute("PRAGMA optimize")
            except sqlite3.Error:
                pass

        self._write_jobs.put(_Job(optimize, loop))
        self._write_jobs.put(None)
        for _reader in self._readers:
            self._read_jobs.put(None)

        def closed() -> None:  # on the loop
            if not done.done():
                done.set_result(None)

        def join() -> None:
            self._writer.join()
            for reader in self._readers:
                reader.join()
            loop.call_soon_threadsafe(closed)

        threading.Thread(target=join, name="ledger-close", daemon=True).start()
        await done
        self._closed = True
