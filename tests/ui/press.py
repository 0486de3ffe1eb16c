"""What a user can do to a widget, and nothing more: click it, type into it, press a key.

Every UI test presses widgets through these helpers. Each one first checks that the
widget is one a person could reach (visible on screen, in a visible window, enabled, and
for typing: editable), then acts through ``QTest`` (real mouse and key events), never by
calling ``.click()``, ``.setText()`` or a slot. A hidden or disabled widget fails the test
with what was wrong, which is how the card dialogs' missing buttons would have been found.
A widget behind a modal window (a dialog waiting for its answer) is refused as Qt's own
window system would refuse it. Keys go where a keyboard sends them: to the focus widget of
the widget's window, which must be the widget (or inside it); focus is given as a user gives
it, by a click or by Tab (``tab_to``), never by ``setFocus`` from a test.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)


def _name(widget: QWidget) -> str:
    label = ""
    if isinstance(widget, QAbstractButton):
        label = widget.text()
    label = label or widget.accessibleName() or widget.objectName()
    return f"{type(widget).__name__} {label!r}"


def _parent_window(window: QWidget) -> QWidget | None:
    parent = window.parentWidget()
    return parent.window() if parent is not None else None


def _blocking(window: QWidget) -> QWidget | None:
    """The modal window that keeps a user's clicks and keys away from ``window``, or None.
    Qt's own rule (QGuiApplicationPrivate::isWindowBlocked): a modal window blocks every
    window but itself and its children; an application-modal one blocks them all, a
    window-modal one (``QDialog.open()``) the windows it hangs from and their other children."""
    for modal in QApplication.topLevelWidgets():
        if (
            not modal.isVisible()
            or modal.windowModality() == Qt.WindowModality.NonModal
            or modal is window
            or modal.isAncestorOf(window)
        ):
            continue
        chain = window
        while chain is not None and chain is not modal:
            chain = _parent_window(chain)
        if chain is modal:  # a window opened from the modal one
            continue
        if modal.windowModality() == Qt.WindowModality.ApplicationModal:
            return modal
        # window-modal: blocked when the two share a window up their parent chains
        theirs = set()
        up = _parent_window(modal)
        while up is not None:
            theirs.add(id(up))
            up = _parent_window(up)
        up = window
        while up is not None:
            if id(up) in theirs:
                return modal
            up = _parent_window(up)
    return None


def reachable(widget: QWidget) -> None:
    """Fail unless a person could reach the widget: shown (itself, its parents, its window),
    enabled, and not behind a modal window (a dialog waiting for its answer)."""
    assert widget is not None, "no such widget"
    assert widget.isVisible(), f"{_name(widget)} is not visible: a user cannot press it"
    assert widget.window().isVisible(), f"{_name(widget)} is in a window that is not shown"
    assert widget.isEnabled(), f"{_name(widget)} is disabled: a user cannot press it"
    if widget.width() <= 0 or widget.height() <= 0:
        raise AssertionError(f"{_name(widget)} has no size on screen")
    blocker = _blocking(widget.window())
    assert blocker is None, (
        f"{_name(widget)} is behind the modal window {_name(blocker)} "
        f"(title {blocker.windowTitle()!r}): a user cannot reach it"
    )


def click(widget: QWidget, button: Qt.MouseButton = Qt.MouseButton.LeftButton, pos: QPoint | None = None) -> None:
    """A mouse click in the middle of the widget (or at ``pos``)."""
    reachable(widget)
    QTest.mouseClick(widget, button, Qt.KeyboardModifier.NoModifier, pos if pos is not None else widget.rect().center())


def double_click(widget: QWidget, pos: QPoint | None = None) -> None:
    reachable(widget)
    QTest.mouseDClick(
        widget,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
        pos if pos is not None else widget.rect().center(),
    )


def _editable(widget: QWidget) -> None:
    reachable(widget)
    if isinstance(widget, (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox)):
        assert not widget.isReadOnly(), f"{_name(widget)} is read-only: a user cannot type there"


def clear(widget: QWidget) -> None:
    """Select everything in a field and delete it, as a user would (Ctrl+A, Delete): the
    field must have the keyboard (clicked into, or reached by Tab)."""
    _editable(widget)
    key(widget, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    key(widget, Qt.Key.Key_Delete)


def type_into(widget: QWidget, text: str, *, replace: bool = True) -> None:
    """Click into a field and type ``text`` key by key; by default what was there goes first."""
    _editable(widget)
    click(widget)  # the click gives the field the keyboard, as it does a user's
    if replace:
        clear(widget)
    QTest.keyClicks(_focused(widget), text)


def _focused(widget: QWidget) -> QWidget:
    """Where a user's keyboard goes in ``widget``'s window: its focus widget (the field last
    clicked into or reached by Tab), which must be ``widget`` or inside it; else the test
    fails, since the key would go elsewhere."""
    window = widget.window()
    target = window.focusWidget() or window
    assert target is widget or widget.isAncestorOf(target), (
        f"{_name(widget)} does not have the keyboard ({_name(target)} has it): "
        "a user's key would go there; click the widget or Tab to it first"
    )
    return target


def key(widget: QWidget, which: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """One key press, delivered as a keyboard delivers it: to the focus widget of the
    widget's window, which must be ``widget`` or inside it (a dialog: any of its fields).
    Give the focus first as a user does: ``click`` it, or ``tab_to`` it."""
    reachable(widget)
    QTest.keyClick(_focused(widget), which, modifier)


def tab_to(widget: QWidget, presses: int = 40) -> None:
    """Press Tab in the widget's window until ``widget`` has the keyboard (as a user reaches
    a control without the mouse); fails if Tab never gets there."""
    reachable(widget)
    window = widget.window()
    for _ in range(presses):
        if window.focusWidget() is widget:
            return
        QTest.keyClick(window.focusWidget() or window, Qt.Key.Key_Tab)
    assert window.focusWidget() is widget, f"Tab never reaches {_name(widget)}"


def drag(widget: QWidget, start: QPoint, end: QPoint) -> None:
    """Press the left button at ``start`` of the widget, move the mouse to ``end`` with it
    held, and let go (a column's edge dragged in a table's header, a splitter moved)."""
    reachable(widget)
    left, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QTest.mousePress(widget, left, none, start)
    steps = 8
    for i in range(1, steps + 1):
        QTest.mouseMove(widget, start + (end - start) * i / steps)
    QTest.mouseRelease(widget, left, none, end)


def size_column(view, column: int, width: int) -> None:
    """Drag the right edge of ``column``'s header section until the column is ``width``
    wide (or as near as the header lets it be), as a person widens or narrows a column."""
    header = view.horizontalHeader()
    right = header.sectionViewportPosition(column) + header.sectionSize(column) - 1
    y = header.height() // 2
    drag(header.viewport(), QPoint(right, y), QPoint(right - (header.sectionSize(column) - width), y))


def enter(widget: QWidget) -> None:
    key(widget, Qt.Key.Key_Return)


def escape(widget: QWidget) -> None:
    key(widget, Qt.Key.Key_Escape)


def choose(combo: QComboBox, text: str) -> None:
    """Pick the entry showing ``text`` in a combo box as a user does: click it, and in the
    list that opens go to the entry with the keyboard and press Enter."""
    reachable(combo)
    index = combo.findText(text)
    assert index >= 0, f"{_name(combo)} offers no {text!r}: {[combo.itemText(i) for i in range(combo.count())]}"
    click(combo)
    popup = QApplication.activePopupWidget()
    assert popup is not None and popup.isVisible(), f"{_name(combo)} opened no list"
    keys = popup.focusWidget() or popup
    QTest.keyClick(keys, Qt.Key.Key_Home)
    for _ in range(index):
        QTest.keyClick(keys, Qt.Key.Key_Down)
    QTest.keyClick(keys, Qt.Key.Key_Return)
    assert QApplication.activePopupWidget() is None, f"{_name(combo)}: the list stayed open"
    # the window system gives the keyboard back to the window when its list closes; the
    # offscreen platform has none, and leaves the closed list the active window (its word
    # on that comes queued): the window is made active again, and the test waits for it
    window = combo.window()
    window.activateWindow()
    for _ in range(200):
        if QApplication.activeWindow() is window:
            break
        QTest.qWait(10)
    assert QApplication.activeWindow() is window, f"{_name(window)} is not active again"
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
    """Click a tab's title (in a QTabWidget's bar), as a user picks a tab: ``title`` in
    English, found as the staff's language shows it (a main window's tab in the context
    "tab", ui/tabs.py; any other tab's title as its words)."""
    from paydesk.i18n import _, pgettext

    bar = tabs.tabBar()
    titles = [bar.tabText(i).replace("&", "") for i in range(bar.count())]
    title = next((shown for shown in (title, pgettext("tab", title), _(title)) if shown in titles), title)
    assert title in titles, f"no tab {title!r}: {titles}"
    index = titles.index(title)
    click(bar, pos=bar.tabRect(index).center())
    assert tabs.currentIndex() == index, f"the tab {title!r} did not open"


