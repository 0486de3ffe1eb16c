"""The main window: profile and mode at the top, the three tabs, a status bar."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (QComboBox, QLabel, QMainWindow, QPushButton,
                               QStatusBar, QTabWidget, QToolBar, QVBoxLayout, QWidget)

from .dialogs import confirm, finished
from .session import Session
from .tabs import TABS, PlaceholderTab

TEST_BANNER = ("TEST MODE: nothing here is real money. Links created now can only be paid "
               "with test cards.")
KEYRING_NOTICE = ("No system keyring: keys are kept in memory for this session only. "
                  "You will be asked for them again next time PayDesk starts.")


class MainWindow(QMainWindow):
    closed = Signal()  # the window was closed: the app shuts down

    def __init__(self, session: Session, settings_path: str | None = None):
        super().__init__()
        self.session = session
        self.setObjectName("main-window")
        self.resize(1100, 720)
        self._state = QSettings(settings_path, QSettings.Format.IniFormat) if settings_path else None

        toolbar = QToolBar("Profile and mode")
        toolbar.setObjectName("toolbar")
        toolbar.setMovable(False)
        self.addToolBar(toolbar)
        caption = QLabel(" Profile: ")
        toolbar.addWidget(caption)
        self.profiles = QComboBox()
        self.profiles.setObjectName("profile-switcher")
        self.profiles.setAccessibleName("Profile")
        self.profiles.setMinimumWidth(200)
        caption.setBuddy(self.profiles)
        self.profiles.activated.connect(self._profile_chosen)
        toolbar.addWidget(self.profiles)
        self.edit_profile = QPushButton("Edit profile…")
        self.edit_profile.setObjectName("edit-profile")
        self.edit_profile.setAccessibleName("Edit profile")
        self.edit_profile.clicked.connect(lambda: session.tasks.spawn(self.open_editor(self.session.profile)))
        toolbar.addWidget(self.edit_profile)
        self.add_profile = QPushButton("Add profile…")
        self.add_profile.setObjectName("add-profile")
        self.add_profile.setAccessibleName("Add profile")
        self.add_profile.clicked.connect(lambda: session.tasks.spawn(self.open_editor(None)))
        toolbar.addWidget(self.add_profile)
        spacer = QWidget()
        spacer.setSizePolicy(spacer.sizePolicy().Policy.Expanding, spacer.sizePolicy().Policy.Preferred)
        toolbar.addWidget(spacer)
        self.mode_button = QPushButton()
        self.mode_button.setObjectName("mode-switch")
        self.mode_button.clicked.connect(lambda: session.tasks.spawn(self.toggle_mode(), "mode"))
        toolbar.addWidget(self.mode_button)

        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.banner = QLabel(TEST_BANNER)
        self.banner.setObjectName("test-banner")
        self.banner.setAccessibleName(TEST_BANNER)
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setStyleSheet("background: #f5a623; color: #000; font-weight: 700; padding: 8px;")
        column.addWidget(self.banner)
        self.keyring_notice = QLabel(KEYRING_NOTICE)
        self.keyring_notice.setObjectName("keyring-notice")
        self.keyring_notice.setAccessibleName(KEYRING_NOTICE)
        self.keyring_notice.setWordWrap(True)
        self.keyring_notice.setStyleSheet("background: #fff4ce; color: #3d2e00; padding: 6px;")
        column.addWidget(self.keyring_notice)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("tabs")
        self.tabs.setAccessibleName("Sections")
        from .links.controller import LinksController
        from .links.tab import LinksTab
        from .links.watcher import LinkWatcher

        self.links = LinksController(session, session.ledger)
        self.watcher = LinkWatcher(self.links)
        self.links_tab = LinksTab(session, self.links, self.watcher)
        for title, name, text in TABS:
            tab = self.links_tab if name == "links" else PlaceholderTab(title, name, text)
            self.tabs.addTab(tab, title)
        column.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.setStatusBar(QStatusBar())
        self.where = QLabel()
        self.where.setObjectName("status-where")
        self.statusBar().addPermanentWidget(self.where)
        self.last_call = QLabel("Ready")
        self.last_call.setObjectName("status-last-call")
        self.last_call.setAccessibleName("Last call")
        self.statusBar().addWidget(self.last_call, 1)

        self._shortcuts()
        session.changed.connect(self.refresh)
        session.callFinished.connect(self._call_finished)
        self.refresh()
        if self._state is not None and self._state.value("geometry") is not None:
            self.restoreGeometry(self._state.value("geometry"))

    def _shortcuts(self) -> None:
        for index in range(self.tabs.count()):
            action = QAction(self)
            action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
            action.triggered.connect(lambda _=False, i=index: self.tabs.setCurrentIndex(i))
            self.addAction(action)
        mode = QAction(self)
        mode.setShortcut(QKeySequence("Ctrl+Shift+M"))
        mode.triggered.connect(lambda: self.session.tasks.spawn(self.toggle_mode(), "mode"))
        self.addAction(mode)
        edit = QAction(self)
        edit.setShortcut(QKeySequence("Ctrl+,"))
        edit.triggered.connect(lambda: self.session.tasks.spawn(self.open_editor(self.session.profile)))
        self.addAction(edit)
        quit_ = QAction(self)
        quit_.setShortcut(QKeySequence(QKeySequence.StandardKey.Quit))
        quit_.triggered.connect(self.close)
        self.addAction(quit_)

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
        self.profiles.blockSignals(False)
        test = session.is_test
        self.banner.setVisible(test)
        self.mode_button.setText("Switch to live mode" if test else "Switch to test mode")
        self.mode_button.setAccessibleName(self.mode_button.text())
        self.mode_button.setStyleSheet("" if test else "background: #b3261e; color: white; font-weight: 700;")
        self.edit_profile.setEnabled(profile is not None)
        self.mode_button.setEnabled(profile is not None)
        name = profile.name if profile else "no profile"
        mode = "TEST" if test else "LIVE"
        self.setWindowTitle(f"PayDesk — {name} — {mode}" if profile else "PayDesk")
        self.where.setText(f"{name} · {mode}")
        self.where.setAccessibleName(f"Profile {name}, {mode.lower()} mode")
        self.keyring_notice.setVisible(not session.keys.persistent)

    started = False  # start-up is over: profile, sandbox and background work are in place

    def start_background(self) -> None:
        """The link scheduler, and settling creates a previous run left unfinished."""
        self.session.tasks.spawn(self.watcher.run(), "link watcher")
        self.session.tasks.spawn(self.links.recover(), "recover links")
        self.started = True

    def _call_finished(self, text: str) -> None:
        self.last_call.setText(text)
        self.last_call.setAccessibleName(f"Last call: {text}")

    # -- actions ---------------------------------------------------------------

    def _profile_chosen(self, index: int) -> None:
        profile_id = self.profiles.itemData(index)
        if profile_id:
            self.session.tasks.spawn(self.session.switch_profile(profile_id), "switch profile")

    async def toggle_mode(self) -> bool:
        """Test -> live asks first and says what live means; live -> test does not."""
        if self.session.profile is None:
            return False
        if self.session.is_test:
            ok = await confirm(
                self, "Switch to live mode?", "Switch to LIVE mode?",
                "Live mode uses real money: links you create can be paid by real customers, "
                "and card actions move real funds. Test data stays in test mode.",
                "Switch to live", "Stay in test", object_name="confirm-live")
            if not ok:
                return False
            await self.session.set_mode("live")
        else:
            await self.session.set_mode("test")
        return True

    async def open_editor(self, profile):
        from .profile_editor import ProfileEditor  # imported on first use: keeps start-up quick

        editor = ProfileEditor(self.session, profile, self)
        await editor.load_keys()
        self.editor = editor
        await finished(editor)
        editor.deleteLater()
        return editor

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._state is not None:
            self._state.setValue("geometry", self.saveGeometry())
            self._state.sync()
        self.links_tab.counter.close()
        super().closeEvent(event)
        self.closed.emit()

