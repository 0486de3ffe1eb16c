"""Where the main window reaches bulk links: the Links menu's "Bulk links…" (Ctrl+Shift+B,
also the Payment links tab's button) and the View menu's "Batches…". Each window is made on
first use, shown and raised after; both end with the main window."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QPushButton

from ...i18n import _, ngettext
from ...ledger import LedgerError
from ..signals import signals_of
from ..widgets import ToolWindow

if TYPE_CHECKING:
    from ...desk.build import Desk
    from ...desk.bulk.runner import BulkController
    from .batches import BatchesWindow
    from .window import BulkWindow


log = logging.getLogger("paydesk.ui.bulk")


class BulkEntry:
    def __init__(self, main: QMainWindow, desk: Desk, view: QMenu, notice: QPushButton) -> None:
        self.main, self.desk = main, desk
        self.bulk = ToolWindow(self._bulk_window)
        self.batches = ToolWindow(self._batches_window)
        self.menu = QMenu(_("&Links"), main)
        self.menu.setObjectName("links-menu")
        self.bulk_action = QAction(_("&Bulk links…"), main)
        self.bulk_action.setObjectName("bulk-links-action")
        self.bulk_action.setShortcut(QKeySequence("Ctrl+Shift+B"))
        self.bulk_action.triggered.connect(self.show_bulk)
        self.menu.addAction(self.bulk_action)
        self.batches_action = QAction(_("&Batches…"), main)
        self.batches_action.setObjectName("batches-action")
        self.batches_action.triggered.connect(self.show_batches)
        self.menu.addAction(self.batches_action)
        view.addAction(self.batches_action)
        main.menuBar().insertMenu(view.menuAction(), self.menu)
        self.tasks = desk.session.tasks.child(main)
        self.notice = notice  # the Payment links tab's word on unfinished batches
        self.notice.clicked.connect(self.show_batches)
        self._later = QTimer(main)  # batches change often while they run: counted once a second
        self._later.setSingleShot(True)
        self._later.setInterval(1000)
        self._later.timeout.connect(self.look_for_unfinished)
        signals = signals_of(desk.hub)
        signals.changed.connect(self.look_for_unfinished)
        signals.batchChanged.connect(self._later.start)
        QTimer.singleShot(0, self.look_for_unfinished)

    def look_for_unfinished(self) -> None:
        """The Payment links tab offers the batches of this profile and mode with rows not
        sent yet (none running): a batch stopped half-way is resumed by the user, never
        silently."""
        self.tasks.replace("unfinished batches", self._unfinished())

    async def _unfinished(self) -> None:
        profile, mode = self.desk.session.profile, self.desk.session.mode
        found = []
        if profile is not None:
            try:
                found = [
                    b for b in await self.desk.batches.unfinished(profile.id, mode) if not self.controller.running(b.id)
                ]
            except LedgerError as error:
                log.info("could not look for unfinished batches: %s", error)
                return
        n = len(found)
        text = (
            ngettext(
                "{n} batch has rows not sent yet: Batches…", "{n} batches have rows not sent yet: Batches…", n
            ).format(n=n)
            if n
            else ""
        )
        self.notice.setText(text)
        self.notice.setAccessibleName(text.rstrip("…"))
        self.notice.setVisible(bool(n))

    @property
    def controller(self) -> BulkController:
        """The desk's runner of batches (one per desk: a batch goes on when windows close)."""
        return self.desk.bulk

    def show_bulk(self) -> BulkWindow | None:
        if self.desk.session.profile is None:
            return None
        return self.bulk.open()

    def show_batches(self) -> BatchesWindow:
        return self.batches.open()

    def _bulk_window(self) -> BulkWindow:
        from .window import BulkWindow

        window = BulkWindow(self.desk.session, self.controller, self.main)
        window.batchesRequested.connect(self.show_batches)
        return window

    def _batches_window(self) -> BatchesWindow:
        from .batches import BatchesWindow

        return BatchesWindow(self.desk.session, self.desk.batches, self.controller, self.main)

    def close(self) -> None:
        self.bulk.close()
        self.batches.close()
