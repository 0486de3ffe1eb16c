"""Waiting in tests for something to happen: one way, with a message naming what was awaited.

``until`` polls from plain code (a sandbox's notifications, a helper process, a file);
``until_async`` polls inside a coroutine, so the loop goes on meanwhile (for a GUI test
the qasync loop processes Qt events; ``tests/ui/conftest.py``'s ``loop.until`` delegates
here). Both return the predicate's first true value, and fail with ``TimedOut`` (an
AssertionError) naming ``what`` when the time is up. No Qt: the Qt-free tier imports it.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


class TimedOut(AssertionError):
    """What a test waited for did not happen in time."""


def _failure(what: str, timeout: float) -> TimedOut:
    return TimedOut(f"timed out after {timeout:g} s waiting for {what}")


def until(predicate: Callable[[], T], timeout: float = 10.0, what: str = "condition", *, every: float = 0.02) -> T:
    """Call ``predicate`` every ``every`` s until it returns something true; return that."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise _failure(what, timeout)
        time.sleep(every)


async def until_async(
    predicate: Callable[[], T | Awaitable[T]],
    timeout: float = 10.0,  # noqa: ASYNC109 (a poll's deadline: fails saying what)
    what: str = "condition",
    *,
    every: float = 0.01,
) -> T:
    """As ``until``, awaiting between calls; ``predicate`` may be a coroutine function
    (e.g. a read of the ledger)."""
    deadline = time.monotonic() + timeout
    while True:
        value: Any = predicate()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise _failure(what, timeout)
        await asyncio.sleep(every)
