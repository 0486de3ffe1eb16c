"""How long the scheduler (``scheduler.py``, whose ``Scheduler`` this is a part of) waits
before it checks a record again: often while a view shows it (less so after a while), at
``pacing``'s pace otherwise, and seldom when a notification can settle it. Qt-free."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime

from ..ledger import CREATING, LinkRecord
from .pacing import Pacing
from .watched import Entry, Key

log = logging.getLogger("paydesk.scheduler")


class Spacing:
    """The scheduler's pace of each record (it holds ``pacing``, ``notified``,
    ``delivering``, its entries, the views' focus and its ``stats``)."""

    pacing: Pacing
    notified: Callable[[LinkRecord], bool] | None
    delivering: Callable[[LinkRecord], bool] | None
    stats: Counter[str]
    _entries: dict[Key, Entry]
    _focused: dict[str, Key]

    def _is_focused(self, key: Key) -> bool:
        return key in self._focused.values()

    def _pace(self, record: LinkRecord, interval: float) -> float:
        """How long until the next check: often while on screen (less so after
        ``focused_for``), as ``interval`` says otherwise, and not before ``notified_every``
        when a notification can settle it."""
        key = record.key
        if not self._is_focused(key):
            return self._spaced(record, interval)
        if self._delivered(record):
            return self.pacing.focused_notified_every
        entry = self._entries.get(key)
        since = entry.focused_since if entry is not None else None
        if since is not None and time.monotonic() - since > self.pacing.focused_for:
            return min(interval, self.pacing.focused_slowest)
        return min(interval, self.pacing.focused_every)

    def _spaced(self, record: LinkRecord, wait: float) -> float:
        """``wait``, or ``notified_every`` when longer and a notification can settle
        ``record`` (not a create: only its own desk settles it, notified or not)."""
        if self.notified is None or record.state == CREATING or wait >= self.pacing.notified_every:
            return wait
        try:
            notified = self.notified(record)
        except Exception:  # the composition root's predicate: its fault checks as before
            self.stats["scheduler errors"] += 1
            log.exception("asking whether a notification can settle %s failed", record.tx_ref)
            return wait
        if not notified:
            return wait
        self.stats["spaced for notifications"] += 1
        return self.pacing.notified_every

    def _delivered(self, record: LinkRecord) -> bool:
        """Notifications come for ``record``'s profile and mode now (not for a create: only
        its own desk settles it)."""
        if self.delivering is None or record.state == CREATING:
            return False
        try:
            return self.delivering(record)
        except Exception:  # the composition root's predicate: its fault checks as before
            self.stats["scheduler errors"] += 1
            log.exception("asking whether notifications come for %s failed", record.tx_ref)
            return False

    def _slowest(self, entry: Entry) -> float:
        return self.pacing.slowest_for((datetime.now(UTC) - entry.record.created_at).total_seconds())
