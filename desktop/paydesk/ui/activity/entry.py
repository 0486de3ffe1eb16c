"""Where the main window reaches the Activity window: the View menu's "Activity…". Made on
first use, shown and raised after; it ends with the main window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu

from ...i18n import _
from ..widgets import ToolWindow

if TYPE_CHECKING:
    from ...desk.build import Desk
    from .window import ActivityWindow


class ActivityEntry:
    def __init__(self, main: QMainWindow, desk: Desk, view: QMenu) -> None:
        self.main, self.desk = main, desk
        self.tool = ToolWindow(self._window)
        self.action = QAction(_("&Activity…"), main)
        self.action.setObjectName("activity-action")
        self.action.triggered.connect(self.show)
        view.addAction(self.action)

    def show(self) -> ActivityWindow:
        return self.tool.open()

    def shown(self) -> ActivityWindow | None:
        """The window, when it is open on screen."""
        window = self.tool.window
        return window if window is not None and window.isVisible() else None

    def _window(self) -> ActivityWindow:
        from .window import ActivityWindow

        book = self.desk.session.activity
        assert book is not None  # every desk built by build_desk has one
        return ActivityWindow(self.desk.session, book, self.main)

    def close(self) -> None:
        self.tool.close()
