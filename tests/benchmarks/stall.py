"""How long the GUI thread was held: the longest lateness of a repeating Qt timer."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer


class Stall:
    """``with Stall() as s: …`` (or ``s.start()`` … ``s.stop()``): ``s.worst`` is the longest
    the timer came late, in ms, beyond its own ``interval_ms``."""

    def __init__(self, interval_ms: int = 1):
        self.interval_ms = interval_ms
        self.worst = 0.0
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, (now - self._last) * 1000 - self.interval_ms)
        self._last = now

    def start(self) -> Stall:
        self.worst, self._last = 0.0, time.perf_counter()
        self._timer.start()
        return self

    def stop(self) -> float:
        self._timer.stop()
        return self.worst

    __enter__ = start

    def __exit__(self, *exc) -> None:
        self.stop()
