"""The ledger browser follows the ledger whoever writes it: another PayDesk window (or any
program) on the same file. This window's own changes come through the controllers' signals;
another's are seen through ``Ledger.changes()`` (cheap: one pragma), read every two
seconds while the list is shown, and the list is read again when the ledger holds a
different number of its records than it lists."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QTimer, Signal

from ...ledger import Ledger, LedgerError
from ..tasks import TaskSet
from .model import LedgerModel

log = logging.getLogger("paydesk.transactions.follow")


class LedgerFollower(QObject):
    stale = Signal()  # the list no longer shows what the ledger holds: read it again

    def __init__(self, ledger: Ledger, model: LedgerModel, tasks: TaskSet, every_ms: int = 2000):
        super().__init__()
        self.ledger, self.model, self.tasks = ledger, model, tasks
        self._changes: int | None = None
        self.timer = QTimer(self, interval=every_ms)
        self.timer.timeout.connect(self.look)

    def start(self) -> None:
        self.timer.start()
        self.look()

    def stop(self) -> None:
        self.timer.stop()

    def look(self) -> None:
        if self.model.query is not None:
            self.tasks.replace("follow", self._look())

    async def _look(self) -> None:
        try:
            changes = await self.ledger.changes()
            query = self.model.query
            if changes == self._changes or query is None or not self.model.counted:
                return  # nothing new, or a query still being read (asked at the next tick)
            self._changes = changes
            if await self.ledger.count(query) != self.model.rowCount():
                self.stale.emit()
        except LedgerError as error:  # closing, or the file is gone: the next tick says
            log.info("could not follow the ledger: %s", error)
