"""Dialogs awaited without exec(): open() and a future."""

from __future__ import annotations

import asyncio

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


async def confirm(parent: QWidget | None, title: str, text: str, informative: str,
                  accept: str, reject: str, *, object_name: str = "confirm") -> bool:
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, parent=parent)
    box.setObjectName(object_name)
    box.setInformativeText(informative)
    yes = box.addButton(accept, QMessageBox.ButtonRole.AcceptRole)
    no = box.addButton(reject, QMessageBox.ButtonRole.RejectRole)
    for button in (yes, no):
        button.setAccessibleName(button.text().replace("&", ""))
    box.setDefaultButton(no)
    box.setEscapeButton(no)
    await finished(box)
    result = box.clickedButton() is yes
    box.deleteLater()
    return result
