"""Where PayDesk's file dialogs open: the folder the user last saved into in this session,
else their Documents folder (QStandardPaths), else their home. Never the working folder
PayDesk happened to be started from."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog

_last: Path | None = None  # the folder of the last file saved through a dialog (this session)


def documents() -> Path:
    found = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(found) if found else Path.home()


async def start_folder() -> Path:
    """The folder a save dialog opens in (checked off the GUI thread: it may be a network
    folder that takes its time)."""
    for folder in (_last, documents(), Path.home()):
        if folder is not None and await asyncio.to_thread(folder.is_dir):
            return folder
    return Path.home()


async def open_in_start_folder(dialog: QFileDialog, name: str) -> None:
    """Point ``dialog`` at the start folder, with ``name`` proposed."""
    folder = await start_folder()
    dialog.setDirectory(str(folder))
    dialog.selectFile(str(folder / name))


def remember(path: str | Path) -> None:
    """A file was chosen: the next dialog opens in its folder."""
    global _last
    _last = Path(path).parent
