"""The main window's keys and menus (``main_window.py``'s MainWindow takes them from
``WindowActions``), each wired to the window's own methods."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow, QTabWidget

    from ..config.profiles import Profile
    from ..desk.build import Desk
    from ..desk.session import Session
    from ..desk.tasks import TaskSet
    from .activity.entry import ActivityEntry
    from .bulk.entry import BulkEntry
    from .counter.shifts import CounterShiftsWindow
    from .links.tab import LinksTab
    from .notifications.window import NotificationsWindow
    from .profile_editor import ProfileEditor
    from .shared_ledger import SharedLedgerDialog

    _Window = QMainWindow
else:
    _Window = object


class WindowActions(_Window):
    """MainWindow's keys (``_shortcuts``) and menus (``_menus``)."""

    # what they use of the window, made in main_window.py's MainWindow
    desk: Desk
    session: Session
    tasks: TaskSet
    tabs: QTabWidget
    links_tab: LinksTab
    # what they make
    settings_menu: QMenu
    view_menu: QMenu
    shared_ledger_action: QAction
    notifications_action: QAction
    counter_shifts_action: QAction
    bulk: BulkEntry
    activity: ActivityEntry

    if TYPE_CHECKING:  # the window's methods they call, defined in main_window.py

        async def toggle_mode(self) -> bool: ...

        async def open_editor(self, profile: Profile | None) -> ProfileEditor: ...

        async def open_shared_ledger(self) -> SharedLedgerDialog: ...

        def focus_lookup(self) -> None: ...

        def show_notifications(self) -> NotificationsWindow: ...

        def show_counter_shifts(self) -> CounterShiftsWindow: ...

    def _shortcuts(self) -> None:
        """The window's keys: Ctrl+1…4 a tab, Ctrl+Shift+M the mode, Ctrl+, the profile,
        Ctrl+F and Ctrl+L the lookup box, the quit key."""
        for index in range(self.tabs.count()):
            action = QAction(self)
            action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
            action.triggered.connect(lambda _=False, i=index: self.tabs.setCurrentIndex(i))
            self.addAction(action)
        mode = QAction(self)
        mode.setShortcut(QKeySequence("Ctrl+Shift+M"))
        mode.triggered.connect(lambda: self.tasks.spawn(self.toggle_mode(), "mode"))
        self.addAction(mode)
        edit = QAction(self)
        edit.setShortcut(QKeySequence("Ctrl+,"))
        edit.triggered.connect(lambda: self.tasks.spawn(self.open_editor(self.session.profile), "editor"))
        self.addAction(edit)
        for keys in ("Ctrl+F", "Ctrl+L"):  # the lookup box, from anywhere
            lookup = QAction(self)
            lookup.setShortcut(QKeySequence(keys))
            lookup.triggered.connect(self.focus_lookup)
            self.addAction(lookup)
        quit_ = QAction(self)
        quit_.setShortcut(QKeySequence(QKeySequence.StandardKey.Quit))
        quit_.triggered.connect(self.close)
        self.addAction(quit_)

    def _save_language(self, code: str | None) -> None:
        """Settings → Language: the choice saved (in a task of the window's)."""
        self.tasks.spawn(self.session.save_language(code), "language")

    def _menus(self) -> None:
        """Settings (Shared ledger…), View (Notifications…, Counter shifts…, Batches…) and
        Links (Bulk links…)."""
        self.settings_menu = settings = QMenu("&Settings", self)
        settings.setObjectName("settings-menu")
        self.menuBar().addMenu(settings)
        from .language import language_menu

        settings.addMenu(language_menu(self, self.session.settings.language, self._save_language))
        self.shared_ledger_action = QAction("Shared &ledger…", self)
        self.shared_ledger_action.setObjectName("shared-ledger-action")
        settings.addAction(self.shared_ledger_action)
        self.shared_ledger_action.triggered.connect(
            lambda: self.tasks.spawn(self.open_shared_ledger(), "shared ledger")
        )
        self.notifications_action = QAction("&Notifications…", self)
        self.notifications_action.setObjectName("notifications-action")
        self.notifications_action.setShortcut(QKeySequence("Ctrl+Shift+N"))
        self.notifications_action.triggered.connect(self.show_notifications)
        self.counter_shifts_action = QAction("Counter &shifts…", self)
        self.counter_shifts_action.setObjectName("counter-shifts-action")
        self.counter_shifts_action.setShortcut(QKeySequence("Ctrl+Shift+H"))
        self.counter_shifts_action.triggered.connect(self.show_counter_shifts)
        self.view_menu = view = QMenu("&View", self)
        view.setObjectName("view-menu")
        view.addAction(self.notifications_action)
        view.addAction(self.counter_shifts_action)
        self.menuBar().addMenu(view)
        from .bulk.entry import BulkEntry  # Links > Bulk links…, View > Batches…

        self.bulk = BulkEntry(self, self.desk, view, self.links_tab.unfinished)
        from .activity.entry import ActivityEntry  # View > Activity…

        self.activity = ActivityEntry(self, self.desk, view)
        self.links_tab.bulkRequested.connect(self.bulk.show_bulk)