def button(window: QWidget, text: str) -> QAbstractButton:
    """The button a user sees labelled ``text`` in ``window`` (shown, one only)."""
    found = [b for b in window.findChildren(QAbstractButton) if b.isVisible() and b.text().replace("&", "") == text]
    assert len(found) == 1, f"{len(found)} visible buttons {text!r} in {_name(window)}"
    return found[0]


def save_as(dialog, path) -> None:
    """Answer a (Qt's own) save dialog as a user does: type the file's whole path into the
    name field and press Enter. (If the file exists the dialog then asks, in a loop of its
    own: answer that with ``answer_later``, and check its ``answered`` afterwards.)"""
    reachable(dialog)
    name = dialog.findChild(QLineEdit, "fileNameEdit")
    type_into(name, str(path))
    enter(name)


PRINT_TO_FILE = "Print to File (PDF)"  # the printer Qt's own print dialog offers for a PDF


def print_to_file(dialog, path) -> None:
    """Answer Qt's own print dialog as a user prints to a PDF file: "Print to File (PDF)"
    chosen as the printer (already the choice on a computer with no printer installed), the
    file's whole path typed into its name field, then Print."""
    reachable(dialog)
    printers = dialog.findChild(QComboBox, "printers")
    if printers.currentText() != PRINT_TO_FILE:
        choose(printers, PRINT_TO_FILE)
    type_into(dialog.findChild(QLineEdit, "filename"), str(path))
    click(button(dialog, "Print"))


