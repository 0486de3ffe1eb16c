"""The dialogs of card operations: create, fund or withdraw (an amount), terminate (the last
four digits typed). Each checks what was typed next to its field, sends once (the button is
disabled while the operation is open, so a double click or an impatient Enter never sends
two), and shows the outcome: the new balance, the fee, or why it was not done."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any, TypeAlias

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from ...config.profiles import Profile
from ...desk.budget_words import waiting_text
from ...desk.cards import words
from ...desk.checks import cardholder_name, whole_amount
from ...desk.checks import url as check_url
from ...desk.tasks import TaskSet
from ...desk.texts import ledger_words
from ...i18n import _
from ...ledger import LedgerError
from ...ledger.cards import CardOperation, CardRecord, OperationUnderWay
from ...service.call_class import waits_shown_by
from ...service.errors import ServiceError
from ..field_message import FieldMessage, add_field_row

TasksOf: TypeAlias = Callable[[QObject], TaskSet]  # a dialog's own tasks, a child of its tab's


class OperationDialog(QDialog):
    """A form, one verb button, and what happened. Subclasses build the form and ``check``."""

    def __init__(self, parent: QWidget, tasks_of: TasksOf, title: str, verb: str, name: str) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setWindowTitle(title)
        self.setMinimumWidth(520)
        self.tasks = tasks_of(self)
        self.column = QVBoxLayout(self)
        self.form = QFormLayout()
        # each field under its caption, as wide as the dialog: a language's longer captions
        # never squash a field and its two lines of message into a sliver beside them
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        self.column.addLayout(self.form)
        self.outcome = QLabel("")
        self.outcome.setObjectName(name + "-outcome")
        self.outcome.setWordWrap(True)
        self.column.addWidget(self.outcome)
        self.buttons = QDialogButtonBox()
        self.action = self.buttons.addButton(verb, QDialogButtonBox.ButtonRole.AcceptRole)
        self.action.setObjectName(name + "-action")
        self.action.setAccessibleName(verb)
        self.close_button = self.buttons.addButton(_("Cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        self.close_button.setObjectName(name + "-close")
        self.close_button.setAccessibleName(_("Cancel"))
        self.action.clicked.connect(lambda: self.tasks.spawn(self.submit(), "submit"))
        self.close_button.clicked.connect(self.reject)
        self.column.addWidget(self.buttons)  # the verb and Cancel, on screen
        self.action.setDefault(True)  # Enter presses the verb (set once in the dialog: Qt
        # keeps a default only for a button that already has its dialog)
        self.busy = False
        self.operation: CardOperation | None = None

    def showEvent(self, event: QShowEvent) -> None:
        """The keyboard starts in the first field, so typing goes where a user expects."""
        super().showEvent(event)
        for row in range(self.form.rowCount()):  # each row: a caption and its field (buddy)
            item = self.form.itemAt(row, QFormLayout.ItemRole.LabelRole)
            caption = item.widget() if item is not None else None
            edit = caption.buddy() if isinstance(caption, QLabel) else None
            if isinstance(edit, QLineEdit) and edit.isEnabled() and not edit.isReadOnly():
                edit.setFocus(Qt.FocusReason.OtherFocusReason)
                return

    def field(self, label: str, widget: QWidget, name: str) -> FieldMessage:
        widget.setObjectName(name)
        widget.setAccessibleName(label.replace("&", ""))
        # two lines kept for its message: a card's refusal is read whole in this narrow window
        return add_field_row(self.form, label, widget, name, lines=2)

    def say(self, text: str) -> None:
        self.outcome.setText(text)
        self.outcome.setAccessibleName(text)

    def accept(self) -> None:  # Enter presses the verb, it never just closes
        self.tasks.spawn(self.submit(), "submit")

    def check(self) -> Any:
        """What to send, or None (having said what is wrong next to the field)."""
        raise NotImplementedError

    def start(self, value: Any) -> asyncio.Task[CardOperation]:
        """Send ``value``, what ``check`` gave."""
        raise NotImplementedError

    async def finished_text(self, op: CardOperation) -> str:
        return words.outcome(op)

    async def submit(self) -> CardOperation | None:
        if self.busy or (self.operation is not None and self.operation.state == "done"):
            return None
        value = self.check()
        if value is None:
            return None
        self.busy = True
        self.action.setEnabled(False)
        self.say(_("Sending…"))
        try:
            with waits_shown_by(self._service_wait):  # the operation's task says its waits
                started = self.start(value)
            op = await asyncio.shield(started)  # closing the dialog does not stop it
        except (OperationUnderWay, ServiceError, LedgerError) as error:  # busy card, no key,
            # a shared ledger out of reach: nothing sent
            self.say(getattr(error, "message", None) or str(error))
            self.action.setEnabled(True)
            return None
        finally:
            self.busy = False
        self.show_operation(op, await self.finished_text(op))
        return op

    def _service_wait(self, seconds: float | None) -> None:
        """ "Waiting for the service (3 s)" while the operation waits for the service's
        budget; "Sending…" again when it goes."""
        if self.busy:
            self.say(waiting_text(seconds) if seconds is not None else _("Sending…"))

    def show_operation(self, op: CardOperation, text: str | None = None) -> None:
        """The operation's state (also as it is settled in the background)."""
        self.operation = op
        self.say(text or words.outcome(op))
        done = op.state == "done"
        self.action.setVisible(not done)
        self.action.setEnabled(not op.open and not done)
        self.close_button.setText(_("Close") if done else _("Cancel"))
        self.close_button.setAccessibleName(self.close_button.text())
        if done:  # Enter now closes: the verb is gone, and it never sends twice
            self.close_button.setDefault(True)

    def done(self, result: int) -> None:  # Qt's name
        self.tasks.cancel()
        super().done(result)


