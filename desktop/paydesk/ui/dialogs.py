"""Dialogs awaited without exec(): open() and a future; ``shown`` is the whole life of one
(open it, wait for it to close, cancel what it started, delete it)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager

from PySide6.QtWidgets import QDialog, QMessageBox, QWidget


async def finished(dialog: QDialog) -> int:
    """Open ``dialog`` window-modally and wait for its result code."""
    future: asyncio.Future[int] = asyncio.get_event_loop().create_future()

    def done(code: int) -> None:
        if not future.done():
            future.set_result(code)

    dialog.finished.connect(done)
    QDialog.open(dialog)  # QPrintDialog and QFileDialog overload open(receiver, member)
    try:
        return await future
    finally:
        dialog.finished.disconnect(done)


@asynccontextmanager
async def shown(dialog: QDialog, before: Awaitable[object] | None = None) -> AsyncIterator[int]:
    """Open ``dialog`` (after awaiting ``before``, e.g. what it must show first), and give its
    result code once it has closed. On leaving the block, whatever happened: the tasks it
    started (its ``tasks``, when it has a TaskSet) are cancelled and awaited, so nothing it
    started touches it once it is gone, and it is deleted. Read what the user chose inside
    the block, while the dialog still exists::

        async with shown(dialog) as code:
            if code:
                path = dialog.selectedFiles()[0]
    """
    try:
        if before is not None:
            await before
        yield await finished(dialog)
    finally:
        tasks = getattr(dialog, "tasks", None)
        if tasks is not None:
            await tasks.cancel_all()
        dialog.deleteLater()


async def run_dialog(dialog: QDialog, before: Awaitable[object] | None = None) -> int:
    """``shown`` for a dialog that does its own work: open it, wait until it has closed,
    cancel its tasks, delete it; its result code."""
    async with shown(dialog, before) as code:
        return code


async def confirm(
    parent: QWidget | None,
    title: str,
    text: str,
    informative: str,
    accept: str,
    reject: str,
    *,
    object_name: str = "confirm",
) -> bool:
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, parent=parent)
    box.setObjectName(object_name)
    box.setInformativeText(informative)
    yes = box.addButton(accept, QMessageBox.ButtonRole.AcceptRole)
    no = box.addButton(reject, QMessageBox.ButtonRole.RejectRole)
    for button in (yes, no):
        button.setAccessibleName(button.text().replace("&", ""))
    box.setDefaultButton(no)
    box.setEscapeButton(no)
    async with shown(box):
        return box.clickedButton() is yes
