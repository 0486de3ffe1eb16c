"""The one asyncio loop of the app: qasync's, with two fixes."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import qasync  # after PySide6, so qasync binds to it
from PySide6.QtCore import QCoreApplication, QObject, QTimerEvent
from PySide6.QtCore import QEventLoop as QtEventLoop

log = logging.getLogger("paydesk.loop")
T = TypeVar("T")


class _Timed(asyncio.Handle):
    """A callback of ``call_later`` (and ``call_soon``, ``call_at``) whose ``cancel`` stops
    its Qt timer at once."""

    __slots__ = ("_timers", "_timer_id")
    _timers: _Timers  # set by _Timers.add_callback
    _timer_id: int

    def cancel(self) -> None:
        if not self._cancelled:
            super().cancel()
            self._timers.drop(self._timer_id, self)


class _Timers(QObject):
    """The loop's timers, one Qt timer per callback, as qasync's ``_SimpleTimer``, but a
    cancelled callback's timer is killed when it is cancelled. qasync's stays, with its
    handle, until it would have fired: the client's timeouts (a few per request, cancelled
    when the answer comes) left tens of thousands of Qt timers and handles alive during a
    batch of bulk links, each new timer slower to start and each full collection of the
    garbage collector longer."""

    def __init__(self) -> None:
        super().__init__()
        self._handles: dict[int, asyncio.Handle] = {}
        self._stopped = False
        self._debug = False

    def add_callback(self, handle: asyncio.Handle, delay: float = 0) -> asyncio.Handle:
        timer_id = self.startTimer(int(max(0, delay) * 1000))
        self._handles[timer_id] = handle
        if isinstance(handle, _Timed):
            handle._timers, handle._timer_id = self, timer_id
        return handle

    def drop(self, timer_id: int, handle: asyncio.Handle) -> None:
        """``handle`` cancelled: its timer stopped, if it has not fired. asyncio cancels
        handles that have run (``asyncio.sleep`` always does), and Qt gives a fired timer's
        id out again once the serial in it has come round: a timer of that id now is
        another callback's, and stays."""
        if self._handles.get(timer_id) is handle:
            del self._handles[timer_id]
            self.killTimer(timer_id)

    def timerEvent(self, event: QTimerEvent) -> None:
        timer_id = event.timerId()
        self.killTimer(timer_id)
        handle = self._handles.pop(timer_id, None)
        if handle is None or self._stopped or handle.cancelled():
            return
        if not self._debug:
            handle._run()
            return
        loop = asyncio.get_event_loop()
        started = time.monotonic()
        handle._run()
        took = time.monotonic() - started
        if took >= loop.slow_callback_duration:
            log.warning("Executing %s took %.3f seconds", handle, took)

    def stop(self) -> None:
        self._stopped = True

    def set_debug(self, enabled: bool) -> None:
        self._debug = enabled


class EventLoop(qasync.QEventLoop):
    """qasync's loop. qasync's run_until_complete processes Qt events once more after the
    loop has stopped, with no running loop set: a coroutine woken then cannot find its loop
    (asyncio.Event, httpx, anything calling get_running_loop). Here that last pass runs
    with the loop set as running. And a cancelled timer is stopped at once (``_Timers``)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._timer = _Timers()

    def call_later(
        self, delay: float, callback: Callable[..., object], *args: Any, context: contextvars.Context | None = None
    ) -> asyncio.Handle:
        if self.get_debug():  # as asyncio's own loop: checked in debug mode only (the check
            # costs more than the rest: about 50 timers a request, the client's timeouts)
            if asyncio.iscoroutinefunction(callback):
                raise TypeError("coroutines cannot be used with call_later")
            if not callable(callback):
                raise TypeError(f"callback must be callable: {type(callback).__name__}")
        return self._add_callback(_Timed(callback, args, self, context=context), delay)

    def run_forever(self) -> int:  # Qt's exit code, as qasync's
        previous = asyncio.events._get_running_loop()
        try:
            return super().run_forever()
        finally:  # qasync leaves "no running loop"; put back what was there
            asyncio.events._set_running_loop(previous)

    def run_until_complete(self, future: Awaitable[T]) -> T:
        if self.is_running():
            raise RuntimeError("Event loop already running")
        task = asyncio.ensure_future(future, loop=self)

        def stop(_: asyncio.Future[T]) -> None:
            self.stop()

        task.add_done_callback(stop)
        try:
            self.run_forever()
        finally:
            task.remove_done_callback(stop)
        previous = asyncio.events._get_running_loop()
        asyncio.events._set_running_loop(self)
        try:
            app = QCoreApplication.instance()
            dispatcher = app.eventDispatcher() if app is not None else None
            if dispatcher is not None:
                dispatcher.processEvents(QtEventLoop.ProcessEventsFlag.AllEvents)
        finally:
            asyncio.events._set_running_loop(previous)
        if not task.done():
            raise RuntimeError("Event loop stopped before Future completed.")
        return task.result()
