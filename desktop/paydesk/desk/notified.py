"""Which open links a notification can settle: the scheduler checks those less often.

A notification makes PAID arrive in well under a second, so polling a link whose
notification will come is mostly wasted on the service; it is only the safety net (the
service sends a notification once and never again). ``Notified(record)`` is true when

- a verified notification for the record's profile AND mode arrived in the last ``RECENT``
  (30 minutes): the service's notifications of that mode reach this ledger's receiver,
  wherever it runs; and
- the link is older than ``YOUNG`` (2 minutes): a link is most likely paid in its first
  minutes, often at a counter whose screen the lease holder (on a shared ledger, the
  receiver) cannot see, so a lost notification must not make that customer wait minutes.

A receiver merely running (``desk.receiver``) does not count: it says nothing of whether
the service was ever told its address (a merchant's webhook URL never set, a link without
a callback URL), and on a shared ledger its process checks every desk's links.

The scheduler asks at each check (``Scheduler.notified``), so the answer is the cache's,
never a ledger read: the inbox is asked (``last_received``) at most every ``REFRESH`` s per
profile and mode, in the background, and each notification this process hears of
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
YOUNG = timedelta(minutes=2)  # a link this young keeps its own pace, notified or not

LastReceived = Callable[..., Awaitable[datetime | None]]  # (profile_id, mode=)
Group = tuple[str, str]  # (profile_id, mode)


class Notified:
    """The scheduler's ``notified`` predicate, built by the composition root (``build.py``).

    ``last_received(profile_id, mode=mode)``: the inbox's newest verified notification for
    that profile and mode (None: no inbox, only what the hub says counts). ``tasks``: where
    the inbox is asked."""

    def __init__(
        self,
        last_received: LastReceived | None,
        tasks: TaskSet,
        *,
        recent: timedelta = RECENT,
        refresh: float = REFRESH,
        young: timedelta = YOUNG,
    ):
        self.last_received = last_received
        self.tasks = tasks
        self.recent, self.refresh, self.young = recent, refresh, young
        self._last: dict[Group, datetime] = {}  # its newest notification known
        self._asked: dict[Group, float] = {}  # when the inbox was last asked (monotonic)

    def __call__(self, record: LinkRecord) -> bool:
        if datetime.now(UTC) - record.created_at < self.young:
            return False
        return self.lately(record.profile_id, record.mode)

    def lately(self, profile_id: str, mode: str) -> bool:
        """A verified notification for this profile and mode came in the last ``recent``:
        its payments are learned by notification (the inbox asked again in the background,
        at most every ``refresh`` s)."""
        group = (profile_id, mode)
        self._ask_later(group)
        last = self._last.get(group)
        return last is not None and datetime.now(UTC) - last < self.recent

    def delivering(self, record: LinkRecord) -> bool:
        """Notifications come for ``record``'s profile and mode now (a verified one in the
        last ``recent``), however young the link: the scheduler checks a link on screen
        seldom then (the notification brings PAID; the check is the safety net)."""
        group = (record.profile_id, record.mode)
        self._ask_later(group)
        last = self._last.get(group)
        return last is not None and datetime.now(UTC) - last < self.recent

    def heard(self, entry: InboxEntry) -> None:
        """``hub.notification_changed``: a verified notification counts at once."""
        if entry.profile_id is not None and entry.mode is not None and entry.verified and entry.verdict != DUPLICATE:
            self._note((entry.profile_id, entry.mode), entry.received_at)

    def _note(self, group: Group, when: datetime | None) -> None:
        if when is not None and (group not in self._last or when > self._last[group]):
            self._last[group] = when

    def _ask_later(self, group: Group) -> None:
        if self.last_received is None or self.tasks.closed:
            return
        now = time.monotonic()
        asked = self._asked.get(group)
        if asked is not None and now - asked < self.refresh:
            return
        self._asked[group] = now
        self.tasks.spawn(self._ask(group, self.last_received), "when a notification last came")

    async def _ask(self, group: Group, last_received: LastReceived) -> None:
        profile_id, mode = group
        try:
            self._note(group, await last_received(profile_id, mode=mode))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - asked again after REFRESH; checks go on
            log.info("reading when the last notification came failed: %s", error)
