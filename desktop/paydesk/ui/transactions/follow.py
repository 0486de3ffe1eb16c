"""The ledger browser follows the ledger whoever writes it: another PayDesk window (or any
program) on the same file. This window's own changes come through the desk's events;
another's are seen through ``Ledger.changes()`` (cheap: one pragma), read every two
seconds while the list is shown: the list is read again when the ledger holds a
different number of its records than it lists, and otherwise the rows it holds are read
again and repainted in place where another window changed them."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QTimer, Signal

from ...desk.tasks import TaskSet
from ...ledger import Ledger, LedgerError, LinkQuery
from .model import LedgerModel

log = logging.getLogger("paydesk.transactions.follow")


class LedgerFollower(QObject):
    stale = Signal()  # the list no longer shows what the ledger holds: read it again
    changed = Signal(object)  # a LinkRecord shown here that another window changed

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

    async def _repaint(self, query: LinkQuery) -> None:
        """The same records, perhaps in other states: the ones held are read again (one
        query by their references) and each that changed is repainted in place."""
        held = {r.tx_ref: r for r in self.model.shown()}
        if not held:
            return
        page = await self.ledger.page(LinkQuery(query.profile_id, query.mode, tx_refs=frozenset(held)), limit=len(held))
        for record in page.records:
            before = held.get(record.tx_ref)
            if before is not None and (record.state, record.state_raw, record.checked_at, record.error) != (
                before.state,
                before.state_raw,
                before.checked_at,
                before.error,
            ):
                self.changed.emit(record)

    async def _look(self) -> None:
        try:
            changes = await self.ledger.changes()
            query = self.model.query
            if changes == self._changes or query is None or not self.model.counted:
                return  # nothing new, or a query still being read (asked at the next tick)
            self._changes = changes
            if await self.ledger.count(query) != self.model.rowCount():
                self.stale.emit()
                return
            await self._repaint(query)
        except LedgerError as error:  # closing, or the file is gone: the next tick says
            log.info("could not follow the ledger: %s", error)
