"""Running a batch of bulk links (Qt-free): its waiting rows created a few at a time, each
through ``LinksController.create`` (the intent written before the call: nothing lost, nothing
sent twice), with pause, resume and cancel, and the service's 429s waited out by every worker.

- The rows come from the batches' book a page at a time (``rows(..., states=(WAITING,))``),
  so a batch of 50,000 rows is never in memory at once, and a batch resumed after a crash
  or a cancel starts at its first row not sent. A row being created when the desk went away
  is "creating" in the ledger: the scheduler settles it with the same reference, as any.
- A row's reference is its own or the batch's (``Batch.ref``); the batch's own are drawn at
  random, so "used before" from the service for one of them is looked up and taken as the
  row's (``create(..., ours=True)``).
- Its calls are of the class BULK of the service's budget (``desk/budgets.py``): after
  people's calls and codes on screen, never the last calls of a window. A 429 pauses the
  budget, and so every worker ("Paused by the service for N s"); a 429 the client did not
  wait out (a budget's limit of 429s in a row) pauses the batch the same way, and the row is
  sent again (a resumed create, same reference).
- ``cancel`` stops within a second: no new call starts, the calls under way finish (their
  answers are written), and it says how far the batch got.
- The batch runs only while its profile and mode are the active ones: ``create`` sends with
  the active profile's key, so a switch pauses the batch (it goes on when resumed there).
- ``batch_changed(batch_id)`` is said on the hub at most every 100 ms per batch while it runs,
  and once at its end.
- The scheduler checks a batch's new link first after 5 minutes and no more often
  (``Scheduler.later``), unless a view shows it: thousands are made in minutes and paid over
  days; their creates are not slowed by thousands of look-ups.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from ...ledger import CREATING, LedgerError, LinkRecord
from ...ledger.batch import ALL, WAITING, Batch, BatchBook, BatchFigures, BatchRow
from ...reconcile import Progress
from ...scheduler import Scheduler
from ...service.budget import BudgetState
from ...service.call_class import CallClass, calls_as
from ...service.errors import (
    AuthenticationError,
    RateLimitedError,
    ServiceError,
    ServiceUnavailableError,
    ValidationError,
)
from ..budget_words import time_left
from ..events import Hub
from ..links import LinksController, LocalDuplicate
from ..session import NoKeyError, Session
from .batch_run import BatchRefused, Run
from .check import BulkRow, request_of
from .keep import keep
from .open_links import check_open
from .progress import report

log = logging.getLogger("paydesk.bulk")
PARALLEL = 4  # calls at a time
PAGE = 200  # waiting rows read at a time
EVERY = 0.1  # s: batch_changed at most this often per batch
CANCEL_WAIT = 1.0  # s: cancel returns by then; calls still under way finish behind it
LIMITED_TRIES = 6  # 429s in a row for one row before it is left to the scheduler
UNREACHABLE_IN_A_ROW = 3  # the service out of reach for this many rows: the batch pauses
CHECK_EVERY = 300.0  # s: a batch's link is checked first after this, and no more often
BACK_OFF, BACK_OFF_MOST = 0.5, 30.0  # s: a read the ledger did not answer is tried again
T = TypeVar("T")


class BulkController:
    """``BulkController(session, links, batches, hub)``: runs batches of the batches' book
    (``ledger/batch.py``) in tasks of its own (they end with the desk)."""

    def __init__(self, session: Session, links: LinksController, batches: BatchBook,
                 hub: Hub, *, parallel: int = PARALLEL, scheduler: Scheduler | None = None,
                 check_every: float = CHECK_EVERY):
        self.session, self.links, self.batches, self.hub = session, links, batches, hub
        self.parallel = parallel
        self.scheduler = scheduler  # told to check the batch's links slowly (later())
        self.check_every = check_every
        self.tasks = session.tasks.child()
        self._runs: dict[int, Run] = {}

    # -- what the window asks ---------------------------------------------------------

    def running(self, batch_id: int) -> bool:
        run = self._runs.get(batch_id)
        return run is not None and run.task is not None and not run.task.done()

    def paused(self, batch_id: int) -> bool:
        run = self._runs.get(batch_id)
        return self.running(batch_id) and run is not None and not run.go.is_set()

    def under_way(self, batch_id: int) -> int:
        """Rows being sent now (after a pause or cancel: the calls still finishing)."""
        run = self._runs.get(batch_id)
        return run.under_way if run is not None and self.running(batch_id) else 0

    def service_pause(self, batch_id: int) -> int | None:
        """Seconds left of a pause the service asked for (a 429, to this batch or to any
        call of its service's budget), or None."""
        run = self._runs.get(batch_id)
        if run is None or not self.running(batch_id):
            return None
        state = self._budget(run.batch)
        left = max(run.resume_at - time.monotonic(), state.book.paused_for if state else 0.0)
        return max(1, round(left)) if left > 0 else None

    def _budget(self, batch: Batch) -> BudgetState | None:
        profile = self.session.settings.profile(batch.profile_id)
        return self.session.budgets.state(profile) if profile is not None else None

    def time_left(self, batch_id: int, rows: int) -> str:
        """"about 2 h 50 min at the service's 60 calls a minute, shared with the counters":
        ``rows`` creates at what the service's budget leaves the batch ("" without a limit)."""
        run = self._runs.get(batch_id)
        return time_left(rows, self._budget(run.batch)) if run is not None else ""

    def status(self, batch_id: int) -> str:
        """What the progress line says: "Paused by the service for 3 s", "Paused", why it
        stopped, or how far a finished or cancelled run got ("" before any run)."""
        run = self._runs.get(batch_id)
        if run is None:
            return ""
        if not self.running(batch_id):
            return run.report
        pause = self.service_pause(batch_id)
        if pause is not None:
            return f"Paused by the service for {pause} s"
        if not run.go.is_set():
            return run.why_paused or "Paused"
        return "Cancelling…" if run.cancelled else "Creating links…"

    async def keep(self, file: str | Path, rows: list[BulkRow], policy: str, *,
                   name: str | None = None) -> tuple[Batch, bool]:
        """The checked ``rows`` of ``file`` as a batch of the active profile and mode, new or
        joined (``keep.keep``), its references carrying this installation's id. A shared
        ledger out of reach: refused (its LedgerError) before anything is written."""
        self.session.refuse_while_down()
        profile, mode = self.session.active()
        return await keep(self.batches, profile, mode, file, rows, policy, name=name,
                          desk_id=self.session.installation_id)

    def before(self, batch_id: int) -> BatchFigures | None:
        """The batch as its latest run found it (what was made before), None before any."""
        return run.before if (run := self._runs.get(batch_id)) is not None else None

    async def progress(self, batch_id: int) -> BatchFigures:
        return await self.batches.figures(batch_id)

    async def unfinished(self) -> list[Batch]:
        """The active profile's batches (this mode) with rows not sent yet and not running:
        offered to be resumed (never resumed silently at start)."""
        profile, mode = self.session.active()
        return [b for b in await self.batches.unfinished(profile.id, mode)
                if not self.running(b.id)]

    # -- start, pause, resume, cancel ---------------------------------------------------

    async def start(self, batch: Batch) -> None:
        """Run ``batch``'s waiting rows in a task of this controller (returns at once; the
        hub says ``batch_changed`` as it goes; ``wait`` awaits the end). Raises
        BatchRefused before any call: all or nothing with a row with problems, another
        profile or mode active; a shared ledger out of reach (its LedgerError). Starting a
        running batch resumes it."""
        self.session.refuse_while_down()
        if self.running(batch.id):
            self.resume(batch.id)
            return
        self._check_active(batch)
        figures = await self.batches.figures(batch.id)
        if batch.policy == ALL and figures.skipped:
            raise BatchRefused(f"All or nothing: {figures.skipped} rows have problems; "
                               "nothing was sent")
        run = Run(batch, before=figures)
        run.go.set()
        self._runs[batch.id] = run
        run.task = self.tasks.spawn(self._run(run), f"batch {batch.id}")
        self._changed(run)

    async def wait(self, batch_id: int) -> str:
        """Wait for the batch's run to end; how far it got."""
        run = self._runs.get(batch_id)
        if run is not None and run.task is not None:
            await asyncio.wait([run.task])
        return run.report if run is not None else ""

    def pause(self, batch_id: int) -> None:
        """No new call starts until ``resume``; the calls under way finish."""
        run = self._runs.get(batch_id)
        if run is not None and self.running(batch_id):
            run.go.clear()
            self._changed(run)

    def resume(self, batch_id: int) -> None:
        """Calls start again (BatchRefused, or a shared ledger out of reach: LedgerError)."""
        run = self._runs.get(batch_id)
        if run is not None and self.running(batch_id) and not run.cancelled:
            self._check_active(run.batch)
            self.session.refuse_while_down()
            run.why_paused, run.unreachable = "", 0
            run.go.set()
            self._changed(run)

    async def cancel(self, batch_id: int) -> str:
        """Stop the batch within a second: no new call starts; the calls under way finish
        (behind this, if they take longer). Returns how far it got."""
        run = self._runs.get(batch_id)
        if run is None or not self.running(batch_id):
            return run.report if run is not None else ""
        run.cancelled = True
        run.resume_at = 0.0
        run.go.set()  # a paused worker wakes to see it
        assert run.task is not None
        await asyncio.wait([run.task], timeout=CANCEL_WAIT)
        if not run.task.done():
            run.report = await self._report(run, "Cancelled")
        self._changed(run)
        return run.report

    async def check_all_open(self, batch_id: int,
                             on_progress: Callable[[Progress], None] | None = None) -> Progress:
        """Check every open link of the batch with the service now (the Reconciler: a few at
        a time, 429s waited out), a page of rows at a time (``open_links``). A shared ledger
        out of reach: refused before any call."""
        self.session.refuse_while_down()
        progress = await check_open(self.links, self.batches, batch_id, PAGE, on_progress)
        self.hub.batch_changed.emit(batch_id)
        self.session.report(f"Checked {progress.done} open links of the batch: "
                            f"{progress.report()}")
        return progress

    # -- the run ------------------------------------------------------------------------

    def _check_active(self, batch: Batch) -> None:
        profile, mode = self.session.active()
        if (profile.id, mode) != (batch.profile_id, batch.mode):
            raise BatchRefused(f"This batch is for another profile or mode ({batch.mode}): "
                               "switch to it to create its links")

    async def _run(self, run: Run) -> None:
        queue: asyncio.Queue[BatchRow | None] = asyncio.Queue(maxsize=self.parallel * 2)
        workers = [asyncio.ensure_future(self._worker(run, queue)) for _ in range(self.parallel)]
        feeder = asyncio.ensure_future(self._feed(run, queue))
        try:
            await asyncio.gather(feeder, *workers)
            run.report = await self._report(run, "Cancelled" if run.cancelled else "Finished")
        except asyncio.CancelledError:
            raise
        except Exception as error:  # said, and the batch can be resumed
            log.exception("batch %s stopped", run.batch.id)
            run.report = f"Stopped: {error}; resume to go on"
        finally:
            for task in (feeder, *workers):
                task.cancel()
            await asyncio.gather(feeder, *workers, return_exceptions=True)
            if run.saying is not None:
                run.saying.cancel()
            self.hub.batch_changed.emit(run.batch.id)
            if run.report:
                self.session.report(f"{run.batch.name}: {run.report}")

    async def _read(self, run: Run, read: Callable[[], Awaitable[T]]) -> T | None:
        """A read of the batches' book, tried again with back-off while the ledger cannot
        answer (a shared ledger's blip ends no run); None when the batch is cancelled."""
        delay = BACK_OFF
        while not run.cancelled:
            try:
                return await read()
            except LedgerError as error:
                log.warning("batch %s: the ledger did not answer (%s); again in %.1f s",
                            run.batch.id, error, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACK_OFF_MOST)
        return None

    async def _feed(self, run: Run, queue: asyncio.Queue[BatchRow | None]) -> None:
        after = None
        while not run.cancelled:
            page = await self._read(run, partial(self.batches.rows, run.batch.id, after,
                                                 PAGE, (WAITING,)))
            if not page:
                break
            for row in page:
                if run.cancelled:
                    break
                await queue.put(row)
            after = page[-1].number
        for _ in range(self.parallel):
            await queue.put(None)

    async def _ready(self, run: Run) -> bool:
        """Wait while the batch is paused (by the user, by the service); False: cancelled."""
        while True:
            await run.go.wait()
            if run.cancelled:
                return False
            left = run.resume_at - time.monotonic()
            if left <= 0:
                return True
            await asyncio.sleep(min(left, 0.2))  # a cancel is seen within 0.2 s

    async def _worker(self, run: Run, queue: asyncio.Queue[BatchRow | None]) -> None:
        with calls_as(CallClass.BULK):  # after people's calls and codes on screen
            await self._rows(run, queue)

    async def _rows(self, run: Run, queue: asyncio.Queue[BatchRow | None]) -> None:
        while (row := await queue.get()) is not None:
            while await self._ready(run):  # cancelled: the queue is drained, nothing sent
                run.under_way += 1
                try:
                    if not await self._one(run, row):
                        break
                except asyncio.CancelledError:
                    raise
                except Exception:  # one row's fault is not the batch's
                    log.exception("row %s of batch %s", row.number, run.batch.id)
                    break
                finally:
                    run.under_way -= 1
            self._changed(run)

    async def _one(self, run: Run, row: BatchRow) -> bool:
        """Create the row's link; True when nothing was sent and the batch is paused (the
        row goes again when it is resumed)."""
        batch = run.batch
        try:
            # read again just before sending: a corrected file may have changed or skipped
            # it since its page was read (the values sent are the book's, never stale ones)
            fresh = await self._read(run, lambda: self.batches.row(batch.id, row.number))
            if fresh is None or fresh.state != WAITING:
                return False  # skipped now, or sent by another desk meanwhile
            row = fresh
            request = request_of(BulkRow(row.number, row.values), row.tx_ref)
            self._check_active(batch)  # create sends with the active profile: checked here,
            record = await self.links.create(request, claimed=True,  # nothing awaited between
                                             ours=row.tx_ref == batch.ref(row.number))
            self._slowly(record)
            run.sent += 1
            run.unreachable = 0
        except BatchRefused as error:  # another profile or mode was made active
            self._stop(run, f"Paused: {error.message}")
            return True
        except (NoKeyError, LedgerError) as error:  # no key; a shared ledger out of reach
            self._stop(run, f"Paused: {getattr(error, 'message', None) or error}")
            return True
        except LocalDuplicate:
            pass  # another window or desk has this row's intent: its link is the row's
        except RateLimitedError as error:
            self._limited(run, error, 0)
            await self._again(run, row)
        except AuthenticationError as error:  # the row is refused (written so): stop here
            run.refused += 1
            self._stop(run, f"Paused: {error.message}")
        except ValidationError:
            run.refused += 1  # refused: written so (the row is REFUSED)
        except ServiceUnavailableError:
            run.unreachable += 1  # the intent stays "creating": the scheduler settles it
            if run.unreachable >= UNREACHABLE_IN_A_ROW:
                self._stop(run, "Paused: the service cannot be reached; resume to go on")
        except ServiceError:
            pass  # an answer the client did not understand: settled later, as any
        return False

    def _limited(self, run: Run, error: RateLimitedError, attempt: int) -> None:
        pause = error.retry_after if error.retry_after is not None else 2.0 ** attempt
        run.resume_at = max(run.resume_at, time.monotonic() + pause)
        self._changed(run)

    async def _again(self, run: Run, row: BatchRow) -> None:
        """A row the service refused to take now (429): its intent is written ("creating");
        sent again after the pause, as a resumed create (the scheduler keeps off it)."""
        key = (run.batch.profile_id, row.tx_ref)
        self.links.creating.add(key)  # the scheduler's settling keeps off it meanwhile
        try:
            for attempt in range(1, LIMITED_TRIES):
                if not await self._ready(run):
                    return  # cancelled: the scheduler settles it
                record = await self.links.ledger.get(run.batch.profile_id, row.tx_ref)
                if record is None or record.state != CREATING:
                    return
                try:
                    settled = await self.links.settle(record)
                except RateLimitedError as error:
                    self._limited(run, error, attempt)
                    continue
                if settled.state == "rejected":
                    run.refused += 1
                else:
                    run.sent += 1
                    self._slowly(settled)
                return
        except ServiceError:
            return  # noted on the record; the scheduler settles it
        finally:
            self.links.creating.discard(key)

    def _slowly(self, record: LinkRecord) -> None:
        """The scheduler checks a batch's new link after ``check_every`` s, and no more often
        (thousands made in minutes, paid over days: not each looked up within seconds)."""
        if self.scheduler is not None:
            self.scheduler.later(record.key, self.check_every)

    def _stop(self, run: Run, why: str) -> None:
        run.why_paused = why
        run.go.clear()
        self._changed(run)

    async def _report(self, run: Run, how: str) -> str:
        return report(await self.batches.figures(run.batch.id), how, run.before)

    def _changed(self, run: Run) -> None:
        """``batch_changed`` now, or at most every ``EVERY`` s while rows keep changing."""
        if run.saying is not None:
            return
        wait = run.last_said + EVERY - time.monotonic()

        def say() -> None:
            run.saying = None
            run.last_said = time.monotonic()
            self.hub.batch_changed.emit(run.batch.id)

        if wait <= 0:
            say()
        else:
            run.saying = asyncio.get_running_loop().call_later(wait, say)


__all__ = ["BatchRefused", "BulkController"]
