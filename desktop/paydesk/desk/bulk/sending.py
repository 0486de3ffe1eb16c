"""Sending a batch's waiting rows (Qt-free; the run of ``runner.py``'s BulkController): a
page of waiting rows read at a time, a few workers sending them through
``LinksController.create``, the service's 429s waited out, the hub told at most every
100 ms. See ``runner.py`` for the rules."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TypeVar

from ...i18n import _
from ...ledger import CREATING, LedgerError, LinkRecord
from ...ledger.batch import WAITING, BatchBook, BatchRow
from ...service.call_class import CallClass, calls_as
from ...service.errors import (
    AuthenticationError,
    RateLimitedError,
    ServiceError,
    ServiceUnavailableError,
    ValidationError,
)
from ..events import Hub
from ..leases import NoKeyError
from ..links import LinksController, LocalDuplicate
from ..scheduler import Scheduler
from ..session import Session
from .batch_run import BatchRefused, Run, check_active
from .check import BulkRow, request_of
from .progress import CANCELLED, FINISHED, report

log = logging.getLogger("paydesk.bulk")
PAGE = 200  # waiting rows read at a time
EVERY = 0.1  # s: batch_changed at most this often per batch
LIMITED_TRIES = 6  # 429s in a row for one row before it is left to the scheduler
UNREACHABLE_IN_A_ROW = 3  # the service out of reach for this many rows: the batch pauses
BACK_OFF, BACK_OFF_MOST = 0.5, 30.0  # s: a read the ledger did not answer is tried again
T = TypeVar("T")


class Sender:
    """Sends the waiting rows of a batch's ``Run`` (``run``), and says how it goes."""

    def __init__(
        self,
        session: Session,
        links: LinksController,
        batches: BatchBook,
        hub: Hub,
        *,
        parallel: int,
        scheduler: Scheduler | None,
        check_every: float,
    ):
        self.session, self.links, self.batches, self.hub = session, links, batches, hub
        self.parallel = parallel
        self.scheduler = scheduler  # told to check the batch's links slowly (later())
        self.check_every = check_every

    async def run(self, run: Run) -> None:
        queue: asyncio.Queue[BatchRow | None] = asyncio.Queue(maxsize=self.parallel * 2)
        workers = [asyncio.ensure_future(self._worker(run, queue)) for _ in range(self.parallel)]
        feeder = asyncio.ensure_future(self._feed(run, queue))
        try:
            await asyncio.gather(feeder, *workers)
            run.report = await self.report(run, CANCELLED if run.cancelled else FINISHED)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # said, and the batch can be resumed
            log.exception("batch %s stopped", run.batch.id)
            run.report = _("Stopped: {why}; resume to go on").format(why=error)
        finally:
            for task in (feeder, *workers):
                task.cancel()
            await asyncio.gather(feeder, *workers, return_exceptions=True)
            if run.saying is not None:
                run.saying.cancel()
            self.hub.batch_changed.emit(run.batch.id)
            if run.report:
                self.session.report(_("{batch}: {report}").format(batch=run.batch.name, report=run.report))

    async def _read(self, run: Run, read: Callable[[], Awaitable[T]]) -> T | None:
        """A read of the batches' book, tried again with back-off while the ledger cannot
        answer (a shared ledger's blip ends no run); None when the batch is cancelled."""
        delay = BACK_OFF
        while not run.cancelled:
            try:
                return await read()
            except LedgerError as error:
                log.warning("batch %s: the ledger did not answer (%s); again in %.1f s", run.batch.id, error, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACK_OFF_MOST)
        return None

    async def _feed(self, run: Run, queue: asyncio.Queue[BatchRow | None]) -> None:
        after = None
        while not run.cancelled:
            page = await self._read(run, partial(self.batches.rows, run.batch.id, after, PAGE, (WAITING,)))
            if not page:
                break
            for row in page:
                if run.cancelled:
                    break
                await queue.put(row)
            after = page[-1].number
        for _worker in range(self.parallel):
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
            self.changed(run)

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
            check_active(self.session, batch)  # create sends with the active profile: checked here,
            self.session.refuse_while_down()  # (a person's create, the Links tab's, is refused
            # for who is signed in; a batch a person was allowed to start is not)
            record = await self.links.create_as(
                *self.session.active(),
                request,
                claimed=True,  # nothing awaited between
                ours=row.tx_ref == batch.ref(row.number),
                actor=run.actor,  # who started the batch, whoever is signed in now
            )
            self._slowly(record)
            run.sent += 1
            run.unreachable = 0
        except BatchRefused as error:  # another profile or mode was made active
            self._stop(run, _("Paused: {why}").format(why=str(error)))
            return True
        except (NoKeyError, LedgerError) as error:  # no key; a shared ledger out of reach
            self._stop(run, _("Paused: {why}").format(why=getattr(error, "message", None) or error))
            return True
        except LocalDuplicate:
            pass  # another window or desk has this row's intent: its link is the row's
        except RateLimitedError as error:
            self._limited(run, error, 0)
            await self._again(run, row)
        except AuthenticationError as error:  # the row is refused (written so): stop here
            run.refused += 1
            self._stop(run, _("Paused: {why}").format(why=str(error)))
        except ValidationError:
            run.refused += 1  # refused: written so (the row is REFUSED)
        except ServiceUnavailableError:
            run.unreachable += 1  # the intent stays "creating": the scheduler settles it
            if run.unreachable >= UNREACHABLE_IN_A_ROW:
                self._stop(run, _("Paused: the service cannot be reached; resume to go on"))
        except ServiceError:
            pass  # an answer the client did not understand: settled later, as any
        return False

    def _limited(self, run: Run, error: RateLimitedError, attempt: int) -> None:
        pause = error.retry_after if error.retry_after is not None else 2.0**attempt
        run.resume_at = max(run.resume_at, time.monotonic() + pause)
        self.changed(run)

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
        self.changed(run)

    async def report(self, run: Run, how: str) -> str:
        """How far the run got; ``how``: progress.FINISHED or progress.CANCELLED."""
        return report(await self.batches.figures(run.batch.id), how, run.before)

    def changed(self, run: Run) -> None:
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
