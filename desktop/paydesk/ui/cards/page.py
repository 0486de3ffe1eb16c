"""A card's page: its details, the hidden number, its operations and its transactions."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QGridLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...desk.cards import words
from ...desk.cards.controller import CardsController
from ...desk.session import Session
from ...desk.tasks import TaskSet
from ...i18n import N_, NP_, _, pgettext
from ...ledger import LedgerError
from ...ledger.cards import CardLedger, CardOperation, CardRecord, CardTxRecord
from ...service.errors import NotFoundError, ServiceError
from ...service.models import VirtualCard
from .. import widgets
from ..elided import WrappedLabel
from ..fixed_text import use_fixed
from ..passing import Passing
from ..signals import signals_of
from ..table import AMOUNT_SAMPLE, RIGHT, Column, HeadedModel, fit_columns
from .secret import SecretBox

# a card transaction's time is a day and an hour (a statement's "Date" in French)
TX_COLUMNS = (N_("Type"), N_("Amount"), N_("Description"), NP_("card statement", "Time"))
DETAILS = (
    ("name", N_("Name on card")),
    ("balance", N_("Balance")),
    ("state", N_("State")),
    ("expires", N_("Expires")),
    ("created", N_("Created")),
    ("issued", N_("Issued with")),
    ("callback", N_("Notification URL")),
    ("seen", N_("As of")),
)
# a transaction's type as the service says it, and as a person reads it
TX_TYPES = {"credit": N_("Credit"), "debit": N_("Debit")}


def credit(tx: CardTxRecord) -> bool:
    return tx.type.lower() == "credit"


def tx_type(tx: CardTxRecord) -> str:
    """Credit or Debit in the staff's language; another type as the service said it."""
    known = TX_TYPES.get((tx.type or "").lower())
    return _(known) if known else tx.type or "—"


class TransactionsModel(HeadedModel):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[CardTxRecord] = []
        self.money: Callable[[Decimal | None], str] = str
        self.columns = (
            Column(_(TX_COLUMNS[0]), tx_type),
            Column(
                _(TX_COLUMNS[1]),
                lambda tx: ("+" if credit(tx) else "−") + self.money(tx.amount),
                align=RIGHT,
                colour=lambda tx: "#1b7f3b" if credit(tx) else "#b3261e",
            ),
            Column(_(TX_COLUMNS[2]), lambda tx: tx.description),
            Column(pgettext("card statement", TX_COLUMNS[3]), lambda tx: words.when(tx.created_at, seconds=True)),
        )

    def listed(self) -> list[CardTxRecord]:
        return self.rows

    def load(self, rows: list[CardTxRecord], money: Callable[[Decimal | None], str]) -> None:
        self.beginResetModel()
        self.rows, self.money = rows, money
        self.endResetModel()


