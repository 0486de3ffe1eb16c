"""A widget's tasks end when it is destroyed (the ledger browser's own test:
tests/ui/transactions/test_browser.py::test_a_superseded_search_never_shows_its_rows). The
rest of TaskSet is Qt-free: tests/desk/test_tasks.py."""

import asyncio

from PySide6.QtWidgets import QWidget

from paydesk.desk.tasks import TaskSet


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
