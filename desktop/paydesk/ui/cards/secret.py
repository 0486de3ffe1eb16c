"""The full card number and security code: hidden until Reveal, hidden again after 30 s or
when the window loses focus, kept in memory only while shown, never in an accessible name
while hidden. Copy number puts the number on the clipboard and takes it off again after
30 s, unless something else was copied since."""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from PySide6.QtCore import QByteArray, QMimeData, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QWindow
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QPushButton, QWidget

from ...i18n import N_, _
from ...ledger import LedgerError
from ...service.errors import ServiceError
from ...service.models import VirtualCard
from ..fixed_text import use_fixed

log = logging.getLogger("paydesk.cards.secret")
HIDDEN_NUMBER, HIDDEN_CODE = N_("Card number hidden"), N_("Security code hidden")


def grouped(number: str) -> str:
    return " ".join(number[i : i + 4] for i in range(0, len(number), 4))


class SecretBox(QWidget):
    said = Signal(str)  # what happened, for the card page's message line

    show_for_ms = 30_000
    clear_after_ms = 30_000

    def __init__(
        self, fetch: Callable[[str], Awaitable[VirtualCard]], spawn: Callable[[Coroutine[Any, Any, Any], str], object]
    ) -> None:
        """``fetch(action)`` gets the card with its number from the service (and audits
        ``action``: "reveal" or "copy number"); ``spawn(coro, name)`` runs a task."""
        super().__init__()
        self._fetch, self._spawn = fetch, spawn
        self.masked = ""
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(QLabel(_("Card number")), 0, 0)
        self.number = QLabel()
        self.number.setObjectName("card-number")
        grid.addWidget(self.number, 0, 1)
        grid.addWidget(QLabel(_("Security code")), 1, 0)
        self.code = QLabel()
        self.code.setObjectName("card-cvv")
        use_fixed(self.number, self.code)
        grid.addWidget(self.code, 1, 1)
        buttons = QHBoxLayout()
        self.reveal_button = QPushButton(_("Reveal"))
        self.reveal_button.setObjectName("reveal-card")
        self.reveal_button.setAccessibleName(_("Reveal"))
        self.reveal_button.clicked.connect(self._toggle)
        buttons.addWidget(self.reveal_button)
        self.copy_button = QPushButton(_("Copy number"))
        self.copy_button.setObjectName("copy-card-number")
        self.copy_button.setAccessibleName(_("Copy number"))
        self.copy_button.clicked.connect(lambda: self._spawn(self.copy(), _("copy number")))
        buttons.addWidget(self.copy_button)
        buttons.addStretch(1)
        grid.addLayout(buttons, 2, 0, 1, 2)
        self._hide_timer = QTimer(self, singleShot=True)
        self._hide_timer.timeout.connect(self.conceal)
        self._clear_timer = QTimer(self, singleShot=True)
        self._clear_timer.timeout.connect(self._clear_clipboard)
        self._copied_digest: bytes | None = None
        self._salt = secrets.token_bytes(16)
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):  # always, in the window
            app.focusWindowChanged.connect(self._focus_moved)
        self.conceal()

    @property
    def shown(self) -> bool:
        return self._hide_timer.isActive()

    def set_card(self, masked: str) -> None:
        """Another card (or none) is on the page: whatever was shown goes."""
        self.masked = masked
        self.conceal()

    def conceal(self) -> None:
        self._hide_timer.stop()
        last4 = "".join(ch for ch in self.masked if ch.isdigit())[-4:]
        self.number.setText(f"•••• •••• •••• {last4}" if last4 else "••••")
        self.number.setAccessibleName(_(HIDDEN_NUMBER))
        self.code.setText("•••")
        self.code.setAccessibleName(_(HIDDEN_CODE))
        self.reveal_button.setText(_("Reveal"))
        self.reveal_button.setAccessibleName(_("Reveal"))

    def _toggle(self) -> None:
        if self.shown:
            self.conceal()
        else:
            self._spawn(self.reveal(), "reveal")

    async def reveal(self) -> bool:
        """Fetch the card again and show its number and code for ``show_for_ms``."""
        masked = self.masked
        try:
            card = await self._fetch("reveal")
        except ServiceError as error:
            self.said.emit(_("The card could not be revealed: {message}").format(message=error.message))
            return False
        except LedgerError as error:  # a shared ledger out of reach: not asked (audited)
            self.said.emit(str(error))
            return False
        if masked != self.masked or not card.card_pan:
            return False  # another card is on the page now, or the service gave no number
        window = self.window().windowHandle()
        if window is not None and QGuiApplication.focusWindow() not in (None, window):
            return False  # the window lost focus meanwhile: nothing is shown
        number, code = grouped(card.card_pan), card.cvv or "—"
        self.number.setText(number)
        self.number.setAccessibleName(number)
        self.code.setText(code)
        self.code.setAccessibleName(code)
        self.reveal_button.setText(_("Hide"))
        self.reveal_button.setAccessibleName(_("Hide"))
        self._hide_timer.start(self.show_for_ms)
        self.said.emit(
            _("Shown for {seconds} s, or until PayDesk loses focus").format(seconds=self.show_for_ms // 1000)
        )
        return True

    def _focus_moved(self, focused: QWindow | None) -> None:
        window = self.window().windowHandle()
        if self.shown and focused is not window:
            self.conceal()

    def _digest(self, text: str) -> bytes:
        return hashlib.sha256(self._salt + text.encode()).digest()

    async def copy(self) -> bool:
        """The full number on the clipboard, taken off after ``clear_after_ms``."""
        try:
            card = await self._fetch(_("copy number"))
        except ServiceError as error:
            self.said.emit(_("The number could not be copied: {message}").format(message=error.message))
            return False
        except LedgerError as error:
            self.said.emit(str(error))
            return False
        if not card.card_pan:
            return False
        copied = QMimeData()
        copied.setText(card.card_pan)
        # clipboard managers that keep a history leave out what is marked a secret
        copied.setData("x-kde-passwordManagerHint", QByteArray(b"secret"))
        QGuiApplication.clipboard().setMimeData(copied)
        self._copied_digest = self._digest(card.card_pan)  # to know it again, not to keep it
        self._clear_timer.start(self.clear_after_ms)
        self.said.emit(
            _("Card number copied; the clipboard is cleared in {seconds} s").format(seconds=self.clear_after_ms // 1000)
        )
        return True

    def forget(self) -> None:
        """PayDesk is closing (or the card page goes): hide the number now, and take it off
        the clipboard now rather than leave it there after PayDesk has gone."""
        self.conceal()
        self._clear_timer.stop()
        self._clear_clipboard()

    def _clear_clipboard(self) -> None:
        clipboard = QGuiApplication.clipboard()
        if self._copied_digest is not None and self._digest(clipboard.text()) == self._copied_digest:
            clipboard.clear()
            self.said.emit(_("The card number was cleared from the clipboard"))
        self._copied_digest = None
