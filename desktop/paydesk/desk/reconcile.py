"""Reconcile: check every open record of a profile and mode with the service, now, and read
again the ones paid lately (a refund or a reversal can still come to them).

Qt-free. Bounded concurrency; a 429 pauses every worker for its Retry-After (capped); a
failure leaves the record as it was, with its last error noted; cancelling stops at once
(the calls in flight are abandoned; their ledger writes, if any started, still land). The
records come as a list, or as pages read from the ledger while the checks run (never all
of them in memory at once).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from ..i18n import _, ngettext, staff
from ..ledger import CREATING, LinkRecord
from ..service.errors import RateLimitedError, ServiceError
from .formats import number_in

log = logging.getLogger("paydesk.reconcile")

# how a record ended: the report's keys ("12 paid, 3 failed, …" in the staff's words, _counted)
ENDINGS = {
    "success": "paid",
    "failed": "failed",
    "cancelled": "cancelled",
    "refunded": "refunded",
    "reversed": "reversed",
    "rejected": "not_created",
}
STILL_OPEN, NOT_CHECKED = "still_open", "not_checked"
STILL_PAID = "still_paid"  # paid before, read again, nothing given back
ORDER = ("paid", "failed", "cancelled", "refunded", "reversed", "not_created", STILL_OPEN, STILL_PAID, NOT_CHECKED)
Records = Sequence[LinkRecord] | AsyncIterator[Sequence[LinkRecord]]


def ending(before: LinkRecord, after: LinkRecord) -> str:
    """How a checked record ended, in the report's words."""
    if before.state == after.state == "success":
        return STILL_PAID
    return ENDINGS.get(after.state, STILL_OPEN)


@dataclass
class Progress:
    total: int
    checked: int = 0  # answered (changed or not)
    changed: int = 0  # answered with a new state
    failed: int = 0  # could not be checked
    endings: Counter = field(default_factory=Counter)  # ending -> how many
    changed_refs: set[str] = field(default_factory=set)  # what changed or failed: to filter on

    @property
    def done(self) -> int:
        return self.checked + self.failed

    def report(self) -> str:
        """e.g. "12 paid, 3 failed, 2 still open, 1 could not be checked"."""
        parts = [_counted(e, self.endings[e]) for e in ORDER if self.endings.get(e)]
        return ", ".join(parts) if parts else _("nothing to check")


def _counted(ending: str, n: int) -> str:
    """``n`` records of one ending in the staff's words ("12 paid"); the endings themselves
    stay the report's keys."""
    words = {
        "paid": ngettext("{count} paid", "{count} paid", n),
        "failed": ngettext("{count} failed", "{count} failed", n),
        "cancelled": ngettext("{count} cancelled", "{count} cancelled", n),
        "refunded": ngettext("{count} refunded", "{count} refunded", n),
        "reversed": ngettext("{count} reversed", "{count} reversed", n),
        "not_created": ngettext("{count} not created", "{count} not created", n),
        STILL_OPEN: ngettext("{count} still open", "{count} still open", n),
        STILL_PAID: ngettext("{count} still paid", "{count} still paid", n),
        NOT_CHECKED: ngettext("{count} could not be checked", "{count} could not be checked", n),
    }
    return words.get(ending, f"{n} {ending}").format(count=number_in(n, staff()))


class Reconciler:
    def __init__(
        self,
        check: Callable[[LinkRecord], Awaitable[LinkRecord]],
        settle: Callable[[LinkRecord], Awaitable[LinkRecord]],
        note: Callable[[LinkRecord, str], Awaitable[object]],
        *,
        parallel: int = 4,
        longest_pause: float = 60.0,
        retries_when_limited: int = 5,
        on_progress: Callable[[Progress], None] | None = None,
    ):
        self._check, self._settle, self._note = check, settle, note
        self.parallel = parallel
        self.longest_pause = longest_pause
        self.retries_when_limited = retries_when_limited
        self.on_progress = on_progress or (lambda progress: None)
        self._resume_at = 0.0

    async def run(self, records: Records, total: int | None = None) -> Progress:
        """Check ``records``: a list, or pages of them (an async iterator) with their
        ``total`` counted beforehand (more may come: the total then grows)."""
        if total is None:
            records = list(records)  # type: ignore[arg-type]
            total = len(records)
        progress = Progress(total=total)
        # bounded: pages are read only as fast as they are checked
        queue: asyncio.Queue[LinkRecord | None] = asyncio.Queue(maxsize=self.parallel * 2)
        self.on_progress(progress)
        count = min(self.parallel, total) or (1 if not isinstance(records, Sequence) else 0)
        workers = [asyncio.ensure_future(self._worker(queue, progress)) for _unused in range(count)]
        feeder = asyncio.ensure_future(self._feed(records, queue, progress, count))
        try:
            await asyncio.gather(feeder, *workers)
        finally:
            for task in (feeder, *workers):
                task.cancel()
            await asyncio.gather(feeder, *workers, return_exceptions=True)
        return progress

    @staticmethod
    async def _feed(records: Records, queue: asyncio.Queue, progress: Progress, workers: int) -> None:
        seen = 0

        async def put(record: LinkRecord) -> None:
            nonlocal seen
            seen += 1
            progress.total = max(progress.total, seen)
            await queue.put(record)

        if isinstance(records, Sequence):
            for record in records:
                await put(record)
        else:
            async for page in records:
                for record in page:
                    await put(record)
        progress.total = seen  # all read: the total is now exact (it was counted before)
        for _unused in range(workers):
            await queue.put(None)  # each worker's end

    async def _worker(self, queue: asyncio.Queue, progress: Progress) -> None:
        while (record := await queue.get()) is not None:
            await self._one(record, progress)
            self.on_progress(progress)

    async def _wait_for_pause(self) -> None:
        while (left := self._resume_at - time.monotonic()) > 0:  # noqa: ASYNC110 (a time, not an event: the pause may grow)
            await asyncio.sleep(left)

    async def _one(self, record: LinkRecord, progress: Progress) -> None:
        for attempt in range(self.retries_when_limited + 1):
            await self._wait_for_pause()
            try:
                after = await (self._settle if record.state == CREATING else self._check)(record)
            except RateLimitedError as error:
                pause = min(self.longest_pause, error.retry_after or 2.0**attempt)
                self._resume_at = max(self._resume_at, time.monotonic() + pause)
                last_error: ServiceError | Exception = error
                continue
            except ServiceError as error:
                last_error = error
                break
            except asyncio.CancelledError:
                raise
            except Exception as error:  # one record's bug ends only its check
                log.exception("reconciling %s failed", record.tx_ref)
                last_error = error
                break
            progress.checked += 1
            if (after.state, after.state_raw) != (record.state, record.state_raw):
                progress.changed += 1
                progress.changed_refs.add(record.tx_ref)
            progress.endings[ending(record, after)] += 1
            return
        message = getattr(last_error, "message", None) or str(last_error)
        progress.failed += 1
        progress.endings[NOT_CHECKED] += 1
        progress.changed_refs.add(record.tx_ref)
        try:
            await self._note(record, message)
        except Exception:  # the note is a courtesy; the count is what matters
            log.exception("could not note the error of %s", record.tx_ref)
