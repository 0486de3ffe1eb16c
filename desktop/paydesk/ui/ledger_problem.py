"""At start, the shop's shared ledger cannot be opened (its server is down, the network is
cut, the password is missing or refused): the window waits for it, and this dialog says why,
tries again every few seconds by itself, and lets the person quit or work on this
computer's own ledger for this session (the saved choice is not changed)."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from .fixed_text import use_fixed

RETRY_EVERY = 5.0  # s: how often the shared ledger is tried again while the dialog is up
WAITING, OWN, QUIT = 0, 1, 2


class LedgerProblemDialog(QDialog):
    """``choice`` is WAITING until the person chooses; ``wake`` is set by every button (and
    by closing the dialog, which counts as Quit)."""

    def __init__(self, why: str, address: str, parent=None):
        super().__init__(parent)
        self.setObjectName("ledger-problem")
        self.setWindowTitle("Shared ledger")
        self.choice = WAITING
        self.wake = asyncio.Event()
        layout = QVBoxLayout(self)
        self.why = QLabel(why)
        self.why.setWordWrap(True)
        self.why.setAccessibleName(why)
        layout.addWidget(self.why)
        self.address = QLabel(address)
        self.address.setAccessibleName(address)
        self.address.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        use_fixed(self.address)  # an address is copied: 0 and O, 1 and l told apart
        layout.addWidget(self.address)
        note = "PayDesk tries again by itself every few seconds."
        self.note = QLabel(note)
        self.note.setAccessibleName(note)
        layout.addWidget(self.note)
        buttons = QHBoxLayout()
        self.try_again = QPushButton("Try again")
        self.use_own = QPushButton("Use this computer's own ledger")
        self.use_own.setToolTip("For this session only: the records made meanwhile stay on "
                                "this computer (import them into the shared ledger later)")
        self.quit = QPushButton("Quit")
        for button, choice in ((self.try_again, WAITING), (self.use_own, OWN),
                               (self.quit, QUIT)):
            button.setAccessibleName(button.text())
            button.clicked.connect(lambda _=False, c=choice: self._choose(c))
            buttons.addWidget(button)
        self.try_again.setDefault(True)
        layout.addLayout(buttons)

    def say(self, why: str) -> None:
        self.why.setText(why)
        self.why.setAccessibleName(why)

    def _choose(self, choice: int) -> None:
        self.choice = choice
        self.wake.set()
        if choice != WAITING:
            self.done(1)

    def reject(self) -> None:  # Escape or the window's close button: Quit
        self._choose(QUIT)

    async def next_try(self) -> None:
        """Until the next try is due, or the person pressed a button."""
        try:
            await asyncio.wait_for(self.wake.wait(), RETRY_EVERY)
        except TimeoutError:
            pass
        self.wake.clear()
