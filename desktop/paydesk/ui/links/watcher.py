"""The one scheduler that re-checks open links: often while one is on screen, backing off
after, stopping at a final state, honouring rate limits. Views never poll."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from ...ledger import LinkRecord
from ...service.errors import RateLimitedError, ServiceError
from .controller import LinksController

log = logging.getLogger("paydesk.watcher")


@dataclass
class Entry:
    record: LinkRecord
    due: float
    interval: float


class LinkWatcher:
    def __init__(self, controller: LinksController, *, focused_every: float = 2.0,
                 first_every: float = 5.0, slowest: float = 120.0, parallel: int = 4):
        self.controller = controller
        self.focused_every = focused_every
        self.first_every = first_every
        self.slowest = slowest
        self.parallel = parallel
        self._entries: dict[tuple[str, str], Entry] = {}
        self._focused: dict[str, tuple[str, str]] = {}  # view name -> key
        self._wake = asyncio.Event()
        self._paused_until = 0.0
        controller.linkChanged.connect(self._seen)

    @staticmethod
    def _key(record: LinkRecord) -> tuple[str, str]:
        return (record.profile_id, record.tx_ref)

    def watched(self) -> list[LinkRecord]:
        return [e.record for e in self._entries.values()]

    def _seen(self, record: LinkRecord) -> None:
        key = self._key(record)
        if record.final:
            self._entries.pop(key, None)
        elif record.checkout_url or record.state not in ("creating",):
            entry = self._entries.get(key)
            if entry is None:
                self.watch(record)
            else:
                entry.record = record

    def watch(self, record: LinkRecord) -> None:
        if record.final:
            return
        key = self._key(record)
        if key not in self._entries:
            self._entries[key] = Entry(record, time.monotonic() + self._every(key, self.first_every),
                                       self.first_every)
            self._wake.set()

    def focus(self, view: str, record: LinkRecord | None) -> None:
        """``view`` shows ``record`` now (None: shows nothing): check it often, starting now."""
        if record is None:
            self._focused.pop(view, None)
            return
        key = self._key(record)
        self._focused[view] = key
        self.watch(record)
        entry = self._entries.get(key)
        if entry is not None:
            entry.due = min(entry.due, time.monotonic() + 0.2)
            entry.interval = self.first_every
            self._wake.set()

    def _every(self, key, default: float) -> float:
        return self.focused_every if key in self._focused.values() else default

    async def run(self) -> None:
        gate = asyncio.Semaphore(self.parallel)
        while True:
            now = time.monotonic()
            due = [e for e in self._entries.values() if e.due <= now and now >= self._paused_until]
            if due:
                await asyncio.gather(*(self._check(e, gate) for e in due))
                continue
            upcoming = [e.due for e in self._entries.values()]
            wait = max(0.05, min(upcoming) - now) if upcoming else 3600
            wait = max(wait, self._paused_until - now)
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), wait)
            except TimeoutError:
                pass

    async def _check(self, entry: Entry, gate: asyncio.Semaphore) -> None:
        key = self._key(entry.record)
        async with gate:
            try:
                record = await self.controller.check(entry.record)
            except RateLimitedError as error:
                self._paused_until = time.monotonic() + (error.retry_after or 5.0)
                entry.due = self._paused_until
                return
            except ServiceError as error:
                log.info("check of %s failed: %s", entry.record.tx_ref, error.message)
                entry.interval = min(self.slowest, entry.interval * 2)
                entry.due = time.monotonic() + self._every(key, entry.interval)
                return
        if record.final:
            self._entries.pop(key, None)
            return
        entry.record = record
        entry.interval = min(self.slowest, entry.interval * 1.5)
        entry.due = time.monotonic() + self._every(key, entry.interval)
