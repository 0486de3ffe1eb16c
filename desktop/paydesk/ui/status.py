"""The status bar: the last call's result, the connection's state ("Checked 12 s ago",
"Offline since 14:02, retrying"), saving delayed while another program holds the
ledger, and on a shared ledger which desk checks payments (or since when it is out of
reach). Words as on screen (PAID, never "success"). Each is a one-line label elided where
the bar is short of room, the whole text in its tooltip: a long message never widens the
window."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QStatusBar

from ..desk.session import Session
from ..i18n import N_, _
from .elided import ElidedLabel
from .signals import signals_of

SAVING_DELAYED = N_("Saving is delayed: the ledger is busy")
KEYRING_WAITING = N_("Waiting for the system keyring: unlock it if your desktop asks")
NOTICE = "color: #3d2e00; background: #fff4ce; padding: 0 6px;"


def _label(name: str, accessible: str, style: str = "") -> ElidedLabel:
    label = ElidedLabel("")
    label.setObjectName(name)
    label.setAccessibleName(accessible)
    if style:
        label.setStyleSheet(style)
    return label


class StatusLine(QStatusBar):
    def __init__(self, session: Session):
        super().__init__()
        self.session = session
        self.last_call = _label("status-last-call", _("Last call"))
        self.last_call.setText(_("Ready"))
        self.addWidget(self.last_call, 1)
        self.saving = _label("status-saving", _(SAVING_DELAYED), "color: #3d2e00; background: #fff4ce; padding: 0 6px;")
        self.saving.setText(_(SAVING_DELAYED))
        self.saving.hide()
        self.addPermanentWidget(self.saving)
        self.keyring = _label(
            "status-keyring", _(KEYRING_WAITING), "color: #3d2e00; background: #fff4ce; padding: 0 6px;"
        )
        self.keyring.setText(_(KEYRING_WAITING))
        self.keyring.hide()
        self.addPermanentWidget(self.keyring)
        # the service's budget is tight: "Service busy: background checks slowed; 12 of 60..."
        self.busy = _label("status-service-busy", _("Service busy"), NOTICE)
        self.busy.hide()
        self.addPermanentWidget(self.busy)
        self.shared = _label("status-shared-ledger", _("Shared ledger"))  # a shared ledger's news
        self.shared.hide()
        self.addPermanentWidget(self.shared)
        self.notifications: QLabel | None = None  # when the last notification came (add_notifications)
        self.connection = _label("status-connection", _("Connection"))
        self.addPermanentWidget(self.connection)
        self.where = _label("status-where", _("Profile"))
        self.addPermanentWidget(self.where)
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self.refresh_connection)
        self._tick.start()
        signals = signals_of(session.hub)
        signals.callFinished.connect(self.call_finished)
        signals.healthChanged.connect(self._health_changed)  # a method: gone with the bar
        signals.ledgerBusy.connect(self.saving.setVisible)
        signals.keyringWaiting.connect(self.keyring.setVisible)
        signals.sharedStatus.connect(self.shared_status)
        signals.serviceBusy.connect(self.service_busy)

    def add_notifications(self, label: QLabel) -> None:
        """The notifications' word ("Last notification 2 min ago"), left of the connection's."""
        self.notifications = label
        # Qt counts the last call's (the one widget that is not permanent) and the four
        # notices before the connection
        self.insertPermanentWidget(5, label)

    def shared_status(self, text: str) -> None:
        """Which desk checks payments, or "Shared ledger unreachable since 14:02, retrying"."""
        self.shared.setText(text)
        self.shared.setAccessibleName(_("Shared ledger: {text}").format(text=text) if text else _("Shared ledger"))
        self.shared.setVisible(bool(text))

    def service_busy(self, text: str) -> None:
        """ "Service busy: background checks slowed; 12 of 60 calls left this minute" while the
        service's budget is tight; hidden when it no longer is ("")."""
        self.busy.setText(text)
        self.busy.setAccessibleName(text or _("Service busy"))
        self.busy.setVisible(bool(text))

    def call_finished(self, text: str) -> None:
        self.last_call.setText(text)
        self.last_call.setAccessibleName(_("Last call: {text}").format(text=text))

    def _health_changed(self, profile_id: str, mode: str) -> None:
        self.refresh_connection()

    def refresh_connection(self) -> None:
        text = self.session.connection_words()
        if text != self.connection.text():
            self.connection.setText(text)
            self.connection.setAccessibleName(_("Connection: {text}").format(text=text) if text else _("Connection"))
        self.connection.setVisible(bool(text))
