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
import time
from collections.abc import Callable, Collection
from pathlib import Path

from ...config.profiles import Profile
from ...i18n import _, ngettext
from ...ledger import LedgerError
from ...ledger.batch import ALL, Batch, BatchBook, BatchFigures
from ...service.budget import BudgetState
from ..budget_words import time_left
from ..events import Hub
from ..links import LinksController
from ..reconcile import Progress
from ..scheduler import Scheduler
from ..session import Session
from ..staff import Capability
from .batch_run import BatchRefused, Run, check_active
from .check import BulkRow, known_references
from .earlier import Earlier, earlier_batch
from .keep import keep
from .open_links import check_open
from .progress import CANCELLED
from .sending import PAGE, Sender

PARALLEL = 4  # calls at a time
CANCEL_WAIT = 1.0  # s: cancel returns by then; calls still under way finish behind it
CHECK_EVERY = 300.0  # s: a batch's link is checked first after this, and no more often


class BulkController:
    """``BulkController(session, links, batches, hub)``: runs batches of the batches' book
    (``ledger/batch.py``) in tasks of its own (they end with the desk)."""

    def __init__(
        self,
        session: Session,
        links: LinksController,
        batches: BatchBook,
        hub: Hub,
        *,
        parallel: int = PARALLEL,
        scheduler: Scheduler | None = None,
        check_every: float = CHECK_EVERY,
    ):
        self.session, self.links, self.batches, self.hub = session, links, batches, hub
        self.parallel = parallel
        self.scheduler = scheduler  # told to check the batch's links slowly (later())
        self.check_every = check_every
        self.tasks = session.tasks.child()
        self._runs: dict[int, Run] = {}
        self.sender = Sender(
            session, links, batches, hub, parallel=parallel, scheduler=scheduler, check_every=check_every
        )

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
        """ "about 2 h 50 min at the service's 60 calls a minute, shared with the counters":
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
            return _("Paused by the service for {seconds} s").format(seconds=pause)
        if not run.go.is_set():
            return run.why_paused or _("Paused")
        return _("Cancelling…") if run.cancelled else _("Creating links…")

    async def keep(
        self, file: str | Path, rows: list[BulkRow], policy: str, *, name: str | None = None
    ) -> tuple[Batch, bool]:
        """The checked ``rows`` of ``file`` as a batch of the active profile and mode, new or
        joined (``keep.keep``), its references carrying this installation's id. A shared
        ledger out of reach: refused (its LedgerError) before anything is written."""
        self.session.staff.require(Capability.BULK_LINKS)
        self.session.refuse_while_down()
        profile, mode = self.session.active()
        return await keep(
            self.batches, profile, mode, file, rows, policy, name=name, desk_id=self.session.installation_id
        )

    async def earlier(self, profile: Profile, mode: str, file: str) -> Earlier:
        """What an earlier batch of ``file`` (its name) in ``profile`` and ``mode`` did, read
        from the book a page at a time (``Earlier()`` when there is none)."""
        return await earlier_batch(self.batches, profile, mode, file)

    async def known_references(self, profile: Profile, refs: Collection[str]) -> set[str]:
        """Which of ``refs`` the ledger already holds for ``profile``."""
        return await known_references(self.session.ledger, profile.id, refs)

    def before(self, batch_id: int) -> BatchFigures | None:
        """The batch as its latest run found it (what was made before), None before any."""
        return run.before if (run := self._runs.get(batch_id)) is not None else None

    async def progress(self, batch_id: int) -> BatchFigures:
        return await self.batches.figures(batch_id)

    async def unfinished(self) -> list[Batch]:
        """The active profile's batches (this mode) with rows not sent yet and not running:
        offered to be resumed (never resumed silently at start)."""
        profile, mode = self.session.active()
        return [b for b in await self.batches.unfinished(profile.id, mode) if not self.running(b.id)]

    # -- start, pause, resume, cancel ---------------------------------------------------

    async def start(self, batch: Batch) -> None:
        """Run ``batch``'s waiting rows in a task of this controller (returns at once; the
        hub says ``batch_changed`` as it goes; ``wait`` awaits the end). Raises
        BatchRefused before any call: all or nothing with a row with problems, another
        profile or mode active; a shared ledger out of reach (its LedgerError). Starting a
        running batch resumes it. Every start, pause, resume and cancel is a person's, who
        may make bulk links (NotAllowed); the run itself is never refused (a lock meanwhile
        does not stop it)."""
        self.session.staff.require(Capability.BULK_LINKS)
        self.session.refuse_while_down()
        if self.running(batch.id):
            self.resume(batch.id)
            return
        check_active(self.session, batch)
        figures = await self.batches.figures(batch.id)
        if batch.policy == ALL and figures.skipped:
            raise BatchRefused(
                ngettext(
                    "All or nothing: {count} row has problems; nothing was sent",
                    "All or nothing: {count} rows have problems; nothing was sent",
                    figures.skipped,
                ).format(count=figures.skipped)
            )
        run = Run(batch, before=figures, actor=self.session.staff.actor)
        run.go.set()
        self._runs[batch.id] = run
        run.task = self.tasks.spawn(self.sender.run(run), f"batch {batch.id}")
        self.sender.changed(run)

    async def wait(self, batch_id: int) -> str:
        """Wait for the batch's run to end; how far it got."""
        run = self._runs.get(batch_id)
        if run is not None and run.task is not None:
            await asyncio.wait([run.task])
        return run.report if run is not None else ""

    def pause(self, batch_id: int) -> None:
        """No new call starts until ``resume``; the calls under way finish."""
        self.session.staff.require(Capability.BULK_LINKS)
        run = self._runs.get(batch_id)
        if run is not None and self.running(batch_id):
            run.go.clear()
            self.sender.changed(run)

    def resume(self, batch_id: int) -> None:
        """Calls start again (BatchRefused, or a shared ledger out of reach: LedgerError)."""
        self.session.staff.require(Capability.BULK_LINKS)
        run = self._runs.get(batch_id)
        if run is not None and self.running(batch_id) and not run.cancelled:
            check_active(self.session, run.batch)
            self.session.refuse_while_down()
            run.why_paused, run.unreachable = "", 0
            run.actor = self.session.staff.actor  # its rows from now are this person's
            run.go.set()
            self.sender.changed(run)

    async def cancel(self, batch_id: int) -> str:
        """Stop the batch within a second: no new call starts; the calls under way finish
        (behind this, if they take longer). Returns how far it got."""
        self.session.staff.require(Capability.BULK_LINKS)
        run = self._runs.get(batch_id)
        if run is None or not self.running(batch_id):
            return run.report if run is not None else ""
        run.cancelled = True
        run.resume_at = 0.0
        run.go.set()  # a paused worker wakes to see it
        assert run.task is not None
        await asyncio.wait([run.task], timeout=CANCEL_WAIT)
        if not run.task.done():
            try:
                run.report = await self.sender.report(run, CANCELLED)
            except LedgerError as error:  # its figures cannot be read: cancelled all the same
                run.report = _("Cancelled. {why}").format(why=error)
        self.sender.changed(run)
        return run.report

    async def check_all_open(self, batch_id: int, on_progress: Callable[[Progress], None] | None = None) -> Progress:
        """Check every open link of the batch with the service now (the Reconciler: a few at
        a time, 429s waited out), a page of rows at a time (``open_links``). A shared ledger
        out of reach: refused before any call."""
        self.session.staff.require(Capability.CHECK_ALL_OPEN)
        self.session.refuse_while_down()
        progress = await check_open(self.links, self.batches, batch_id, PAGE, on_progress)
        self.hub.batch_changed.emit(batch_id)
        self.session.report(
            ngettext(
                "Checked {count} open link of the batch: {report}",
                "Checked {count} open links of the batch: {report}",
                progress.done,
            ).format(count=progress.done, report=progress.report())
        )
        return progress


__all__ = ["BatchRefused", "BulkController"]
