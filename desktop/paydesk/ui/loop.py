"""The one asyncio loop of the app: qasync's, with one fix."""

from __future__ import annotations

import asyncio

import qasync  # after PySide6, so qasync binds to it
from PySide6.QtCore import QCoreApplication
from PySide6.QtCore import QEventLoop as QtEventLoop


class EventLoop(qasync.QEventLoop):
    """qasync's loop. qasync's run_until_complete processes Qt events once more after the
    loop has stopped, with no running loop set: a coroutine woken then cannot find its loop
    (asyncio.Event, httpx, anything calling get_running_loop). Here that last pass runs
    with the loop set as running."""

    def run_forever(self):
        previous = asyncio.events._get_running_loop()
        try:
            return super().run_forever()
        finally:  # qasync leaves "no running loop"; put back what was there
            asyncio.events._set_running_loop(previous)

    def run_until_complete(self, future):
        if self.is_running():
            raise RuntimeError("Event loop already running")
        future = asyncio.ensure_future(future, loop=self)

        def stop(_):
            self.stop()

        future.add_done_callback(stop)
        try:
            self.run_forever()
        finally:
            future.remove_done_callback(stop)
        previous = asyncio.events._get_running_loop()
        asyncio.events._set_running_loop(self)
        try:
            QCoreApplication.instance().eventDispatcher().processEvents(
                QtEventLoop.ProcessEventsFlag.AllEvents)
        finally:
            asyncio.events._set_running_loop(previous)
        if not future.done():
            raise RuntimeError("Event loop stopped before Future completed.")
        return future.result()
