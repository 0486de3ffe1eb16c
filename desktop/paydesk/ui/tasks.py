"""Tasks started from the GUI: strong references kept, failures reported, cancelled on quit."""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any, Coroutine

log = logging.getLogger("paydesk.tasks")


class TaskSet:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str | None = None) -> asyncio.Task:
        task = asyncio.get_event_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:  # an unexpected error: the exception hook reports it
            sys.excepthook(type(exc), exc, exc.__traceback__)

    def __len__(self) -> int:
        return len(self._tasks)

    async def cancel_all(self, timeout: float = 5.0) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
