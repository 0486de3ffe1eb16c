"""The main window's keys and menus (``main_window.py``'s MainWindow takes them from
``WindowActions``), each wired to the window's own methods, and the mode switch they and
the toolbar's button press."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from ..i18n import _
from .dialogs import confirm

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
    from .staff.gate import StaffGate

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
    gate: StaffGate
    # what they make
    settings_menu: QMenu
    view_menu: QMenu
    shared_ledger_action: QAction
    notifications_action: QAction
    counter_shifts_action: QAction
    bulk: BulkEntry
    activity: ActivityEntry

    if TYPE_CHECKING:  # the window's methods they call, defined in main_window.py

        async def open_editor(self, profile: Profile | None) -> ProfileEditor: ...

        async def open_shared_ledger(self) -> SharedLedgerDialog: ...

        def focus_lookup(self) -> None: ...

        def focus_tab(self, *_: object) -> None: ...

        def show_notifications(self) -> NotificationsWindow: ...

        def show_counter_shifts(self) -> CounterShiftsWindow: ...

    def _shortcuts(self) -> None:
        """The window's keys: Ctrl+1…4 a tab (one the person may see), Ctrl+Shift+M the mode,
        Ctrl+, the profile, Ctrl+F the lookup box, Ctrl+L Lock (the lookup box while no
        staff are set up), the quit key."""
        for index in range(self.tabs.count()):
            action = QAction(self)
            action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
            action.triggered.connect(lambda _=False, i=index: self._show_tab(i))
            self.addAction(action)
        self.mode_key = mode = QAction(self)
        mode.setShortcut(QKeySequence("Ctrl+Shift+M"))
        mode.triggered.connect(lambda: self.tasks.spawn(self.toggle_mode(), "mode"))
        self.addAction(mode)
        self.edit_profile_key = edit = QAction(self)
        edit.setShortcut(QKeySequence("Ctrl+,"))
        edit.triggered.connect(lambda: self.tasks.spawn(self.open_editor(self.session.profile), "editor"))
        self.addAction(edit)
        lookup = QAction(self)  # the lookup box, from anywhere
        lookup.setShortcut(QKeySequence("Ctrl+F"))
        lookup.triggered.connect(self.focus_lookup)
        self.addAction(lookup)
        self.lock_key = lock = QAction(self)
        lock.setShortcut(QKeySequence("Ctrl+L"))
        lock.triggered.connect(self._lock_or_look_up)
        self.addAction(lock)
        self.quit_key = quit_ = QAction(self)
        quit_.setShortcut(QKeySequence(QKeySequence.StandardKey.Quit))
        quit_.triggered.connect(self.close)
        self.addAction(quit_)

    def _open_staff(self) -> None:
        from .staff.dialog import open_staff  # imported on first use

        self.tasks.spawn(open_staff(self), "staff")

    def _show_tab(self, index: int) -> None:
        if self.tabs.isTabVisible(index):  # a tab hidden from the person stays hidden
            self.tabs.setCurrentIndex(index)

    def _lock_or_look_up(self) -> None:
        """Ctrl+L: Lock when staff are set up; the lookup box (as before) when not."""
        if self.session.staff.set_up:
            self.gate.lock()
        else:
            self.focus_lookup()

    def _save_language(self, code: str | None) -> None:
        """Settings → Language: the choice saved (in a task of the window's)."""
        self.tasks.spawn(self.session.save_language(code), "language")

    def _menus(self) -> None:
        """Settings (Shared ledger…, Staff…), View (Notifications…, Counter shifts…, Batches…) and
        Links (Bulk links…)."""
        self.settings_menu = settings = QMenu(_("&Settings"), self)
        settings.setObjectName("settings-menu")
        self.menuBar().addMenu(settings)
        from .language import language_menu

        settings.addMenu(language_menu(self, self.session.settings.language, self._save_language))
        self.shared_ledger_action = QAction(_("Shared &ledger…"), self)
        self.shared_ledger_action.setObjectName("shared-ledger-action")
        settings.addAction(self.shared_ledger_action)
        self.shared_ledger_action.triggered.connect(
            lambda: self.tasks.spawn(self.open_shared_ledger(), "shared ledger")
        )
        self.staff_action = QAction(_("S&taff…"), self)
        self.staff_action.setObjectName("staff-action")
        settings.addAction(self.staff_action)
        self.staff_action.triggered.connect(self._open_staff)
        self.notifications_action = QAction(_("&Notifications…"), self)
        self.notifications_action.setObjectName("notifications-action")
        self.notifications_action.setShortcut(QKeySequence("Ctrl+Shift+N"))
        self.notifications_action.triggered.connect(self.show_notifications)
        self.counter_shifts_action = QAction(_("Counter &shifts…"), self)
        self.counter_shifts_action.setObjectName("counter-shifts-action")
        self.counter_shifts_action.setShortcut(QKeySequence("Ctrl+Shift+H"))
        self.counter_shifts_action.triggered.connect(self.show_counter_shifts)
        self.view_menu = view = QMenu(_("&View"), self)
        view.setObjectName("view-menu")
        view.addAction(self.notifications_action)
        view.addAction(self.counter_shifts_action)
        self.menuBar().addMenu(view)
        from .bulk.entry import BulkEntry  # Links > Bulk links…, View > Batches…

        self.bulk = BulkEntry(self, self.desk, view, self.links_tab.unfinished)
        from .activity.entry import ActivityEntry  # View > Activity…

        self.activity = ActivityEntry(self, self.desk, view)
        self.links_tab.bulkRequested.connect(self.bulk.show_bulk)

    async def toggle_mode(self) -> bool:
        """Test -> live asks first and says what live means; live -> test does not."""
        if self.session.profile is None:
            return False
        if self.session.is_test:
            if self.session.profile.embedded_sandbox:
                informative = _(
                    "This profile is PayDesk's embedded sandbox: its live mode is still the "
                    "sandbox on this computer, and no real money moves. It behaves like a live "
                    "service: test cards cannot pay its live links. Test data stays in test mode."
                )
            else:
                informative = _(
                    "Live mode uses real money: links you create can be paid by real customers, "
                    "and card actions move real funds. Test data stays in test mode."
                )
            ok = await confirm(
                self,
                _("Switch to live mode?"),
                _("Switch to LIVE mode?"),
                informative,
                _("Switch to live"),
                _("Stay in test"),
                object_name="confirm-live",
            )
            if not ok:
                return False
        from ..desk.staff import NotAllowed  # (the desk's: imported once it is attached)

        try:
            await self.session.set_mode("live" if self.session.is_test else "test")
        except NotAllowed as refused:  # the button is hidden from them: said, never a traceback
            self.session.report(str(refused))
            return False
        self.focus_tab()  # typing goes to the tab (its form is this mode's own)
        return True
