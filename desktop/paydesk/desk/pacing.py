"""How often the scheduler (``scheduler.py``) checks a record, as one value: ``Pacing`` for
open records, ``PaidPacing`` for the paid ones read again for refunds and reversals. Every
figure is in seconds (a paid record's ``days`` in days); tests give quicker ones.

A link a notification can settle (``notified``, given by the composition root: a verified
notification for its profile and mode came lately, and it is past its first minutes) is checked at
most every ``notified_every`` s (5 minutes), never stopped: polling stays the safety net for
a notification that never comes. Not while it is on screen: a person is waiting for that one.
Yet while notifications come for its profile and mode (``delivering``: they reach a receiver
now), a link on screen is checked every ``focused_notified_every`` s (30 s), not every 2 s:
the notification is the way PAID comes, the check is only the safety net.
"""

from __future__ import annotations

from dataclasses import dataclass

NOTIFIED_EVERY = 300.0  # s: a link a notification can settle is checked at most this often
FOCUSED_NOTIFIED_EVERY = 30.0  # s: ...and one on screen, while notifications come


@dataclass(frozen=True)
class Pacing:
    focused_every: float = 2.0  # a record on screen
    focused_for: float = 300.0  # on screen this long, a link is checked less often...
    focused_slowest: float = 30.0  # ...at most this seldom (and on screen after a failure)
    first_every: float = 5.0  # the first wait of a record not on screen; x1.5 after each check
    settle_first: float = 2.0  # the first wait of a "creating" record; x2 after each
    slowest: float = 120.0  # the longest wait of a record not on screen...
    old_after: float = 86400.0  # ...but a link older than this is checked at most...
    old_slowest: float = 1800.0  # ...this seldom (it is less and less likely to move)
    longest_pause: float = 300.0  # a 429's pause of its profile and mode, at most
    retry_first: float = 1.0  # the first wait after a failure; doubles after each
    # a link a notification can settle (desk/notified.py): checked at most this often
    notified_every: float = NOTIFIED_EVERY
    # notifications come for its profile and mode now: a link on screen is checked this
    # often, the safety net only
    focused_notified_every: float = FOCUSED_NOTIFIED_EVERY

    def slowest_for(self, age: float) -> float:
        """The longest wait of a record not on screen created ``age`` s ago."""
        return self.old_slowest if age > self.old_after else self.slowest

    def grown(self, interval: float, creating: bool, least: float, slowest: float) -> float:
        """The wait after a check that found the record still open: ``interval`` grown (x2
        while creating, x1.5 otherwise), at least ``least`` (a batch's link), at most
        ``slowest``."""
        start, grow = (self.settle_first, 2.0) if creating else (self.first_every, 1.5)
        return max(least if not creating else 0.0, min(slowest, max(start, interval * grow)))

    def after_failure(self, interval: float, failures: int, cap: float) -> float:
        """The wait after the ``failures``-th failure in a row (before its jitter)."""
        grown = interval * 2 if failures > 1 else self.retry_first
        return min(cap, max(grown, self.retry_first))


@dataclass(frozen=True)
class PaidPacing:
    """Paid records are read again for ``days`` after they were paid: every ``fresh_every``
    s in their first ``fresh_for`` s, every ``every`` s after; the ledger is asked which are
    due every ``sweep`` s, ``page`` records at a time."""

    days: float = 30.0
    fresh_for: float = 86400.0
    fresh_every: float = 3600.0
    every: float = 43200.0
    sweep: float = 300.0
    page: int = 100


PACING = Pacing()  # the app's
PAID_PACING = PaidPacing()
