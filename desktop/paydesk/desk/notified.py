"""Which open links a notification can settle: the scheduler checks those less often.

A notification makes PAID arrive in well under a second, so polling a link whose
notification will come is mostly wasted on the service; it is only the safety net (the
service sends a notification once and never again). ``Notified(record)`` is true when

- this process runs a notification receiver that serves the record's profile
  (``desk.receiver``), or
- a verified notification for the record's profile arrived in the last ``RECENT``
  (30 minutes): the service's notifications reach this ledger's receiver, wherever it runs.

The scheduler asks at each check (``Scheduler.notified``), so the answer is the cache's,
never a ledger read: the inbox is asked (``last_received``) at most every ``REFRESH`` s per
profile, in the background, and each notification this process hears of
(``hub.notification_changed``) is counted at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from ..ledger import LinkRecord
from ..ledger.inbox import DUPLICATE, InboxEntry
from .tasks import TaskSet

log = logging.getLogger("paydesk.notified")
RECENT = timedelta(minutes=30)  # a notification this recent says the service reaches a receiver
REFRESH = 60.0  # s: how often the inbox is asked, at most, when a profile's last one came

LastReceived = Callable[[str], Awaitable[datetime | None]]


class Notified:
    """The scheduler's ``notified`` predicate, built by the composition root (``build.py``).

    ``serves(profile_id)``: a receiver in this process serves that profile.
    ``last_received(profile_id)``: the inbox's newest verified notification for it (None:
    no inbox, only ``serves`` counts). ``tasks``: where the inbox is asked."""

    def __init__(self, serves: Callable[[str], bool], last_received: LastReceived | None,
                 tasks: TaskSet, *, recent: timedelta = RECENT, refresh: float = REFRESH):
        self.serves, self.last_received = serves, last_received
        self.tasks = tasks
        self.recent, self.refresh = recent, refresh
        self._last: dict[str, datetime] = {}  # profile id -> its newest notification known
        self._asked: dict[str, float] = {}  # profile id -> when the inbox was last asked

    def __call__(self, record: LinkRecord) -> bool:
        profile_id = record.profile_id
        if self.serves(profile_id):
            return True
        self._ask_later(profile_id)
        last = self._last.get(profile_id)
        return last is not None and datetime.now(UTC) - last < self.recent

    def heard(self, entry: InboxEntry) -> None:
        """``hub.notification_changed``: a verified notification counts at once."""
        if entry.profile_id is not None and entry.verified and entry.verdict != DUPLICATE:
            self._note(entry.profile_id, entry.received_at)

    def _note(self, profile_id: str, when: datetime | None) -> None:
        if when is not None and (profile_id not in self._last or when > self._last[profile_id]):
            self._last[profile_id] = when

    def _ask_later(self, profile_id: str) -> None:
        if self.last_received is None or self.tasks.closed:
            return
        now = time.monotonic()
        asked = self._asked.get(profile_id)
        if asked is not None and now - asked < self.refresh:
            return
        self._asked[profile_id] = now
        self.tasks.spawn(self._ask(profile_id, self.last_received),
                         "when a notification last came")

    async def _ask(self, profile_id: str, last_received: LastReceived) -> None:
        try:
            self._note(profile_id, await last_received(profile_id))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - asked again after REFRESH; checks go on
            log.info("reading when the last notification came failed: %s", error)


def receiver_serves(receiver: object | None, profile_id: str) -> bool:
    """Whether ``receiver`` (``desk.receiver``) serves ``profile_id``: its own
    ``serves(profile_id)`` when it has one (the app's receiver, registered for the embedded
    sandbox's merchant), else every profile of its desk (paydesk-receiver)."""
    if receiver is None:
        return False
    serves = getattr(receiver, "serves", None)
    return bool(serves(profile_id)) if callable(serves) else True
