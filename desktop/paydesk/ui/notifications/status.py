"""The status bar's word on notifications: "Last notification 2 min ago" (kept up to date as
time passes), or "No notification since start" once links were paid while none arrived
(their PAID was learned by checking alone: the receiver, or the service's webhook URL, needs
looking at)."""

from __future__ import annotations

import logging
from datetime import datetime

from PySide6.QtCore import QTimer

from ...desk.events import Hub
from ...desk.inbox_words import NONE_SINCE_START, last_notification
from ...desk.tasks import TaskSet
from ...i18n import N_, _
from ...ledger import LedgerError, LinkRecord
from ...ledger.inbox import DUPLICATE, Inbox, InboxEntry
from ..elided import ElidedLabel
from ..signals import signals_of

log = logging.getLogger("paydesk.ui.notifications")
NONE_TIP = N_(
    "Payments were made since PayDesk started, but no notification arrived: PAID was learned "
    "by checking. Open Notifications and send a test notification to see why."
)


class LastNotification(ElidedLabel):
    def __init__(self, hub: Hub, inbox: Inbox, tasks: TaskSet):
        super().__init__("")
        self.setObjectName("status-notifications")
        self.setAccessibleName(_("Notifications"))
        self.inbox = inbox
        self.tasks = tasks.child(self)
        self.last: datetime | None = None
        self.arrived = False  # a verified notification arrived since the start
        self.paid = False  # a link was paid since the start
        signals = signals_of(hub)
        signals.notificationChanged.connect(self.notification)
        signals.linkSettled.connect(self.settled)
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self.refresh)
        self._tick.start()
        self.refresh()
        self.tasks.spawn(self._read_last(), "last notification")

    async def _read_last(self) -> None:
        try:
            last = await self.inbox.last_received()
        except LedgerError as error:
            log.info("could not read when the last notification arrived: %s", error)
            return
        if last is not None and (self.last is None or last > self.last):
            self.last = last
        self.refresh()

    def notification(self, entry: InboxEntry) -> None:
        if not entry.verified or entry.verdict == DUPLICATE:
            return
        self.arrived = True
        if self.last is None or entry.received_at > self.last:
            self.last = entry.received_at
        self.refresh()

    def settled(self, record: LinkRecord) -> None:
        if record.state == "success":
            self.paid = True
            self.refresh()

    def refresh(self) -> None:
        text = last_notification(self.last, arrived_since_start=self.arrived, paid_since_start=self.paid)
        if text != self.text():
            self.setText(text)
            self.setAccessibleName(_("Notifications: {text}").format(text=text) if text else _("Notifications"))
            self.setToolTip(_(NONE_TIP) if text == _(NONE_SINCE_START) else "")
            self.setStyleSheet(
                "color: #3d2e00; background: #fff4ce; padding: 0 6px;" if text == _(NONE_SINCE_START) else ""
            )
        self.setVisible(bool(text))
