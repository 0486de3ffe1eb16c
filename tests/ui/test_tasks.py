"""Tasks belong to their owners: a named task replaces its predecessor (search as you type),
and a widget's tasks end when it is destroyed (the ledger browser's own test:
tests/ui/transactions/test_browser.py::test_a_superseded_search_never_shows_its_rows)."""

import asyncio

from PySide6.QtWidgets import QWidget

from paydesk.desk.tasks import TaskSet


def test_a_named_task_replaces_its_predecessor(loop):
    tasks = TaskSet()
    finished = []

    async def search(term):
        await asyncio.sleep(0.2)
        finished.append(term)

    first = tasks.replace("search", search("lov"))
    second = tasks.replace("search", search("love"))
    loop.until(second.done, message="the newer search")
    assert first.cancelled() and finished == ["love"]
    other = tasks.replace("export", search("export"))  # another name runs beside it
    third = tasks.replace("search", search("lovel"))
    loop.until(lambda: other.done() and third.done(), message="both")
    assert not other.cancelled() and finished == ["love", "export", "lovel"]


def test_a_widgets_tasks_end_with_it(loop):
    session = TaskSet()
    widget = QWidget()
    tasks = session.child(widget)
    started = asyncio.Event()

    async def save():
        started.set()
        await asyncio.sleep(30)

    task = tasks.spawn(save(), "save")
    loop.run(started.wait())
    widget.deleteLater()
    loop.until(task.done, message="the task ended with its widget")
    assert task.cancelled() and tasks.closed

