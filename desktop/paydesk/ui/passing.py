"""A refusal a view says goes when its cause goes: "Shared ledger unreachable since 14:02,
retrying" the moment the ledger answers again (``ledgerReachable``), "No test secret key for
Shop: add it in the profile editor" once the profile's keys change (the key store's change,
heard as the connection's health, or the profile saved). Until then it stays where the person
acted; a newer message said there meanwhile is left alone.

One ``Passing`` per view: ``said(where, text, error)`` after showing ``text`` in ``where`` (a
label, a field's message); ``clear`` when clearing is more than emptying the label.
``refused_now(where, say)``: before a write that opens a dialog (a file to save, a printer),
the desk's refusal (``Session.refusal``) said, and True: the dialog is not opened."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel

from ..desk.leases import NoKeyError
from ..desk.session import Session
from ..ledger import LedgerError
from .field_message import FieldMessage
from .signals import signals_of

LEDGER, KEYS = "ledger", "keys"


def cause_of(error: BaseException | None) -> str | None:
    """What has to change for ``error``'s refusal to go (None: nothing a view can hear)."""
    if isinstance(error, LedgerError):
        return LEDGER
    if isinstance(error, NoKeyError):
        return KEYS
    return None


def empty(where: QLabel) -> None:
    if isinstance(where, FieldMessage):
        where.say(None)
    else:
        where.setText("")
        where.setAccessibleName("")


class Passing(QObject):
    def __init__(self, session: Session, parent: QObject):
        super().__init__(parent)
        self.session = session
        self._said: list[tuple[str, QLabel, str, Callable[[], None] | None]] = []
        signals = signals_of(session.hub)
        signals.ledgerReachable.connect(self._reachable)
        signals.healthChanged.connect(self._health_changed)
        signals.changed.connect(self._profile_changed)

    def said(
        self, where: QLabel, text: str, error: BaseException | None, clear: Callable[[], None] | None = None
    ) -> None:
        """``text`` (``error``'s refusal) is shown in ``where``: taken back when its cause
        goes (``clear()``, or ``where`` emptied), if it is still what ``where`` says."""
        cause = cause_of(error)
        if cause is not None and text:
            self._said.append((cause, where, text, clear))

    def refused_now(self, where: QLabel, say: Callable[[str], None], clear: Callable[[], None] | None = None) -> bool:
        """While a write would be refused (a shared ledger out of reach): its sentence said
        with ``say`` (shown in ``where``) until the ledger answers again, and True."""
        text = self.session.refusal()
        if text is None:
            return False
        say(text)
        self._said.append((LEDGER, where, text, clear))
        return True

    def _gone(self, cause: str) -> None:
        kept = []
        for said in self._said:
            which, where, text, clear = said
            if which != cause:
                kept.append(said)
                continue
            try:
                still = where.text() == text
            except RuntimeError:  # the label was deleted with its window
                continue
            if still and clear is not None:
                clear()
            elif still:
                empty(where)
        self._said = kept

    def _reachable(self, up: bool) -> None:
        if up:
            self._gone(LEDGER)

    def _health_changed(self, profile_id: str, mode: str) -> None:
        profile = self.session.profile
        if (
            profile is not None
            and profile.id == profile_id
            and mode == self.session.mode
            and self.session.health.get(profile_id, mode).problem is None
        ):
            self._gone(KEYS)

    def _profile_changed(self) -> None:
        self._gone(KEYS)  # its keys saved with it, or another profile: said again if need be
