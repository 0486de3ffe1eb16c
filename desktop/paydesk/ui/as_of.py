"""A shared ledger out of reach: the views keep what they had, marked "as of 14:02" (local
time of when the ledger went, the engine's ``down_since``), cleared once it answers again.

One ``AsOf`` per view: it reads the current state when the view is built (a view built
while the ledger is already down is marked at once) and follows the hub's reachability
event (``ledgerReachable``) after that."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QObject, Signal

from ..desk.session import Session
from ..i18n import _
from .signals import signals_of


class AsOf(QObject):
    changed = Signal(str)  # "as of 14:02", or "" while the ledger answers

    def __init__(self, session: Session, parent: QObject):
        super().__init__(parent)
        self.session = session
        self.text = self._read()
        signals_of(session.hub).ledgerReachable.connect(self._reachable)

    def _read(self) -> str:
        """From the engine's ``down_since`` (carried by the desk's refusal while it is down)."""
        since = getattr(self.session.ledger_down(), "since", None)
        return _("as of {time:%H:%M}").format(time=since.astimezone()) if isinstance(since, datetime) else ""

    def _reachable(self, up: bool) -> None:
        text = "" if up else (self._read() or _("as of {time:%H:%M}").format(time=datetime.now()))
        if text != self.text:
            self.text = text
            self.changed.emit(text)

    def suffix(self) -> str:
        """ ", as of 14:02" to end a line with, or ""."""
        return f", {self.text}" if self.text else ""
