"""One transaction in full: its state as a badge, the customer, money, references, times,
what the service said word for word behind "Details", and what can be done with it."""

from __future__ import annotations

import json
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...desk.formats import money_in, time_in
from ...desk.states import OPEN_STATES
from ...desk.texts import mode_word, received, utc_time
from ...i18n import N_, NP_, _, pgettext, staff
from ...ledger import LinkRecord
from .. import widgets
from ..elided import ElidedLabel, WrappedLabel
from ..fixed_text import use_fixed
from ..links.panel import paint_state, state_label

FIELDS = (  # (key, label: shown through _())
    ("tx_ref", N_("Reference")),
    ("reference", N_("Service reference")),
    ("customer", N_("Customer")),
    ("email", N_("E-mail")),
    ("amount", N_("Amount")),
    ("fee", N_("Fee")),
    ("received", N_("You receive")),
    ("mode", N_("Mode")),
    ("type", N_("Type")),
    ("origin", N_("Made")),
    ("by", N_("By")),
    ("title", N_("Title")),
    ("description", N_("Description")),
    ("logo", N_("Logo")),
    ("meta", N_("Extra information")),
    ("created", NP_("link", "Created")),  # a link's: "Créé le" (a card's is "Créée le")
    ("updated", N_("Updated")),
    ("checked", N_("Last checked")),
    ("learned", N_("Learned by")),
    ("voided", N_("Voided at counter")),
)
# rows shown only when they have something to say ("by": the person signed in who made it,
# none without staff)
ONLY_SAID = ("received", "by", "voided")
# how its state was learned (shown through pgettext("learned by", ...))
LEARNED = {"notification": NP_("learned by", "notification"), "check": NP_("learned by", "check")}
NOT_LEARNED = NP_("learned by", "not known")
FIXED = ("tx_ref", "reference", "logo")  # references and a URL: read back, typed, copied
# a reference is never broken (a line of its own, elided in its middle with the whole of it
# on hover); Copy reference and Copy service reference copy the whole
ONE_LINE = ("tx_ref", "reference")
# what may hold a word longer than the pane is wide (an address, a URL, a code typed by the
# shop): broken inside it rather than widening the pane, which would then scroll sideways
ANY_BREAK = ("email", "title", "description", "logo", "meta")
ACTIONS = (  # (key, text: shown through _()): buttons, named by their verb
    ("check", N_("Check now")),
    ("receipt-print", N_("Print receipt…")),
    ("receipt-pdf", N_("Save receipt as PDF…")),
    ("show-qr", N_("Show QR")),
    ("copy-link", N_("Copy link")),
)


def field_words(key: str, label: str) -> str:
    """A field's caption in the staff's language (Created in the context "link")."""
    return pgettext("link", label) if key == "created" else _(label)


def voided_text(record: LinkRecord) -> str:
    """When a counter's sale was voided there, and what that means now ("": no void)."""
    if record.voided_at is None:
        return ""
    when = time_in(record.voided_at, staff())
    if record.state in OPEN_STATES:
        return _("{when}: the customer can still pay it, and PayDesk still checks it").format(when=when)
    if record.state == "success":
        return _("{when}: paid after it (keep it or refund it on the Counter tab)").format(when=when)
    return when


