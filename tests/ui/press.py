"""What a user can do to a widget, and nothing more: click it, type into it, press a key.

Every UI test presses widgets through these helpers. Each one first checks that the
widget is one a person could reach (visible on screen, in a visible window, enabled, and
for typing: editable), then acts through ``QTest`` (real mouse and key events), never by
calling ``.click()``, ``.setText()`` or a slot. A hidden or disabled widget fails the test
with what was wrong, which is how the card dialogs' missing buttons would have been found.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (QAbstractButton, QAbstractSpinBox, QApplication, QComboBox,
                               QLineEdit, QPlainTextEdit, QTextEdit, QWidget)


def _name(widget: QWidget) -> str:
    label = ""
    if isinstance(widget, QAbstractButton):
        label = widget.text()
    label = label or widget.accessibleName() or widget.objectName()
    return f"{type(widget).__name__} {label!r}"


def reachable(widget: QWidget) -> None:
    """Fail unless a person could reach the widget: shown (itself, its parents, its window)
    and enabled."""
    assert widget is not None, "no such widget"
    assert widget.isVisible(), f"{_name(widget)} is not visible: a user cannot press it"
    assert widget.window().isVisible(), f"{_name(widget)} is in a window that is not shown"
    assert widget.isEnabled(), f"{_name(widget)} is disabled: a user cannot press it"
    if widget.width() <= 0 or widget.height() <= 0:
        raise AssertionError(f"{_name(widget)} has no size on screen")


def click(widget: QWidget, button: Qt.MouseButton = Qt.MouseButton.LeftButton,
          pos: QPoint | None = None) -> None:
    """A mouse click in the middle of the widget (or at ``pos``)."""
    reachable(widget)
    QTest.mouseClick(widget, button, Qt.KeyboardModifier.NoModifier,
                     pos if pos is not None else widget.rect().center())


def double_click(widget: QWidget, pos: QPoint | None = None) -> None:
    reachable(widget)
    QTest.mouseDClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                      pos if pos is not None else widget.rect().center())


def _editable(widget: QWidget) -> None:
    reachable(widget)
    if isinstance(widget, (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox)):
        assert not widget.isReadOnly(), f"{_name(widget)} is read-only: a user cannot type there"


def clear(widget: QWidget) -> None:
    """Select everything in a field and delete it, as a user would (Ctrl+A, Delete)."""
    _editable(widget)
    widget.setFocus(Qt.FocusReason.MouseFocusReason)
    QTest.keyClick(widget, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(widget, Qt.Key.Key_Delete)


def type_into(widget: QWidget, text: str, *, replace: bool = True) -> None:
    """Click into a field and type ``text`` key by key; by default what was there goes first."""
    _editable(widget)
    click(widget)
    if replace:
        clear(widget)
    QTest.keyClicks(widget, text)


def key(widget: QWidget, which: Qt.Key,
        modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """One key press on the widget (it must be one a user could have focused)."""
    reachable(widget)
    QTest.keyClick(widget, which, modifier)


def enter(widget: QWidget) -> None:
    key(widget, Qt.Key.Key_Return)


def escape(widget: QWidget) -> None:
    key(widget, Qt.Key.Key_Escape)


def choose(combo: QComboBox, text: str) -> None:
    """Pick the entry showing ``text`` in a combo box with the keyboard, as a user would."""
    reachable(combo)
    index = combo.findText(text)
    assert index >= 0, f"{_name(combo)} offers no {text!r}: {[combo.itemText(i) for i in range(combo.count())]}"
    combo.setFocus(Qt.FocusReason.MouseFocusReason)
    QTest.keyClick(combo, Qt.Key.Key_Home)
    for _ in range(index):
        QTest.keyClick(combo, Qt.Key.Key_Down)
    assert combo.currentIndex() == index, f"{_name(combo)}: could not reach {text!r} by keyboard"


def shown(object_name: str) -> QWidget | None:
    """The window on screen named ``object_name`` (a dialog opened with ``open()``, a message
    box), as a user sees it: shown, top-level; None while there is none."""
    for widget in QApplication.topLevelWidgets():
        if widget.isVisible() and widget.objectName() == object_name:
            return widget
    return None


def modal() -> QWidget | None:
    """The modal window on screen now (the one a user's keys and clicks go to), or None."""
    return QApplication.activeModalWidget()


def tab(tabs, title: str) -> None:
    """Click a tab's title (in a QTabWidget's bar), as a user picks a tab."""
    bar = tabs.tabBar()
    titles = [bar.tabText(i).replace("&", "") for i in range(bar.count())]
    assert title in titles, f"no tab {title!r}: {titles}"
    index = titles.index(title)
    click(bar, pos=bar.tabRect(index).center())
    assert tabs.currentIndex() == index, f"the tab {title!r} did not open"


def button(window: QWidget, text: str) -> QAbstractButton:
    """The button a user sees labelled ``text`` in ``window`` (shown, one only)."""
    found = [b for b in window.findChildren(QAbstractButton)
             if b.isVisible() and b.text().replace("&", "") == text]
    assert len(found) == 1, f"{len(found)} visible buttons {text!r} in {_name(window)}"
    return found[0]


def save_as(dialog, path) -> None:
    """Answer a (Qt's own) save dialog as a user does: go to the folder, type the file's name
    into the name field, press Enter. (If the file exists the dialog then asks, in a loop of
    its own: answer that with ``answer_later``.)"""
    from pathlib import Path

    path = Path(path)
    reachable(dialog)
    dialog.setDirectory(str(path.parent))  # the folder, as if picked in the dialog's tree
    name = dialog.findChild(QLineEdit, "fileNameEdit")
    type_into(name, path.name)
    enter(name)


def answer_later(text: str, button_text: str, tries: int = 300) -> None:
    """When a message box containing ``text`` comes up (in a loop of its own, as the file
    dialog's "replace?" does), press its button labelled ``button_text``."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    def look(left: int) -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox) and text in box.text():
            click(button(box, button_text))
        elif left:
            QTimer.singleShot(10, lambda: look(left - 1))

    QTimer.singleShot(0, lambda: look(tries))


def closed(window: QWidget) -> bool:
    """Whether a window is gone from the screen (hidden, or already deleted)."""
    try:
        return not window.isVisible()
    except RuntimeError:  # its C++ object was deleted: gone
        return True


def _tasks_named(name: str | None) -> set:
    import asyncio

    return {t for t in asyncio.all_tasks(asyncio.get_event_loop())
            if (name is None or t.get_name() == name) and not t.done()}


def starting(task_name: str | None, act):
    """Do ``act`` (a press) and return the work it started (the product's task called
    ``task_name``; with None, the one task it started), for the test to wait for its
    outcome; fails when the press started none."""
    before = _tasks_named(task_name)
    act()
    started = _tasks_named(task_name) - before
    assert len(started) == 1, f"the press started {len(started)} {task_name!r} tasks"
    return started.pop()


def click_starting(widget: QWidget, task_name: str | None = None):
    """Click ``widget``; the work the click started (see ``starting``)."""
    return starting(task_name, lambda: click(widget))


def context_menu(widget: QWidget, pos: QPoint | None = None) -> None:
    """A right click's context menu request at ``pos``: the event the window system delivers
    on a right click (QTest's clicks go straight to the widget, where Qt 6 no longer makes
    one of a right button)."""
    from PySide6.QtGui import QContextMenuEvent

    reachable(widget)
    at = pos if pos is not None else widget.rect().center()
    QTest.mousePress(widget, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, at)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at, widget.mapToGlobal(at))
    QApplication.sendEvent(widget, event)
    QTest.mouseRelease(widget, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, at)
