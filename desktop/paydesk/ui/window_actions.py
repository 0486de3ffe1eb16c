"""The main window's keys and menus (``main_window.py``), each wired to the window's own
methods."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

if TYPE_CHECKING:
    from .main_window import MainWindow


def add_shortcuts(window: MainWindow) -> None:
    """The window's keys: Ctrl+1…4 a tab, Ctrl+Shift+M the mode, Ctrl+, the profile,
    Ctrl+F and Ctrl+L the lookup box, the quit key."""
    for index in range(window.tabs.count()):
        action = QAction(window)
        action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
        action.triggered.connect(lambda _=False, i=index: window.tabs.setCurrentIndex(i))
        window.addAction(action)
    mode = QAction(window)
    mode.setShortcut(QKeySequence("Ctrl+Shift+M"))
    mode.triggered.connect(lambda: window.tasks.spawn(window.toggle_mode(), "mode"))
    window.addAction(mode)
    edit = QAction(window)
    edit.setShortcut(QKeySequence("Ctrl+,"))
    edit.triggered.connect(
        lambda: window.tasks.spawn(window.open_editor(window.session.profile), "editor"))
    window.addAction(edit)
    for keys in ("Ctrl+F", "Ctrl+L"):  # the lookup box, from anywhere
        lookup = QAction(window)
        lookup.setShortcut(QKeySequence(keys))
        lookup.triggered.connect(window.focus_lookup)
        window.addAction(lookup)
    quit_ = QAction(window)
    quit_.setShortcut(QKeySequence(QKeySequence.StandardKey.Quit))
    quit_.triggered.connect(window.close)
    window.addAction(quit_)


def add_menus(window: MainWindow) -> None:
    """Settings (Shared ledger…), View (Notifications…, Counter shifts…, Batches…) and
    Links (Bulk links…)."""
    window.settings_menu = settings = QMenu("&Settings", window)
    settings.setObjectName("settings-menu")
    window.menuBar().addMenu(settings)
    window.shared_ledger_action = QAction("Shared &ledger…", window)
    window.shared_ledger_action.setObjectName("shared-ledger-action")
    settings.addAction(window.shared_ledger_action)
    window.shared_ledger_action.triggered.connect(
        lambda: window.tasks.spawn(window.open_shared_ledger(), "shared ledger"))
    window.notifications_action = QAction("&Notifications…", window)
    window.notifications_action.setObjectName("notifications-action")
    window.notifications_action.setShortcut(QKeySequence("Ctrl+Shift+N"))
    window.notifications_action.triggered.connect(window.show_notifications)
    window.counter_shifts_action = QAction("Counter &shifts…", window)
    window.counter_shifts_action.setObjectName("counter-shifts-action")
    window.counter_shifts_action.setShortcut(QKeySequence("Ctrl+Shift+H"))
    window.counter_shifts_action.triggered.connect(window.show_counter_shifts)
    window.view_menu = view = QMenu("&View", window)
    view.setObjectName("view-menu")
    view.addAction(window.notifications_action)
    view.addAction(window.counter_shifts_action)
    window.menuBar().addMenu(view)
    from .bulk.entry import BulkEntry  # Links > Bulk links…, View > Batches…

    window.bulk = BulkEntry(window, window.desk, view)
    window.links_tab.bulkRequested.connect(window.bulk.show_bulk)