class AmountDialog(OperationDialog):
    """Fund or withdraw: the amount, checked (withdraw: at most the known balance)."""

    def __init__(
        self,
        parent: QWidget,
        tasks_of: TasksOf,
        kind: str,
        record: CardRecord,
        profile: Profile,
        run: Callable[[Decimal], asyncio.Task[CardOperation]],
        current: Callable[[], Awaitable[CardRecord | None]],
    ) -> None:
        verb = words.VERBS[kind]
        title = _("Fund card") if kind == "fund" else _("Withdraw from card")
        super().__init__(parent, tasks_of, title, verb, f"{kind}-dialog")
        self.kind, self.record, self.profile = kind, record, profile
        self._run, self._current = run, current
        self.heading = QLabel("")
        self.heading.setObjectName(f"{kind}-heading")
        self.heading.setWordWrap(True)
        self.form.addRow(self.heading)
        self._show_heading()
        self.amount = QLineEdit()
        self.amount.setPlaceholderText(_("whole units, e.g. 25"))
        self.amount_message = self.field(_("&Amount"), self.amount, f"{kind}-amount")

    def _show_heading(self) -> None:
        """The card and its balance as last known (after Done: the new one)."""
        record = self.record
        balance = words.card_money(self.profile, record, record.balance)
        text = _("Card {masked} · balance {balance}").format(masked=record.masked, balance=balance) + (
            _(" (as of {when})").format(when=words.when(record.seen_at)) if record.balance is not None else ""
        )
        self.heading.setText(text)
        self.heading.setAccessibleName(text)

    def check(self) -> Decimal | None:
        most = self.record.balance if self.kind == "withdraw" else None
        amount, problem = whole_amount(self.amount.text(), most, words.card_money(self.profile, self.record, most))
        self.amount_message.say(problem)
        return amount

    def start(self, amount: Decimal) -> asyncio.Task[CardOperation]:
        return self._run(amount)

    async def finished_text(self, op: CardOperation) -> str:
        text = words.outcome(op)
        if op.state == "not-done" and not op.settled:
            self.amount_message.say(ledger_words(op.result))
        card = await self._current()
        if card is not None and card.balance is not None:
            text += _(" New balance: {balance}.").format(balance=words.card_money(self.profile, card, card.balance))
            self.record = card
            self._show_heading()
        return text


