"""The app's Qt side for a benchmark: a QApplication that outlives its windows, and qasync's
loop, as ``paydesk`` runs them."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtWidgets import QApplication

from paydesk.ui.loop import EventLoop


@contextmanager
def qt_loop() -> Iterator[tuple[QApplication, asyncio.Runner]]:
    """Yields the application and a runner on qasync's loop; both end with the ``with``."""
    app = QApplication([sys.argv[0]])
    app.setQuitOnLastWindowClosed(False)
    with asyncio.Runner(loop_factory=EventLoop) as runner:
        yield app, runner
