"""Where the main window reaches bulk links: the Links menu's "Bulk links…" (Ctrl+Shift+B,
also the Payment links tab's button) and the View menu's "Batches…". Each window is made on
first use, shown and raised after; both end with the main window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

if TYPE_CHECKING:
    from ...desk.build import Desk
    from .batches import BatchesWindow
    from .window import BulkWindow


def _raise(window):
    window.show()
    window.raise_()
    window.activateWindow()
    return window


class BulkEntry:
    def __init__(self, main: QMainWindow, desk: Desk, view: QMenu):
        self.main, self.desk = main, desk
        self.bulk_window: BulkWindow | None = None
        self.batches_window: BatchesWindow | None = None
        self.menu = QMenu("&Links", main)
        self.menu.setObjectName("links-menu")
        self.bulk_action = QAction("&Bulk links…", main)
        self.bulk_action.setObjectName("bulk-links-action")
        self.bulk_action.setShortcut(QKeySequence("Ctrl+Shift+B"))
        self.bulk_action.triggered.connect(self.show_bulk)
        self.menu.addAction(self.bulk_action)
        self.batches_action = QAction("&Batches…", main)
        self.batches_action.setObjectName("batches-action")
        self.batches_action.triggered.connect(self.show_batches)
        self.menu.addAction(self.batches_action)
        view.addAction(self.batches_action)
        main.menuBar().insertMenu(view.menuAction(), self.menu)

    @property
    def controller(self):
        """The desk's runner of batches (one per desk: a batch goes on when windows close)."""
        return self.desk.bulk

    def show_bulk(self) -> BulkWindow | None:
        if self.desk.session.profile is None:
            return None
        if self.bulk_window is None:
            from .window import BulkWindow

            self.bulk_window = BulkWindow(self.desk.session, self.desk.batches, self.controller,
                                          self.main)
            self.bulk_window.batchesRequested.connect(self.show_batches)
        return _raise(self.bulk_window)

    def show_batches(self) -> BatchesWindow:
        if self.batches_window is None:
            from .batches import BatchesWindow

            self.batches_window = BatchesWindow(self.desk.session, self.desk.batches,
                                                self.controller, self.main)
        return _raise(self.batches_window)

    def close(self) -> None:
        for window in (self.bulk_window, self.batches_window):
            if window is not None:
                window.close()
