"""Tasks: each belongs to the widget, controller or desk that started it.

A ``TaskSet`` keeps strong references, reports unexpected failures to the exception hook,
and is cancelled with its owner: ``tasks.child(widget)`` makes the set of one widget, which
ends when the widget is destroyed and whenever its parent set is cancelled (the session's,
on quit). ``replace(name, …)`` starts a task in place of the running one of that name, for
what supersedes itself (search as you type).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import weakref
from collections.abc import Coroutine
from typing import Any, Protocol

log = logging.getLogger("paydesk.tasks")


class Owner(Protocol):
    """What a task set can end with: anything with a ``destroyed`` signal (a widget)."""

    @property
    def destroyed(self) -> Any: ...


class TaskSet:
    def __init__(self, owner: Owner | None = None) -> None:
        self._tasks: set[asyncio.Task] = set()
        self._named: dict[str, asyncio.Task] = {}
        self._children: weakref.WeakSet[TaskSet] = weakref.WeakSet()
        self.closed = False
        if owner is not None:  # anything with a ``destroyed`` signal (a widget): its tasks end with it
            owner.destroyed.connect(self._owner_gone)

    def child(self, owner: Owner | None = None) -> TaskSet:
        tasks = TaskSet(owner)
        self._children.add(tasks)
        return tasks

    def spawn(
        self, coro: Coroutine[Any, Any, Any], name: str | None = None, *, expected: tuple[type[BaseException], ...] = ()
    ) -> asyncio.Task:
        """Run ``coro`` as a task of this set. An exception of an ``expected`` type is left to
        whoever awaits the task (it says it to the user); any other is a crash to report."""
        if self.closed:
            coro.close()
            raise RuntimeError("this task set is closed: its owner has gone")
        task = asyncio.get_event_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(lambda t: self._done(t, expected))
        return task

    def replace(
        self, name: str, coro: Coroutine[Any, Any, Any], *, expected: tuple[type[BaseException], ...] = ()
    ) -> asyncio.Task:
        """Cancel the running task called ``name`` (if any) and start this one instead
        (``expected``: as ``spawn``'s)."""
        previous = self._named.get(name)
        if previous is not None and not previous.done():
            previous.cancel()
        task = self.spawn(coro, name, expected=expected)
        self._named[name] = task
        return task

    def _done(self, task: asyncio.Task, expected: tuple[type[BaseException], ...] = ()) -> None:
        self._tasks.discard(task)
        name = task.get_name()
        if self._named.get(name) is task:
            del self._named[name]
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None and not isinstance(exc, expected):  # unexpected: the hook reports it
            sys.excepthook(type(exc), exc, exc.__traceback__)

    def __len__(self) -> int:
        return len(self._tasks) + sum(len(c) for c in self._children)

    def _owner_gone(self, *_: object) -> None:
        self.closed = True
        self.cancel()

    def cancel(self) -> list[asyncio.Task]:
        """Cancel every task here and in the child sets (but the one calling); returns them."""
        try:
            current = asyncio.current_task()
        except RuntimeError:  # no running loop: called from Qt outside any task
            current = None
        tasks = [t for t in self._tasks if not t.done() and t is not current]
        for task in tasks:
            task.cancel()
        for child in list(self._children):
            tasks += child.cancel()
        return tasks

    async def cancel_all(self, timeout: float = 5.0) -> None:  # noqa: ASYNC109 (a bounded wait that returns, never cancels)
        """Cancel every task (children's too) and wait for them to end."""
        tasks = self.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
