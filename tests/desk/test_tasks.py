"""Tasks belong to their owners (desk/tasks.py, no Qt): a named task replaces its
predecessor (search as you type), a set's children end with it, and a failure nobody
expected is reported. That a widget's tasks end when it is destroyed needs a widget:
tests/ui/test_tasks.py."""

import asyncio
import sys

import pytest

from paydesk.desk.tasks import TaskSet


async def test_a_named_task_replaces_its_predecessor(until):
    tasks = TaskSet()
    finished = []

    async def search(term):
        await asyncio.sleep(0.2)
        finished.append(term)

    first = tasks.replace("search", search("lov"))
    second = tasks.replace("search", search("love"))
    await until(second.done, message="the newer search")
    assert first.cancelled() and finished == ["love"]
    other = tasks.replace("export", search("export"))  # another name runs beside it
    third = tasks.replace("search", search("lovel"))
    await until(lambda: other.done() and third.done(), message="both")
    assert not other.cancelled() and finished == ["love", "export", "lovel"]


async def test_cancelling_a_set_ends_its_childrens_tasks_too():
    session = TaskSet()
    child = session.child()
    forever = [session.spawn(asyncio.sleep(30), "own"), child.spawn(asyncio.sleep(30), "child's")]
    assert len(session) == 2
    await session.cancel_all()
    assert all(task.cancelled() for task in forever) and len(session) == 0


async def test_an_unexpected_failure_is_reported_an_expected_one_is_not(monkeypatch):
    reported = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, error, tb: reported.append(error))
    tasks = TaskSet()

    async def fail(error):
        raise error

    expected = tasks.spawn(fail(LookupError("said to the user")), expected=(LookupError,))
    unexpected = tasks.spawn(fail(RuntimeError("a bug")))
    await asyncio.wait([expected, unexpected])
    await asyncio.sleep(0)  # the done callbacks
    assert [str(e) for e in reported] == ["a bug"]
    tasks.closed = True  # what its owner's end does
    coro = asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="closed"):
        tasks.spawn(coro)
