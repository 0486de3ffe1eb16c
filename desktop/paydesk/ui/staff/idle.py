"""The idle lock: no key or mouse input to PayDesk's windows for the minutes set for this
computer (Settings → Staff…), and the window locks.

While someone is signed in, one event filter on the application notes the time of each key
press, click, wheel turn and mouse move in any of PayDesk's windows, and a timer looks once
a second whether the minutes have passed since. Zero minutes: never."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

INPUT = frozenset(
    {
        QEvent.Type.KeyPress,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseMove,
        QEvent.Type.Wheel,
        QEvent.Type.TouchBegin,
        QEvent.Type.TabletPress,
    }
)


class IdleWatch(QObject):
    """Calls ``lock`` once nobody has touched PayDesk for ``minutes()`` minutes while
    ``armed()`` (someone signed in)."""

    def __init__(
        self, parent: QObject, minutes: Callable[[], float], armed: Callable[[], bool], lock: Callable[[], None]
    ) -> None:
        super().__init__(parent)
        self._minutes, self._armed, self._lock = minutes, armed, lock
        self.last_input = time.monotonic()
        self._watching = False
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self.look)

    def watch(self, on: bool) -> None:
        """Watch the input while someone is signed in; a shop without staff (or a locked
        window) pays nothing for it."""
        if on == self._watching:
            return
        self._watching = on
        app = QApplication.instance()
        if on:
            self.last_input = time.monotonic()  # the minutes count from the sign-in
            if app is not None:
                app.installEventFilter(self)
            self._timer.start()
        else:
            if app is not None:
                app.removeEventFilter(self)
            self._timer.stop()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in INPUT:
            self.last_input = time.monotonic()
        return False

    def look(self) -> None:
        minutes = self._minutes()
        if minutes <= 0 or not self._armed():
            return
        if time.monotonic() - self.last_input >= minutes * 60:
            self._lock()

    def stop(self) -> None:
        self.watch(False)
