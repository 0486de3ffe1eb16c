"""The Counter tab's top rows: this counter's name, *Rename counter…* and *Close shift…*;
below them, where the customer looks (``DisplayPlace``). The counter's settings it changes
(the name, the chosen screen) are saved off the GUI thread, by the controller."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from ...desk.counter import CounterController
from ...desk.tasks import TaskSet
from ...i18n import _
from ...ledger.counter import Shift
from ..dialogs import run_dialog
from ..elided import ElidedLabel
from .place import DisplayPlace

log = logging.getLogger("paydesk.counter.tools")


class CounterTools(QWidget):
    renamed = Signal()  # the counter has a new name: today's list is the renamed counter's

    def __init__(
        self, controller: CounterController, tasks: TaskSet, after_close: Callable[[], Awaitable[None]]
    ) -> None:
        """``after_close``: read again what Close shift… changed (awaited in its task)."""
        super().__init__()
        self.controller, self.tasks, self.after_close = controller, tasks, after_close
        self._closing: asyncio.Task | None = None  # Close shift… under way
        rows = QVBoxLayout(self)
        rows.setContentsMargins(0, 0, 0, 0)
        # two rows: the counter's own, then where the customer looks; in one, a language's
        # longer words made the tab wider than a 1024-pixel screen
        row, second = QHBoxLayout(), QHBoxLayout()
        rows.addLayout(row)
        rows.addLayout(second)
        # the counter goes by the desk's name, up to 40 characters: a long one is elided
        # (whole in its tooltip) rather than widening the window past its screen
        self.counter_name = ElidedLabel("")
        self.counter_name.setObjectName("counter-name")
        row.addWidget(self.counter_name)
        self.rename_button = QPushButton(_("Rename counter…"))
        self.rename_button.setObjectName("counter-rename")
        self.rename_button.setAccessibleName(_("Rename counter"))
        self.rename_button.clicked.connect(lambda: self.tasks.spawn(self.rename_counter(), "rename counter"))
        row.addWidget(self.rename_button)
        row.addStretch(1)
        self.place = DisplayPlace(tasks)
        self.place.chosen.connect(self._remember_screen)
        second.addWidget(self.place)
        self.close_shift_button = QPushButton(_("Close shift…"))
        self.close_shift_button.setObjectName("counter-close-shift")
        self.close_shift_button.setAccessibleName(_("Close shift"))
        self.close_shift_button.clicked.connect(self._close_shift_pressed)
        row.addWidget(self.close_shift_button)

    def say_name(self) -> None:
        text = _("Counter: {name}").format(name=self.controller.name)
        self.counter_name.setText(text)
        self.counter_name.setAccessibleName(text)

    def _close_shift_pressed(self) -> None:
        if self._closing is None or self._closing.done():  # one close at a time
            self._closing = self.tasks.spawn(self.close_shift(), "close shift")

    async def close_shift(self) -> Shift | None:
        from .report import close_shift  # built with the shift report, on first use

        shift = await close_shift(self.controller, self)
        await self.after_close()
        return shift

    async def rename_counter(self) -> int:
        from .rename import RenameDialog

        renamed = await run_dialog(RenameDialog(self.controller, self.tasks, self))
        if renamed:
            self.say_name()
            self.renamed.emit()
        return renamed

    def _remember_screen(self, name: str) -> None:
        if self.controller.settings.screen != name:
            self.tasks.replace("remember screen", self._save_screen(name))

    async def _save_screen(self, name: str) -> None:
        try:
            await self.controller.set_screen(name)
        except OSError as error:  # kept for this session only
            log.warning("the counter's settings could not be saved: %s", error)
