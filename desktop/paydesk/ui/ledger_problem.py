"""At start, the shop's shared ledger cannot be opened (its server is down, the network is
cut, the password is missing or refused, no such database, TLS required): the window waits
for it, and this dialog says why in one sentence, tries again every few seconds by itself,
and lets the person quit or work on this computer's own ledger for this session (the saved
choice is not changed). When the server asks for the password, or refused the one kept, the
dialog asks for it right there: *Connect* tries it at once (app.py keeps it in the keyring
once it opened the ledger); it does not try again by itself meanwhile."""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..i18n import N_, _
from .field_message import add_field_row
from .fixed_text import use_fixed
from .screen_fit import keep_wrapped_height

RETRY_EVERY = 5.0  # s: how often the shared ledger is tried again while the dialog is up
WAITING, OWN, QUIT, CONNECT = 0, 1, 2, 3
RETRYING = N_("PayDesk tries again by itself every few seconds.")
KEPT = N_("The password is kept in this computer's keyring, never in a file.")
WIDTH = 600  # px at least: a refusal of the password, naming a long role, in two lines


class LedgerProblemDialog(QDialog):
    """``choice`` is WAITING until the person chooses; ``wake`` is set by every button (and
    by closing the dialog, which counts as Quit). CONNECT: a password was typed
    (``typed_password()``), to be tried at once."""

    def __init__(self, why: str, address: str, parent: QWidget | None = None, *, asks_password: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("ledger-problem")
        self.setWindowTitle(_("Shared ledger"))
        self.choice = WAITING
        self.wake = asyncio.Event()
        layout = QVBoxLayout(self)
        self.why = QLabel(why)
        self.why.setWordWrap(True)
        self.why.setAccessibleName(why)
        layout.addWidget(self.why)
        # the address, read-only: a long one scrolls in its box (and is copied whole from
        # it) rather than widening the dialog past its screen
        self.address = QLineEdit(address)
        self.address.setObjectName("ledger-problem-address")
        self.address.setAccessibleName(_("Address"))
        self.address.setReadOnly(True)
        self.address.setToolTip(address)
        self.address.setCursorPosition(0)
        use_fixed(self.address)  # an address is copied: 0 and O, 1 and l told apart
        where = QFormLayout()
        where.setContentsMargins(0, 0, 0, 0)
        caption = QLabel(_("Address"))
        caption.setBuddy(self.address)
        where.addRow(caption, self.address)
        layout.addLayout(where)
        self.asking = QWidget()  # the password, when the server asks for it
        form = QFormLayout(self.asking)
        form.setContentsMargins(0, 0, 0, 0)
        self.password = QLineEdit()
        self.password.setObjectName("ledger-problem-password")
        self.password.setAccessibleName(_("Password"))
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        use_fixed(self.password)
        self.password_message = add_field_row(form, _("&Password"), self.password, "ledger-problem-password", lines=2)
        layout.addWidget(self.asking)
        self.note = QLabel(_(RETRYING))
        self.note.setAccessibleName(_(RETRYING))
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        buttons = QHBoxLayout()
        self.connect_button = QPushButton(_("Connect"))
        self.try_again = QPushButton(_("Try again"))
        self.use_own = QPushButton(_("Use this computer's own ledger"))
        self.use_own.setToolTip(
            _(
                "For this session only: the records made meanwhile stay on this computer (import them into "
                "the shared ledger later)"
            )
        )
        self.quit = QPushButton(_("Quit"))
        for button, choice in (
            (self.connect_button, CONNECT),
            (self.try_again, WAITING),
            (self.use_own, OWN),
            (self.quit, QUIT),
        ):
            button.setAccessibleName(button.text())
            button.clicked.connect(lambda _checked=False, c=choice: self._choose(c))
            buttons.addWidget(button)
        layout.addLayout(buttons)
        self.setMinimumWidth(WIDTH)
        keep_wrapped_height(self)  # the why, wrapped, never squashes the password's field
        self._ask(asks_password)

    def _ask(self, asks_password: bool) -> None:
        """The password's row and Connect shown (and no retrying by itself), or not."""
        self.asks_password = asks_password
        self.asking.setVisible(asks_password)
        self.connect_button.setVisible(asks_password)
        self.try_again.setVisible(not asks_password)
        (self.connect_button if asks_password else self.try_again).setDefault(True)
        note = _(KEPT) if asks_password else _(RETRYING)
        self.note.setText(note)
        self.note.setAccessibleName(note)
        if asks_password:
            self.password.setFocus()

    def say(self, why: str, *, asks_password: bool = False) -> None:
        """Why the ledger cannot be opened; ``asks_password``: the password is asked for."""
        self.why.setText(why)
        self.why.setAccessibleName(why)
        self.password_message.say(None)
        self._ask(asks_password)

    def refused(self, why: str) -> None:
        """The password typed was not taken: said beside it, to be typed again."""
        self.password_message.say(why)
        self.password.selectAll()
        self.password.setFocus()

    def typed_password(self) -> str:
        return self.password.text()

    def _choose(self, choice: int) -> None:
        self.choice = choice
        self.wake.set()
        if choice in (OWN, QUIT):
            self.done(1)

    def reject(self) -> None:  # Escape or the window's close button: Quit
        self._choose(QUIT)

    async def next_try(self) -> None:
        """Until the next try is due, or the person pressed a button (while the password is
        asked for, until a button: trying again without one would only be refused again)."""
        try:
            await asyncio.wait_for(self.wake.wait(), None if self.asks_password else RETRY_EVERY)
        except TimeoutError:
            pass
        self.wake.clear()
