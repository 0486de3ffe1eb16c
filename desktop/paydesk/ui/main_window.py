"""The main window: profile and mode at the top, the four tabs, a status bar.

It is shown before the desk is open: its frame first (the toolbar, "Opening the ledger…"),
painted while the ledger opens; the desk's tabs come with ``attach``. Only the tab shown
first (Payment links) is built then; the others right after the window has painted
(``build_tabs``), or at once when something asks for them first. What the frame needs is
imported at the top of this module; the tabs' modules, the desk's and the ledger's come
after the first paint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QLabel,
    QMainWindow,
    QPushButton,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from ..i18n import N_, _
from .dialogs import run_dialog
from .screen_fit import resize_within_screen
from .tabs import TABS, first_field, title
from .window_actions import WindowActions
from .window_tabs import WindowTabs, unbuilt

if TYPE_CHECKING:  # each imported when first built: keeps start-up quick
    from ..config.profiles import Profile
    from ..desk.build import Desk
    from ..ledger import LinkRecord
    from .counter.shifts import CounterShiftsWindow
    from .links.tab import LinksTab
    from .notifications.window import NotificationsWindow
    from .profile_editor import ProfileEditor
    from .shared_ledger import SharedLedgerDialog
    from .staff.gate import StaffGate
    from .status import StatusLine

OPENING = N_("Opening the ledger…")  # what the frame says until the desk is attached
TEST_BANNER = N_("TEST MODE: nothing here is real money. Links created now can only be paid with test cards.")
LIVE_BANNER = N_(
    "LIVE MODE: real money. Links created now are paid by real customers' cards, and card actions move real funds."
)
SANDBOX_LIVE_BANNER = N_(
    "LIVE MODE of the sandbox: this is still the sandbox on this computer, "
    "not real money; its live links refuse test cards."
)
KEYRING_NOTICE = N_(
    "No system keyring: keys are kept in memory for this session only. Next "
    "time PayDesk starts, enter them again with Edit profile (Ctrl+,)."
)


class MainWindow(WindowTabs, WindowActions, QMainWindow):
    """The window of a desk built elsewhere (``desk/build.py``): it shows, and starts
    nothing in the background."""

    closed = Signal()  # the window was closed: the app shuts down
    first_run: QDialog | None = None  # the first run's question, while app.run shows it

    attached = False  # the desk is attached (not yet: the frame, shown while the ledger opens)
    links_tab: LinksTab
    gate: StaffGate
    status: StatusLine

    def __init__(self, desk: Desk | None = None, settings_path: str | None = None):
        """The window of ``desk``; without one, its frame, until ``attach`` gives it the desk."""
        super().__init__()
        self.setObjectName("main-window")
        self.setWindowTitle("PayDesk")
        resize_within_screen(self, 1100, 720)
        self._state = QSettings(settings_path, QSettings.Format.IniFormat) if settings_path else None

        toolbar = QToolBar(_("Profile and mode"))
        toolbar.setObjectName("toolbar")
        toolbar.setMovable(False)
        self.addToolBar(toolbar)
        caption = QLabel(_("Profile:"))
        caption.setContentsMargins(4, 0, 4, 0)
        toolbar.addWidget(caption)
        self.profiles = QComboBox()
        self.profiles.setObjectName("profile-switcher")
        self.profiles.setAccessibleName(_("Profile"))
        self.profiles.setMinimumWidth(200)
        # as wide as the longest name, up to a limit; a longer one is said whole in its tooltip
        self.profiles.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.profiles.setMaximumWidth(360)
        caption.setBuddy(self.profiles)
        toolbar.addWidget(self.profiles)
        self.edit_profile = QPushButton(_("Edit profile…"))
        self.edit_profile.setObjectName("edit-profile")
        self.edit_profile.setAccessibleName(_("Edit profile"))
        toolbar.addWidget(self.edit_profile)
        self.add_profile = QPushButton(_("Add profile…"))
        self.add_profile.setObjectName("add-profile")
        self.add_profile.setAccessibleName(_("Add profile"))
        toolbar.addWidget(self.add_profile)
        spacer = QWidget()
        spacer.setSizePolicy(spacer.sizePolicy().Policy.Expanding, spacer.sizePolicy().Policy.Preferred)
        toolbar.addWidget(spacer)
        self.mode_button = QPushButton()
        self.mode_button.setObjectName("mode-switch")
        mode_action = toolbar.addWidget(self.mode_button)
        for control in (self.profiles, self.edit_profile, self.add_profile, self.mode_button):
            control.setEnabled(False)  # until the desk is attached
        mode_action.setVisible(False)  # (a toolbar's widget is shown and hidden by its action)
        self._mode_action = mode_action
        self.opening: QLabel | None = QLabel(_(OPENING))
        self.opening.setObjectName("opening")
        self.opening.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setCentralWidget(self.opening)
        if self._state is not None and self._state.value("geometry") is not None:
            self.restoreGeometry(self._state.value("geometry"))
        if desk is not None:
            self.attach(desk)

    def attach(self, desk: Desk) -> None:
        """The desk, open: its tabs (the first built now), the status bar, keys and menus,
        the sign-in screen when staff are set up."""
        from .links.tab import LinksTab
        from .notifications.status import LastNotification
        from .signals import signals_of
        from .staff.gate import StaffGate
        from .status import StatusLine
        from .widgets import ToolWindow

        if self.attached:
            raise RuntimeError("the window has its desk already")
        self.desk = desk
        self.session = session = desk.session
        self.tasks = session.tasks.child(self)
        self.profiles.activated.connect(self._profile_chosen)
        self.edit_profile.clicked.connect(lambda: self.tasks.spawn(self.open_editor(self.session.profile), "editor"))
        self.add_profile.clicked.connect(lambda: self.tasks.spawn(self.open_editor(None), "editor"))
        self.mode_button.clicked.connect(lambda: self.tasks.spawn(self.toggle_mode(), "mode"))
        self.profiles.setEnabled(True)
        self.add_profile.setEnabled(True)
        self._mode_action.setVisible(True)

        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.banner = QLabel(_(TEST_BANNER))
        self.banner.setObjectName("test-banner")
        self.banner.setAccessibleName(_(TEST_BANNER))
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setWordWrap(True)  # as the live banner: never wider than the screen
        self.banner.setStyleSheet("background: #f5a623; color: #000; font-weight: 700; padding: 8px;")
        column.addWidget(self.banner)
        self.live_banner = QLabel(_(LIVE_BANNER))
        self.live_banner.setObjectName("live-banner")
        self.live_banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.live_banner.setWordWrap(True)  # a longer language's warning wraps: never wider than the screen
        self.live_banner.setStyleSheet("background: #b3261e; color: #fff; font-weight: 700; padding: 8px;")
        column.addWidget(self.live_banner)
        self.keyring_notice = QLabel(_(KEYRING_NOTICE))
        self.keyring_notice.setObjectName("keyring-notice")
        self.keyring_notice.setAccessibleName(_(KEYRING_NOTICE))
        self.keyring_notice.setWordWrap(True)
        self.keyring_notice.setStyleSheet("background: #fff4ce; color: #3d2e00; padding: 6px;")
        column.addWidget(self.keyring_notice)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("tabs")
        self.tabs.setAccessibleName(_("Sections"))
        self.links, self.scheduler = desk.links, desk.scheduler
        self.links_tab = LinksTab(session, self.links, self.scheduler)
        self._built: dict[str, QWidget] = {"links": self.links_tab}
        for index, (_title, name) in enumerate(TABS):  # the others: an empty page until built
            self.tabs.addTab(self._built.get(name) or unbuilt(title(index)), title(index))
        column.addWidget(self.tabs, 1)
        self.setCentralWidget(central)  # (the frame's "Opening the ledger…" goes with it)
        self.opening = None
        self.tabs.currentChanged.connect(self._tab_shown)  # typing goes to the tab shown

        self.status = StatusLine(session)
        self.setStatusBar(self.status)
        self.status.add_notifications(LastNotification(desk.hub, desk.inbox, self.tasks))
        self.last_call, self.where = self.status.last_call, self.status.where

        # windows of their own, made on first use
        self.notifications = ToolWindow(self._notifications_window)
        self.counter_shifts = ToolWindow(self._counter_shifts_window)
        self._shortcuts()
        self._menus()
        self.gate = StaffGate(self)  # the sign-in screen, Lock, what the person may see
        signals_of(desk.hub).changed.connect(self.refresh)
        self.refresh()
        self.attached = True  # (last: a window whose attach failed closes as its frame)
        self.focus_tab()  # not the Profile box: typing at once would switch profiles

    # -- state to screen -------------------------------------------------------

    def refresh(self) -> None:
        session = self.session
        profile = session.profile
        self.profiles.blockSignals(True)
        self.profiles.clear()
        for p in session.settings.profiles:
            self.profiles.addItem(p.name, p.id)
        if profile is not None:
            self.profiles.setCurrentIndex(self.profiles.findData(profile.id))
        self.profiles.setToolTip(profile.name if profile is not None else "")
        self.profiles.blockSignals(False)
        test = session.is_test
        self.banner.setVisible(test and profile is not None)
        live_text = _(SANDBOX_LIVE_BANNER if profile and profile.embedded_sandbox else LIVE_BANNER)
        self.live_banner.setText(live_text)
        self.live_banner.setAccessibleName(live_text)
        self.live_banner.setVisible(not test and profile is not None)
        self.mode_button.setText(_("Switch to live mode") if test else _("Switch to test mode"))
        self.mode_button.setAccessibleName(self.mode_button.text())
        self.mode_button.setStyleSheet("" if test else "background: #b3261e; color: white; font-weight: 700;")
        self.edit_profile.setEnabled(profile is not None)
        self.mode_button.setEnabled(profile is not None)
        name = profile.name if profile else _("no profile")
        mode = _("TEST") if test else _("LIVE")
        self.setWindowTitle(_("PayDesk — {profile} — {mode}").format(profile=name, mode=mode) if profile else "PayDesk")
        self.where.setText(_("{profile} · {mode}").format(profile=name, mode=mode))
        self.where.setAccessibleName(self.where.text())  # what it shows; said in full below
        self.where.setAccessibleDescription(
            (_("Profile {profile}, test mode") if test else _("Profile {profile}, live mode")).format(profile=name)
        )
        # said once the keyring has been looked for, never while it is
        self.keyring_notice.setVisible(session.keys.settled and not session.keys.persistent)
        self.status.refresh_connection()

    started = False  # start-up is over: profile, sandbox and background work are in place

    def start_up_done(self) -> None:
        """Start-up is over (the desk's background work runs): typing goes to the tab."""
        self.started = True
        focused = self.focusWidget()
        if focused is None or focused is self.profiles or not focused.isEnabled():
            self.focus_tab()  # the tab may have been disabled until its profile was there

    # -- actions ---------------------------------------------------------------

    def focus_tab(self, *_: object) -> None:
        """Keyboard focus to the first field of the tab shown (none while locked: it is the
        sign-in screen's)."""
        gate = getattr(self, "gate", None)  # (None while the gate is being made)
        if gate is not None and gate.locked:
            return
        field = first_field(self.tabs.currentWidget())
        if field is not None:
            field.setFocus(Qt.FocusReason.OtherFocusReason)

    def focus_lookup(self) -> None:
        if not self.tabs.isTabVisible(self.tabs.indexOf(self.transactions_tab)):
            return  # not the person's to see
        self.tabs.setCurrentWidget(self.transactions_tab)
        self.transactions_tab.focus_lookup()

    def show_qr(self, record: LinkRecord) -> None:
        self.tabs.setCurrentWidget(self.links_tab)
        self.links_tab.show_link(record)

    def _profile_chosen(self, index: int) -> None:
        profile_id = self.profiles.itemData(index)
        if profile_id:
            self.tasks.spawn(self._switch_profile(profile_id), "switch profile")

    async def _switch_profile(self, profile_id: str) -> None:
        await self.session.switch_profile(profile_id)
        # typing goes to the tab's first field: in the Profile box a letter switches again
        self.focus_tab()

    async def open_editor(self, profile: Profile | None) -> ProfileEditor:
        from .profile_editor import ProfileEditor  # imported on first use: keeps start-up quick

        editor = ProfileEditor(self.session, profile, self)
        self.editor = editor
        await run_dialog(editor, before=editor.load_keys())
        return editor

    def show_notifications(self) -> NotificationsWindow:
        """The Notifications window, shown and raised."""
        return self.notifications.open()

    def _notifications_window(self) -> NotificationsWindow:
        from .notifications.window import NotificationsWindow

        return NotificationsWindow(self.session, self.desk.inbox, self.desk.notify_test, self)

    @property
    def notifications_window(self) -> NotificationsWindow | None:
        return self.notifications.window

    def show_counter_shifts(self) -> CounterShiftsWindow:
        """Finance's Counter shifts window, shown and raised."""
        return self.counter_shifts.open()

    def _counter_shifts_window(self) -> CounterShiftsWindow:
        from .counter.shifts import CounterShiftsWindow

        return CounterShiftsWindow(self.session, self.desk.counter, self)

    @property
    def counter_shifts_window(self) -> CounterShiftsWindow | None:
        return self.counter_shifts.window

    async def open_shared_ledger(self) -> SharedLedgerDialog:
        from .shared_ledger import SharedLedgerDialog  # imported on first use

        dialog = SharedLedgerDialog(self.session, self, naming=self.desk.naming)
        self.shared_ledger = dialog
        await run_dialog(dialog, before=dialog.load_password())
        return dialog

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._state is not None:
            self._state.setValue("geometry", self.saveGeometry())
            self._state.sync()
        if not self.attached:  # the frame, closed before the desk was open
            super().closeEvent(event)
            self.closed.emit()
            return
        self.gate.close()
        self.notifications.close()
        self.counter_shifts.close()
        self.bulk.close()
        self.activity.close()
        if "counter" in self._built:
            self.counter_tab.shut()  # the customer's display goes with the window
        if "cards" in self._built:
            self.cards_tab.page.secret.forget()  # no card number left on the clipboard after quit
        super().closeEvent(event)
        self.closed.emit()