class CreateCardDialog(OperationDialog):
    def __init__(
        self,
        parent: QWidget,
        tasks_of: TasksOf,
        profile: Profile,
        run: Callable[[Decimal, str, str | None, str, str], asyncio.Task[CardOperation]],
        card_of: Callable[[str], Awaitable[CardRecord | None]],
    ) -> None:
        super().__init__(parent, tasks_of, _("Create card"), _("Create card"), "create-card-dialog")
        self.profile, self._run, self._card_of = profile, run, card_of
        # the name on the card: the family's server requires it (the document's takes it)
        self.names: dict[str, tuple[QLineEdit, FieldMessage]] = {}
        for key, label, what in (
            ("first", _("&First name on card"), _("first name")),
            ("last", _("&Last name on card"), _("last name")),
        ):
            edit = QLineEdit()
            edit.setMaxLength(100)
            message = self.field(label, edit, f"create-card-{key}-name")
            # checked as typed: the message next to the field follows each change
            edit.textEdited.connect(lambda text, m=message, w=what: m.say(cardholder_name(text, w)))
            self.names[key] = (edit, message)
        self.first_name, self.first_name_message = self.names["first"]
        self.last_name, self.last_name_message = self.names["last"]
        self.amount = QLineEdit()
        self.amount.setPlaceholderText(_("whole units, e.g. 50"))
        self.amount_message = self.field(_("&Amount"), self.amount, "create-card-amount")
        self.currency = QComboBox()
        for code in profile.currencies:
            self.currency.addItem(code)
        self.currency_message = self.field(_("&Currency"), self.currency, "create-card-currency")
        self.callback = QLineEdit(profile.callback_url)
        self.callback.setPlaceholderText(_("https://… where the service sends card events (empty: none)"))
        self.callback_message = self.field(_("&Notification URL"), self.callback, "create-card-callback")
        note = QLabel(_("The card's amount and the service's fee are taken from your balance in that currency."))
        note.setWordWrap(True)
        self.form.addRow(note)
        self.new_card: CardRecord | None = None

    def check(self) -> tuple[Decimal, str, str | None, str, str] | None:
        names_ok = True
        for (edit, message), what in zip(self.names.values(), (_("first name"), _("last name"))):
            name_problem = cardholder_name(edit.text(), what)
            message.say(name_problem)
            names_ok = names_ok and name_problem is None
        amount, problem = whole_amount(self.amount.text())
        self.amount_message.say(problem)
        url_problem = check_url(self.callback.text())
        self.callback_message.say(url_problem)
        if amount is None or problem or url_problem or not names_ok:
            return None
        return (
            amount,
            self.currency.currentText(),
            self.callback.text().strip() or None,
            self.first_name.text().strip(),
            self.last_name.text().strip(),
        )

    def start(self, value: tuple[Decimal, str, str | None, str, str]) -> asyncio.Task[CardOperation]:
        return self._run(*value)

    async def finished_text(self, op: CardOperation) -> str:
        if op.state == "not-done" and not op.settled:
            self.amount_message.say(ledger_words(op.result))
        if op.state != "done" or not op.card_hash:
            return words.outcome(op)
        card = await self._card_of(op.card_hash)
        self.new_card = card
        if card is None:
            return words.outcome(op)
        return words.created(self.profile, card)


class TerminateDialog(OperationDialog):
    def __init__(
        self,
        parent: QWidget,
        tasks_of: TasksOf,
        record: CardRecord,
        profile: Profile,
        run: Callable[[], asyncio.Task[CardOperation]],
    ) -> None:
        super().__init__(parent, tasks_of, _("Terminate card"), _("Terminate"), "terminate-dialog")
        self.record, self._run = record, run
        balance = words.card_money(profile, record, record.balance)
        currency = words.currency_of(profile, record.currency_code) or _("its currency")
        warning = QLabel(
            _(
                "Terminating card {masked} cannot be undone: the card stops working for good. Its balance "
                "({balance}) is refunded to your {currency} balance by the service."
            ).format(masked=record.masked, balance=balance, currency=currency)
        )
        warning.setObjectName("terminate-warning")
        warning.setWordWrap(True)
        self.form.addRow(warning)
        self.last4 = QLineEdit()
        self.last4.setMaxLength(4)
        self.last4.setPlaceholderText(_("the last four digits of the card number"))
        self.last4_message = self.field(_("Type the card's &last four digits"), self.last4, "terminate-last4")

    def check(self) -> bool | None:
        if self.last4.text().strip() != self.record.last4 or not self.record.last4:
            self.last4_message.say(
                _("That is not the end of {masked}: type its last four digits to confirm").format(
                    masked=self.record.masked
                )
            )
            return None
        self.last4_message.say(None)
        return True

    def start(self, _value: object) -> asyncio.Task[CardOperation]:
        return self._run()


__all__ = ["AmountDialog", "CreateCardDialog", "TerminateDialog"]
