"""How the desk says that something changed, without Qt: one ``Hub`` of named events.

In the manner of FeelUOwn's ``utils/dispatch.py`` and Electrum's ``EventListener``: an
``Event`` keeps a list of receivers and calls each, in order, on the thread that emits (the
loop's). A receiver that raises is reported to ``sys.excepthook`` (the crash reporter in the
app) and the others still hear the event. The window bridges every event to a Qt signal in
one place (``ui/signals.py``), so a widget's slot ends with the widget; a headless desk
listens here directly.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

log = logging.getLogger("paydesk.events")
Receiver = Callable[..., Any]


class Event:
    """One kind of news. ``connect(receiver)``; ``emit(*args)`` calls every receiver."""

    def __init__(self, name: str):
        self.name = name
        self._receivers: list[Receiver] = []

    def connect(self, receiver: Receiver) -> None:
        if receiver not in self._receivers:
            self._receivers.append(receiver)

    def disconnect(self, receiver: Receiver) -> None:
        try:
            self._receivers.remove(receiver)
        except ValueError:
            pass

    def emit(self, *args: Any) -> None:
        for receiver in list(self._receivers):
            try:
                receiver(*args)
            except Exception:  # noqa: BLE001 - one receiver's fault is not the others'
                log.error("a receiver of %s failed (reported below)", self.name)
                sys.excepthook(*sys.exc_info())  # the app's hook logs and shows it, once

    def __repr__(self) -> str:
        return f"<Event {self.name}: {len(self._receivers)} receivers>"


class Hub:
    """Every event the desk sends. One hub per desk, shared by its session and controllers."""

    def __init__(self) -> None:
        # the session
        self.session_changed = Event("session_changed")  # active profile or mode, a profile edited
        self.call_finished = Event("call_finished")  # (text): the last call's result
        self.health_changed = Event("health_changed")  # (profile_id, mode)
        self.profile_deleted = Event("profile_deleted")  # (profile_id)
        self.ledger_busy = Event("ledger_busy")  # (bool): saving waits for another program
        self.keyring_waiting = Event("keyring_waiting")  # (bool): a keyring call takes human time
        # (text): the service's budget is tight ("" when it is not): desk/budgets.py
        self.service_busy = Event("service_busy")
        # a shared ledger (desk/live.py)
        self.ledger_reachable = Event("ledger_reachable")  # (bool): the shared ledger answers
        self.shared_status = Event("shared_status")  # (text): who checks payments / out of reach
        # links and payments
        self.record_changed = Event("record_changed")  # (LinkRecord): content or state changed
        self.record_settled = Event("record_settled")  # (LinkRecord): just reached a final state
        # cards
        self.card_changed = Event("card_changed")  # (CardRecord) as just stored
        self.cards_refreshed = Event("cards_refreshed")  # (profile_id, mode): the list was stored
        self.card_transactions_changed = Event("card_transactions_changed")  # (CardRecord)
        self.operation_changed = Event("operation_changed")  # (CardOperation)
        self.audit_added = Event("audit_added")  # (profile_id, mode)
        # notifications (receiver/): an inbox entry kept or decided, here or by another process
        self.notification_changed = Event("notification_changed")  # (InboxEntry)
        # a refused request traced (or a peer's counting begun), here or by another process:
        # the Notifications window counts them again
        self.refused_changed = Event("refused_changed")  # (the peer's address: str)
        # the counters (desk/counter.py): a sale made, voided or decided; a shift opened or
        # closed; here or by another desk on a shared ledger (ledger/counter.py)
        self.sale_changed = Event("sale_changed")  # (Sale)
        self.shift_changed = Event("shift_changed")  # (Shift)
        # bulk links (desk/bulk/runner.py): a batch's rows or progress changed (at most every
        # 100 ms per batch while it runs), here or by another desk (ledger/batch.py); its
        # rows' links say record_changed as well
        self.batch_changed = Event("batch_changed")  # (batch_id: int)
        self.request_changed = Event("request_changed")  # (request id: int): a sale request

    def events(self) -> dict[str, Event]:
        return {name: e for name, e in vars(self).items() if isinstance(e, Event)}