class Answer:
    """A message box to be answered when it comes up (see ``answer_later``): ``answered``
    says whether it came and its button was pressed; ``wait`` fails if it has not."""

    def __init__(self, text: str, button_text: str, timeout: float) -> None:
        import time

        self.text, self.button_text = text, button_text
        self.deadline = time.monotonic() + timeout
        self.answered = False
        self.error: BaseException | None = None

    def look(self) -> None:
        import time

        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QMessageBox

        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox) and self.text in box.text():
            try:
                click(button(box, self.button_text))
                self.answered = True
            except AssertionError as error:  # said by the test that waits for it
                self.error = error
        elif time.monotonic() < self.deadline:
            QTimer.singleShot(10, self.look)

    def check(self) -> None:
        """Fail unless the box came up and was answered."""
        if self.error is not None:
            raise self.error
        assert self.answered, f"no message box saying {self.text!r} came up to answer {self.button_text!r}"


def answer_later(text: str, button_text: str, timeout: float = 10.0) -> Answer:
    """When a message box containing ``text`` comes up (in a loop of its own, as the file
    dialog's "replace?" does), press its button labelled ``button_text``. Returns the
    ``Answer``: call its ``check()`` once the box should have come and gone."""
    from PySide6.QtCore import QTimer

    answer = Answer(text, button_text, timeout)
    QTimer.singleShot(0, answer.look)
    return answer


def closed(window: QWidget) -> bool:
    """Whether a window is gone from the screen (hidden, or already deleted)."""
    try:
        return not window.isVisible()
    except RuntimeError:  # its C++ object was deleted: gone
        return True


def _tasks_named(name: str | None) -> set:
    import asyncio

    return {
        t
        for t in asyncio.all_tasks(asyncio.get_event_loop())
        if (name is None or t.get_name() == name) and not t.done()
    }


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


def at_keyboard(text: str = "", which: Qt.Key | None = None) -> QWidget:
    """Type ``text`` (or press the key ``which``) where the keyboard sends it: to the focus
    widget of the active window, whatever widget the test has in mind. Returns that widget;
    fails when no window of PayDesk has the keyboard."""
    target = QApplication.focusWidget() or QApplication.activeWindow()
    assert target is not None, "no window has the keyboard"
    if text:
        QTest.keyClicks(target, text)
    if which is not None:
        QTest.keyClick(target, which)
    return target