class CardPage(QWidget):
    fundRequested = Signal()
    withdrawRequested = Signal()
    terminateRequested = Signal()

    def __init__(self, session: Session, controller: CardsController, ledger: CardLedger, tasks: TaskSet):
        super().__init__()
        self.setObjectName("card-page")
        self.session, self.controller, self.ledger, self.tasks = session, controller, ledger, tasks
        self.passing = Passing(session, self)  # a reading's refusal goes with its cause
        self.record: CardRecord | None = None
        self.open_operation: CardOperation | None = None
        self.busy = False  # an operation started from here has not returned yet
        self._last_block = 0.0  # when Block/Unblock was last pressed (monotonic)
        self._not_read_said = False  # the message says the card's state is not read yet
        column = QVBoxLayout(self)
        self.title = QLabel(_("Select a card"))
        self.title.setObjectName("card-title")
        self.title.setWordWrap(True)  # never wider than the pane, in any language
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        self.title.setFont(font)
        column.addWidget(self.title)
        grid = QGridLayout()
        self.values: dict[str, QLabel] = {}
        # values wrap (a long name, what it was issued with), never widening the page past
        # its pane, where it would scroll sideways; the URL is broken anywhere
        for row, (key, caption) in enumerate(DETAILS):
            grid.addWidget(QLabel(_(caption)), row, 0, Qt.AlignmentFlag.AlignTop)
            value: QLabel
            if key == "callback":
                value = WrappedLabel("")
            else:
                value = QLabel("")
                value.setWordWrap(True)
                value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setObjectName(f"card-{key}")
            grid.addWidget(value, row, 1)
            self.values[key] = value
        use_fixed(self.values["callback"])
        grid.setColumnStretch(1, 1)
        column.addLayout(grid)
        self.secret = SecretBox(self._reveal, self.tasks.spawn)
        self.secret.said.connect(self.say)
        column.addWidget(self.secret)
        actions = QGridLayout()  # three a row: the page stays as narrow as its pane
        self.buttons: dict[str, QPushButton] = {}
        for i, (key, label) in enumerate(
            (
                ("fund", _("Fund…")),
                ("withdraw", _("Withdraw…")),
                ("block", _("Block")),
                ("terminate", _("Terminate…")),
                ("reload", _("Refresh card")),
            )
        ):
            button = QPushButton(label)
            button.setObjectName(f"card-{key}")
            button.setAccessibleName(label.rstrip("…"))
            actions.addWidget(button, i // 3, i % 3)
            self.buttons[key] = button
        actions.setColumnStretch(3, 1)
        column.addLayout(actions)
        self.buttons["fund"].clicked.connect(self.fundRequested)
        self.buttons["withdraw"].clicked.connect(self.withdrawRequested)
        self.buttons["terminate"].clicked.connect(self.terminateRequested)
        self.buttons["block"].clicked.connect(lambda: self.tasks.spawn(self.toggle_block(), "block"))
        self.buttons["reload"].clicked.connect(lambda: self.tasks.replace("card", self.reload()))
        self.message = QLabel("")
        self.message.setObjectName("card-message")
        self.message.setWordWrap(True)
        column.addWidget(self.message)
        tx_caption = QLabel(_("Card transactions"))
        column.addWidget(tx_caption)
        self.tx_model = TransactionsModel()
        self.transactions = widgets.record_table("card-transactions", self.tx_model, _("Card transactions"))
        tx_caption.setBuddy(self.transactions)
        # the description takes what the others leave: the list never scrolls sideways
        fit_columns(
            self.transactions,
            (
                (_(TX_TYPES["credit"]), _(TX_TYPES["debit"])),
                "−" + AMOUNT_SAMPLE,
                "",
                words.when(datetime(2026, 12, 28, 23, 58, 58, tzinfo=UTC), seconds=True),
            ),
            2,
        )
        column.addWidget(self.transactions, 1)
        signals = signals_of(session.hub)
        signals.cardChanged.connect(self.update_card)
        signals.transactionsChanged.connect(self._transactions_changed)  # a method: ends with the page
        signals.operationChanged.connect(self._operation_changed)
        self.show_card(None)

    def _transactions_changed(self, record: CardRecord) -> None:
        if record.key == self._key():
            self.tasks.replace("transactions", self._read(self._transactions))

    def _key(self) -> tuple[str, str, str] | None:
        return self.record.key if self.record else None

    async def _reveal(self, action: str) -> VirtualCard:
        """The shown card with its number, from the service (the box shows only beside a card)."""
        record = self.record
        if record is None:
            raise NotFoundError(_(words.GONE))
        return await self.controller.reveal(record, action)

    def say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setAccessibleName(text)
        self._not_read_said = False

    # -- what is shown --------------------------------------------------------------------

    def show_card(self, record: CardRecord | None) -> None:
        same = record is not None and record.key == self._key()
        self.record = record
        if not same:
            self.secret.set_card(record.masked if record else "")
            self.open_operation = None
            self.say("")
        self._fill()
        if record is not None and not same:
            self.tasks.replace("transactions", self._read(self._transactions))
            self.tasks.spawn(self._read(lambda: self._open_operation(record)), "open operation")

    async def _read(self, reading: Callable[[], Awaitable[None]]) -> None:
        """A reading of the card's ledger lines; a shared ledger out of reach is said on the
        page (its sentence) until it answers, and the card read again then."""
        try:
            await reading()  # begun here: a reading replaced before it starts is never made
        except LedgerError as error:
            self.say(str(error))
            record = self.record
            self.passing.said(self.message, str(error), error, lambda: self._read_again(record))

    def _read_again(self, record: CardRecord | None) -> None:
        self.say("")
        if record is not None and record.key == self._key():
            self.tasks.replace("transactions", self._read(self._transactions))
            self.tasks.spawn(self._read(lambda: self._open_operation(record)), "open operation")

    def update_card(self, record: CardRecord) -> None:
        if record.key == self._key():
            self.record = record
            self._fill()

    def _fill(self) -> None:
        record = self.record
        self.setEnabled(True)
        profile = self.session.settings.profile(record.profile_id) if record else None
        if record is None:
            self.title.setText(_("Select a card, or create one"))
            for (_key, caption), value in zip(DETAILS, self.values.values()):
                value.setText("")
                value.setAccessibleName(_(caption))
                value.setToolTip("")
            self.secret.setVisible(False)
            for button in self.buttons.values():
                button.setEnabled(False)
            self.tx_model.load([], str)
            return
        self.secret.setVisible(True)
        self.title.setText(_("Card {card}").format(card=record.masked))
        badge = words.badge(record.state)
        expires, expired = words.expiry(record)
        texts = {
            "name": record.name_on_card,
            "state": badge.words,
            "expires": expires,
            "balance": words.card_money(profile, record, record.balance),
            "created": words.when(record.created_at),
            "issued": words.issued(profile, record),
            "callback": words.callback(record.callback),
            "seen": (
                words.when(record.seen_at, seconds=True)
                if record.listed
                else _("{when} (no longer in the service's list)").format(when=words.when(record.seen_at, seconds=True))
            ),
        }
        captions = dict(DETAILS)
        for key, text in texts.items():
            self.values[key].setText(text)
            self.values[key].setAccessibleName(_("{caption}: {value}").format(caption=_(captions[key]), value=text))
        self.values["state"].setStyleSheet(f"color: {badge.colour}; font-weight: 700;")
        self.values["expires"].setStyleSheet("color: #b3261e;" if expired else "")
        if record.state is None:  # the service has not said it (see words.NOT_READ)
            self.say(_(words.NOT_READ_HINT))
            self._not_read_said = True
        elif self._not_read_said:  # read since: the hint goes (another sentence stays)
            self.say("")
        unknown = words.currency_of(profile, record.currency_code) is None
        self.values["balance"].setToolTip(words.unknown_code_hint(record.currency_code) if unknown else "")
        self._buttons()

    def _buttons(self) -> None:
        record = self.record
        blocked = record is not None and record.state == 2
        block = self.buttons["block"]
        block.setText(_("Unblock") if blocked else _("Block"))
        block.setAccessibleName(block.text())
        free = record is not None and not self.busy and (self.open_operation is None or not self.open_operation.open)
        usable = free and record is not None and record.state in (1, 2)
        for key in ("fund", "withdraw"):
            self.buttons[key].setEnabled(usable and not blocked)
        block.setEnabled(usable)
        self.buttons["terminate"].setEnabled(usable)
        self.buttons["reload"].setEnabled(record is not None)

    async def _transactions(self) -> None:
        record = self.record
        if record is None:
            return
        rows = await self.ledger.transactions(record.profile_id, record.mode, record.card_hash)
        if record.key == self._key():
            profile = self.session.settings.profile(record.profile_id)
            self.tx_model.load(rows, lambda amount: words.card_money(profile, record, amount))

    async def _open_operation(self, record: CardRecord) -> None:
        """An operation of this card still open (being settled) disables its buttons."""
        ops = await self.ledger.operations(record.profile_id, record.mode, record.card_hash, limit=1)
        if ops and ops[0].open and record.key == self._key():
            self._operation_changed(ops[0])

    def _operation_changed(self, op: CardOperation) -> None:
        if self.record is None or (op.profile_id, op.mode, op.card_hash) != self.record.key:
            return
        self.open_operation = op
        said = words.outcome(op)
        if op.kind == "block" and op.state == "done":
            said = _("{outcome} Press Unblock to undo.").format(outcome=said)
        self.say(said)
        self._buttons()

    # -- actions --------------------------------------------------------------------------

    async def reload(self) -> None:
        """The card and its transactions from the service, now."""
        record = self.record
        if record is None:
            return
        profile = self.session.settings.profile(record.profile_id)
        if profile is None:  # its profile was removed meanwhile
            self.say(_(words.GONE))
            return
        try:
            await self.controller.load_card(profile, record.mode, record.card_hash)
        except LedgerError as error:  # a shared ledger out of reach: not asked; said
            self.say(str(error))  # until it answers
            self.passing.said(self.message, str(error), error)
        except NotFoundError:
            self.say(_(words.GONE))
        except ServiceError as error:
            self.say(
                _("The card could not be read from the service: {message}. Shown as of {when}.").format(
                    message=error.message, when=words.when(record.seen_at)
                )
            )

    def run(self, coro: Coroutine[Any, Any, CardOperation]) -> asyncio.Task[CardOperation]:
        """Run an operation of this card as a task of the page (not of a dialog, so closing
        one does not stop it); the card's buttons wait until it is over."""
        self.busy = True
        self._buttons()
        # refusals (a busy card, a missing key, the service's no) are said by whoever waits
        task = self.tasks.spawn(coro, "card operation", expected=(LedgerError, ServiceError))

        def over(_task: asyncio.Task[CardOperation]) -> None:
            self.busy = False
            self._buttons()

        task.add_done_callback(over)
        return task

    async def toggle_block(self) -> CardOperation | None:
        record = self.record
        now = time.monotonic()
        # a double click is one click: its second half must not undo a block just done
        if record is None or self.busy or now - self._last_block < QApplication.doubleClickInterval() / 1000:
            return None
        self._last_block = now
        unblock = record.state == 2
        task = self.run(self.controller.unblock(record) if unblock else self.controller.block(record))
        try:
            return await task
        except Exception as error:  # noqa: BLE001 - OperationUnderWay, a missing key...
            self.say(str(error))
            return None