def _plain(label: QLabel) -> QLabel:
    label.setTextFormat(Qt.TextFormat.PlainText)  # the service's words are text, never markup
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class DetailsPanel(QWidget):
    actionRequested = Signal(str, object)  # (action key, LinkRecord)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("transaction-details")
        self.setAccessibleName(_("Transaction details"))
        self.record: LinkRecord | None = None
        column = QVBoxLayout(self)
        self.state = state_label("transaction-state", 16)
        column.addWidget(self.state)
        self.message = WrappedLabel("")  # a file's path (Printed to a PDF file: ...) is long
        self.message.setObjectName("transaction-message")
        self.message.setStyleSheet("color: #3d2e00; background: #fff4ce; padding: 6px;")
        column.addWidget(self.message)
        grid = QGridLayout()
        self.values: dict[str, QLabel] = {}
        self.captions: dict[str, QLabel] = {}
        # the Copy buttons on a row of their own under the references, not beside them: a
        # third column took the room the values need in a pane of a 1024 px screen
        self.copy_ref = self._button("copy-reference", _("Copy reference"))
        self.copy_service_ref = self._button("copy-service-reference", _("Copy service reference"))
        self.copy_ref.clicked.connect(lambda: self._copy("tx_ref"))
        self.copy_service_ref.clicked.connect(lambda: self._copy("reference"))
        copies = QHBoxLayout()
        copies.addWidget(self.copy_ref)
        copies.addWidget(self.copy_service_ref)
        copies.addStretch(1)
        row = 0
        for key, label in FIELDS:
            caption = QLabel(_("{caption}:").format(caption=field_words(key, label)))
            self.captions[key] = caption
            value: QLabel
            if key in ONE_LINE:
                value = ElidedLabel("", mode=Qt.TextElideMode.ElideMiddle)
            elif key in ANY_BREAK:
                value = WrappedLabel("")
            else:
                value = _plain(QLabel(""))
            value.setObjectName(f"transaction-{key}")
            caption.setBuddy(value)
            grid.addWidget(caption, row, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(value, row, 1)
            self.values[key] = value
            row += 1
            if key == "reference":
                grid.addLayout(copies, row, 0, 1, 2)
                row += 1
        grid.setColumnStretch(1, 1)
        use_fixed(*(self.values[key] for key in FIXED))
        column.addLayout(grid)
        actions = QGridLayout()
        self.buttons: dict[str, QPushButton] = {}
        for i, (key, text) in enumerate(ACTIONS):
            button = self._button(key, _(text))
            button.clicked.connect(
                lambda _checked=False, k=key: self.record and self.actionRequested.emit(k, self.record)
            )
            actions.addWidget(button, i // 2, i % 2)  # two a row: the pane stays narrow
            self.buttons[key] = button
        column.addLayout(actions)
        self.details = self._button("raw-toggle", _("Details"))
        self.details.setCheckable(True)
        self.details.setToolTip(_("What the service said, word for word"))
        column.addWidget(self.details, 0, Qt.AlignmentFlag.AlignLeft)
        self.raw = QPlainTextEdit()
        self.raw.setObjectName("transaction-raw")
        self.raw.setAccessibleName(_("The service's answer"))
        self.raw.setReadOnly(True)
        self.raw.hide()
        self.details.toggled.connect(self.raw.setVisible)
        column.addWidget(self.raw, 1)
        column.addStretch(0)
        self.show_record(None)

    def _button(self, name: str, text: str) -> QPushButton:
        return widgets.button(text, name)

    def _copy(self, key: str) -> None:
        if self.record is not None:
            QGuiApplication.clipboard().setText(self.values[key].text())

    def say(self, text: str | None) -> None:
        self.message.setText(text or "")
        self.message.setAccessibleName(text or "")
        self.message.setVisible(bool(text))

    def show_record(self, record: LinkRecord | None, message: str | None = None) -> None:
        self.record = record
        self.say(message)
        has = record is not None
        for button in (self.copy_ref, self.copy_service_ref, *self.buttons.values(), self.details):
            button.setEnabled(has)
        if record is None:
            self.state.setText("")
            self.state.setStyleSheet("")
            self.state.setAccessibleName(_("No transaction shown"))
            for value in self.values.values():
                value.setText("")
                value.setAccessibleName("")
            for key in ONLY_SAID:
                self.values[key].hide()
                self.captions[key].hide()
            self.raw.setPlainText("")
            return
        paint_state(self.state, record)
        raw = record.raw or {}
        custom = record.customization
        words = staff()
        texts = {
            "tx_ref": record.tx_ref,
            "reference": record.reference or _("not known yet"),
            "customer": record.customer,
            "email": record.email,
            "amount": money_in(record.amount, record.currency, words)
            if record.currency
            else _("not known yet (the service shows it once paid)"),
            "fee": money_in(record.fee, record.currency, words)
            if record.fee is not None
            else words.pgettext("fee", "not known"),
            "received": (
                _(
                    "{amount}: the amount less the fee, as the service reports it (the fee is passed to the customer)"
                ).format(amount=money_in(kept, record.currency, words))
                if (kept := received(record)) is not None
                else ""
            ),
            "mode": mode_word(record.mode, words),
            "type": str(raw.get("type") or ""),
            "origin": _("here, as a payment link")
            if record.origin == "link"
            else _("elsewhere (website form or inline checkout); looked up here"),
            "by": record.actor or "",
            "title": custom.get("title") or "",
            "description": custom.get("description") or "",
            "logo": custom.get("logo") or "",
            "meta": ", ".join(f"{k}: {v}" for k, v in record.meta.items()),
            "created": time_in(record.created_at, words),
            "updated": time_in(record.updated_at, words),
            "checked": time_in(record.checked_at, words) if record.checked_at else _("never"),
            "learned": words.pgettext("learned by", LEARNED.get(record.learned_by or "", NOT_LEARNED)),
            "voided": voided_text(record),
        }
        hover = {
            "created": utc_time(record.created_at),
            "updated": utc_time(record.updated_at),
            "checked": utc_time(record.checked_at),
            "voided": utc_time(record.voided_at),
            "learned": _(
                "How PayDesk learned its state: a notification from the service, or a check (a lookup) of its own"
            ),
        }
        labels = dict(FIELDS)
        for key, value in self.values.items():
            value.setText(texts[key])
            value.setAccessibleName(_("{what}: {value}").format(what=field_words(key, labels[key]), value=texts[key]))
            value.setToolTip(hover.get(key, ""))
            if key in ONLY_SAID:
                value.setVisible(bool(texts[key]))
                self.captions[key].setVisible(bool(texts[key]))
        self.copy_service_ref.setEnabled(bool(record.reference))
        self.buttons["receipt-print"].setEnabled(record.state == "success")
        self.buttons["receipt-pdf"].setEnabled(record.state == "success")
        self.buttons["show-qr"].setEnabled(bool(record.checkout_url))
        self.buttons["copy-link"].setEnabled(bool(record.checkout_url))
        self.raw.setPlainText(
            json.dumps(raw, indent=2, ensure_ascii=False) if raw else _("The service has not been asked about it yet.")
        )

    def update_record(self, record: LinkRecord) -> None:
        """The record shown, changed (not by a word older than the one shown, heard late)."""
        if self.record is not None and self.record.key == record.key and not record.older_than(self.record):
            same_state = (record.state, record.state_raw) == (self.record.state, self.record.state_raw)
            message = self.message.text() if self.message.isVisible() and same_state else None
            if record.raw_json is None and self.record.raw_json is not None:
                record = replace(record, raw_json=self.record.raw_json)
            self.show_record(record, message)
