"""The Notifications window's line on refused requests (signatures no key verifies): one
line per peer over the last hour, "104 refused from 10.0.0.7 in the last hour", instead of a
row each. Read again when one is refused here (at most a few times a second, however fast
they come) or by the shop's receiver (a "refused" event), and every half minute while shown,
as the hour moves on."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel

from ...desk.events import Hub
from ...desk.inbox_words import SHOWN_PEERS, refused_words
from ...desk.tasks import TaskSet
from ...i18n import N_, _
from ...ledger import LedgerError
from ...ledger.inbox import Inbox
from ..signals import signals_of

log = logging.getLogger("paydesk.ui.notifications")
HOUR = timedelta(hours=1)
SETTLE = 0.3  # s: refusals coming close together are counted once
EVERY = 30_000  # ms: read again while shown
TIP = N_(
    "Requests whose signature no key verifies: never kept, never looked at; a few a minute "
    "from each address are traced (time, size, SHA-256, first bytes), the rest only counted. "
    "Many of them: limit the proxy in front of the receiver (docs/RECEIVER.md)."
)


class RefusedLine(QLabel):
    def __init__(self, hub: Hub, inbox: Inbox, tasks: TaskSet):
        super().__init__("")
        self.setObjectName("notifications-refused")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setToolTip(_(TIP))
        self.setStyleSheet("color: #3d2e00; background: #fff4ce; padding: 4px;")
        self.inbox = inbox
        self.tasks = tasks.child(self)
        self._due = False  # a read is scheduled: another refusal needs none of its own
        signals_of(hub).refusedChanged.connect(self.changed)
        self._tick = QTimer(self)
        self._tick.setInterval(EVERY)
        self._tick.timeout.connect(self._tick_read)
        self._tick.start()
        self.show_text("")
        self.read()

    def changed(self, *_: object) -> None:
        """A request was refused: read again shortly (once for a burst)."""
        if not self._due:
            self._due = True
            self.tasks.replace("refused", self._read(SETTLE))

    def read(self) -> None:
        self.tasks.replace("refused", self._read(0))

    def _tick_read(self) -> None:
        if self.window().isVisible():
            self.read()

    async def _read(self, settle: float) -> None:
        try:
            if settle:
                await asyncio.sleep(settle)
            self._due = False  # a refusal from now on is read by the next read
            groups = await self.inbox.refused_groups(datetime.now(UTC) - HOUR, limit=SHOWN_PEERS + 50)
        except LedgerError as error:  # a shared ledger out of reach: the line stays
            log.info("could not count the refused requests: %s", error)
            return
        finally:
            self._due = False
        self.show_text(refused_words(groups))

    def show_text(self, text: str) -> None:
        self.setText(text)
        self.setAccessibleName(text or _("Refused requests"))
        self.setVisible(bool(text))
