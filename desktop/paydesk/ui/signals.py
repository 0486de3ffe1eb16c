"""The one bridge from the desk's events (``desk/events.py``) to Qt signals.

Widgets connect here (``signals_of(session.hub)``), never to the hub: a Qt connection to a
widget's method ends when the widget is destroyed, which a receiver on the hub would not.
Connect methods, not lambdas: a lambda is not tied to the widget and outlives it.
"""

from __future__ import annotations

import weakref

from PySide6.QtCore import QObject, Signal

from ..desk.events import Hub


class DeskSignals(QObject):
    # the session
    changed = Signal()  # the active profile or mode changed, or a profile was edited
    callFinished = Signal(str)  # the last call's result, for the status bar
    healthChanged = Signal(str, str)  # (profile_id, mode): the connection's state changed
    profileDeleted = Signal(str)
    ledgerBusy = Signal(bool)  # saving waits for another program that holds the ledger
    keyringWaiting = Signal(bool)  # a keyring call takes human time (an unlock prompt)
    serviceBusy = Signal(str)  # the service's budget is tight: the status bar's words ("" gone)
    ledgerReachable = Signal(bool)  # the shared ledger answers (False: out of reach)
    sharedStatus = Signal(str)  # which desk checks payments, or since when the ledger is out of reach
    # links and payments
    linkChanged = Signal(object)  # a LinkRecord whose content or state changed
    linkSettled = Signal(object)  # a LinkRecord that just reached a final state
    # cards
    cardChanged = Signal(object)  # a CardRecord as just stored
    cardsRefreshed = Signal(str, str)  # (profile_id, mode): the service's list was stored
    transactionsChanged = Signal(object)  # a CardRecord whose transactions were stored
    operationChanged = Signal(object)  # a CardOperation: begun, lost, done or not done
    auditAdded = Signal(str, str)  # (profile_id, mode)
    # notifications
    notificationChanged = Signal(object)  # an InboxEntry kept or decided
    refusedChanged = Signal(str)  # a refused request traced, from this peer
    # the counters
    saleChanged = Signal(object)  # a Sale made, voided or decided (its link: linkChanged)
    shiftChanged = Signal(object)  # a Shift opened or closed
    # bulk links
    batchChanged = Signal(int)  # a batch's id: its rows or progress changed
    requestChanged = Signal(int)  # a key-less counter's sale request: written or answered

    BRIDGE = {
        "session_changed": "changed",
        "call_finished": "callFinished",
        "health_changed": "healthChanged",
        "profile_deleted": "profileDeleted",
        "ledger_busy": "ledgerBusy",
        "keyring_waiting": "keyringWaiting",
        "service_busy": "serviceBusy",
        "ledger_reachable": "ledgerReachable",
        "shared_status": "sharedStatus",
        "record_changed": "linkChanged",
        "record_settled": "linkSettled",
        "card_changed": "cardChanged",
        "cards_refreshed": "cardsRefreshed",
        "card_transactions_changed": "transactionsChanged",
        "operation_changed": "operationChanged",
        "audit_added": "auditAdded",
        "notification_changed": "notificationChanged",
        "refused_changed": "refusedChanged",
        "sale_changed": "saleChanged",
        "shift_changed": "shiftChanged",
        "batch_changed": "batchChanged",
        "request_changed": "requestChanged",
    }

    def __init__(self, hub: Hub, parent: QObject | None = None):
        super().__init__(parent)
        hooked = []
        for event_name, event in hub.events().items():
            emit = getattr(self, self.BRIDGE[event_name]).emit
            event.connect(emit)
            hooked.append((event, emit))

        def unhook(*_: object) -> None:  # not a method: this object is going
            for event, emit in hooked:
                event.disconnect(emit)

        self.destroyed.connect(unhook)


_bridges: weakref.WeakKeyDictionary[Hub, DeskSignals] = weakref.WeakKeyDictionary()


def signals_of(hub: Hub) -> DeskSignals:
    """The Qt signals of ``hub``'s events: one bridge per desk, made on first use (on the
    GUI thread), living as long as the desk's hub."""
    bridge = _bridges.get(hub)
    if bridge is None:
        bridge = _bridges[hub] = DeskSignals(hub)
    return bridge
