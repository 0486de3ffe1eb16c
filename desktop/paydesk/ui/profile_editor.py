"""Add or edit a profile: the service's address, currencies, and four keys, checked before
saving; and the counter's defaults (the walk-in customer's name, the shop's e-mail, the
customer display's logo)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..config import keycheck
from ..config.merchants import NO_PUBLIC_KEY, identifying_key
from ..config.profiles import CARDS_CURRENCIES, Profile, address_problem, format_card_currencies, parse_card_currencies
from ..desk.checks import calls_a_minute as check_calls
from ..desk.checks import currency_codes, txref_prefix
from ..desk.checks import url as check_url
from ..desk.profile_store import NoPublicKeyError
from ..desk.session import Session
from ..i18n import N_, _
from ..ledger.errors import LedgerError
from ..service.models import DEFAULT_CARD_CURRENCIES
from .field_message import FieldMessage, add_field_row
from .fixed_text import use_fixed
from .profile_counter import CounterGroup
from .screen_fit import fit_to_contents, keep_wrapped_height

KEY_FIELDS = (
    ("test", "secret", N_("Test secret key")),
    ("test", "public", N_("Test public key")),
    ("live", "secret", N_("Live secret key")),
    ("live", "public", N_("Live public key")),
)
KEY_LINES, KEY_ROOM = 2, 260  # what Check keys found, whole in two lines under its key, px
FIELD_ROOM = 180  # px: the least a field of the profile is made, the editor narrowed


WEBHOOK = ("test", "webhook")  # where the keyring keeps the webhook secret
WEBHOOK_NOTE = N_("The family's dashboard webhook secret; leave empty when the service signs with the secret key.")


class KeyField(QWidget):
    """A masked key field with a Show button."""

    def __init__(self, label: str, name: str) -> None:
        super().__init__()
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.edit = QLineEdit()
        self.edit.setObjectName(name)
        self.edit.setAccessibleName(label)
        self.edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.edit.setPlaceholderText(_("not set"))
        use_fixed(self.edit)  # a key is read back and compared character by character
        self.show_button = QPushButton(_("Show"))
        self.show_button.setObjectName(name + "-show")
        self.show_button.setCheckable(True)
        self.show_button.setAccessibleName(_("Show {key}").format(key=label.lower()))
        self.show_button.toggled.connect(self._toggle)
        row.addWidget(self.edit, 1)
        row.addWidget(self.show_button)

    def _toggle(self, shown: bool) -> None:
        self.edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.show_button.setText(_("Hide") if shown else _("Show"))

    def text(self) -> str:
        return self.edit.text().strip()


class ProfileEditor(QDialog):
    def __init__(self, session: Session, profile: Profile | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.profile = profile
        self.setObjectName("profile-editor")
        self.setWindowTitle(_("Edit profile") if profile else _("Connect to your service"))
        layout = QVBoxLayout(self)
        columns = QHBoxLayout()  # the profile on the left, its keys and the counter's
        layout.addLayout(columns)  # defaults on the right: the editor fits 1024×768
        form, right, keys_form = QFormLayout(), QVBoxLayout(), QFormLayout()
        columns.addLayout(form, 1)
        columns.addLayout(right, 1)
        right.addLayout(keys_form)

        def add(label: str, widget: QWidget, name: str) -> FieldMessage:
            key = isinstance(widget, KeyField)  # a key: what Check keys found, whole under it
            widget.setMinimumWidth(KEY_ROOM if key else FIELD_ROOM)  # never a sliver, narrowed
            typed_in = widget.edit if isinstance(widget, KeyField) else widget
            return add_field_row(
                keys_form if key else form, label, widget, name, typed_in, lines=KEY_LINES if key else 1
            )

        self.name = QLineEdit(profile.name if profile else "")
        self.name.setObjectName("profile-name")
        self.name.setAccessibleName(_("Profile name"))
        self.name_message = add(_("Profile &name"), self.name, "profile-name")
        self.merchant = QLineEdit(profile.merchant_name if profile else "")
        self.merchant.setObjectName("profile-merchant-name")
        self.merchant.setAccessibleName(_("Merchant name shown to customers"))
        self.merchant.setToolTip("Printed on receipts; empty: the profile's name")
        self.merchant.setPlaceholderText(profile.name if profile else _("the profile's name"))
        self.merchant_message = add(_("&Merchant name shown to customers"), self.merchant, "profile-merchant-name")
        self.url = QLineEdit(profile.base_url if profile else "")
        self.url.setObjectName("profile-url")
        self.url.setAccessibleName(_("Service address"))
        self.url.setPlaceholderText("https://pay.example.com/api-base")
        self.url.setReadOnly(bool(profile and profile.embedded_sandbox))
        self.url_message = add(_("Service &address"), self.url, "profile-url")
        self.currencies = QLineEdit(", ".join(profile.currencies if profile else CARDS_CURRENCIES))
        self.currencies.setObjectName("profile-currencies")
        self.currencies.setAccessibleName(_("Currencies"))
        self.currencies_message = add(_("&Currencies"), self.currencies, "profile-currencies")
        self.card_codes = QLineEdit(
            format_card_currencies(profile.card_currencies if profile else DEFAULT_CARD_CURRENCIES)
        )
        self.card_codes.setObjectName("profile-card-currencies")
        self.card_codes.setAccessibleName(_("Card currency codes"))
        self.card_codes.setToolTip(
            _("The service names a card's currency by a code of its own: which currency each code is, e.g. 12=GBP")
        )
        self.card_codes_message = add(_("Card currency co&des"), self.card_codes, "profile-card-currencies")
        self.calls = QLineEdit(str(profile.calls_a_minute) if profile and profile.calls_a_minute else "")
        self.calls.setObjectName("profile-calls-a-minute")
        self.calls.setAccessibleName(_("Calls a minute this service allows"))
        self.calls.setPlaceholderText(_("as the service says"))
        self.calls.setToolTip(
            _(
                "PayDesk learns the service's limit from its answers; set one here to keep to fewer (the "
                "calls of every computer of the shop)"
            )
        )
        self.calls_message = add(_("Calls a minute this &service allows"), self.calls, "profile-calls-a-minute")
        self.prefix = QLineEdit(profile.txref_prefix if profile else "PAY")
        self.prefix.setObjectName("profile-prefix")
        self.prefix.setAccessibleName(_("Reference prefix"))
        self.prefix.setToolTip(_("Starts every reference PayDesk makes, e.g. SHOP-261122-…"))
        self.prefix_message = add(_("Reference &prefix"), self.prefix, "profile-prefix")
        self.callback_default = QLineEdit(profile.callback_url if profile else "")
        self.callback_default.setObjectName("profile-callback")
        self.callback_default.setAccessibleName(_("Default callback URL"))
        self.callback_default.setPlaceholderText(_("https://… where the service sends notifications"))
        self.callback_message = add(_("Default call&back URL"), self.callback_default, "profile-callback")
        self.return_default = QLineEdit(profile.return_url if profile else "")
        self.return_default.setObjectName("profile-return")
        self.return_default.setAccessibleName(_("Default return URL"))
        self.return_default.setPlaceholderText(_("https://… where customers land after paying"))
        self.return_message = add(_("Default &return URL"), self.return_default, "profile-return")
        use_fixed(self.url, self.callback_default, self.return_default)
        self.key_fields: dict[tuple[str, str], KeyField] = {}
        self.key_messages: dict[tuple[str, str], FieldMessage] = {}
        for mode, kind, label in KEY_FIELDS:
            field = KeyField(_(label), f"key-{mode}-{kind}")
            self.key_fields[(mode, kind)] = field
            self.key_messages[(mode, kind)] = add(_(label), field, f"key-{mode}-{kind}")
        # the business's own secret for notifications (kept as a key of test mode: one per
        # business, whatever the mode); optional
        self.webhook = KeyField(_("Webhook secret"), "key-webhook")
        self.webhook.edit.setPlaceholderText("optional")
        self.webhook_message = add(_("&Webhook secret"), self.webhook, "key-webhook")
        self.webhook_note = QLabel(_(WEBHOOK_NOTE))
        self.webhook_note.setObjectName("key-webhook-note")
        self.webhook_note.setWordWrap(True)
        self.webhook.edit.setAccessibleDescription(_(WEBHOOK_NOTE))
        keys_form.addRow(self.webhook_note)  # the whole row wide
        self.counter = CounterGroup(profile, self)
        right.addWidget(self.counter)
        right.addStretch(1)
        self.status = QLabel("")
        self.status.setObjectName("profile-status")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        buttons = QDialogButtonBox()
        self.check_button = buttons.addButton(_("Check keys"), QDialogButtonBox.ButtonRole.ActionRole)
        self.save_button = buttons.addButton(_("Save"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = buttons.addButton(_("Cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        for button in (self.check_button, self.save_button, self.cancel_button):
            button.setAccessibleName(button.text())
        self.check_button.setObjectName("check-keys")
        self.save_button.setObjectName("save-profile")
        self.tasks = session.tasks.child(self)  # checking and saving end with the editor
        self.check_button.clicked.connect(lambda: self.tasks.replace("check", self.check()))
        self.save_button.clicked.connect(lambda: self.tasks.replace("save", self.save()))
        self.cancel_button.clicked.connect(self.reject)
        layout.addWidget(buttons)
        self.saved: Profile | None = None
        self.unchecked: str | None = None  # why the keys could not be checked (then saved as typed)
        fit_to_contents(self, width=940)
        keep_wrapped_height(self)  # made narrower, its wrapped notes never squash the keys

    async def load_keys(self) -> None:
        if self.profile is None:
            return
        for (mode, kind), field in self.key_fields.items():
            value = await self.session.keys.get(self.profile.id, mode, kind)
            field.edit.setText(value or "")
        self.webhook.edit.setText(await self.session.keys.get(self.profile.id, *WEBHOOK) or "")

    def _keys(self) -> dict[tuple[str, str], str]:
        return {k: f.text() for k, f in self.key_fields.items()}

    def _check_fields(self) -> bool:
        ok = True  # each check below says what is wrong next to its field
        for message in (
            self.name_message,
            self.url_message,
            self.currencies_message,
            self.prefix_message,
            self.callback_message,
            self.return_message,
            self.card_codes_message,
            self.calls_message,
        ):
            message.say(None)
        problem = parse_card_currencies(self.card_codes.text())[1]
        if problem:
            self.card_codes_message.say(problem)
            ok = False
        problem = check_calls(self.calls.text())[1]
        if problem:
            self.calls_message.say(problem)
            ok = False
        problem = txref_prefix(self.prefix.text())[1]
        if problem:
            self.prefix_message.say(problem)
            ok = False
        for field, message in (
            (self.callback_default, self.callback_message),
            (self.return_default, self.return_message),
        ):
            problem = check_url(field.text())
            if problem:
                message.say(problem)
                ok = False
        if not self.name.text().strip():
            self.name_message.say(_("Give the profile a name, e.g. the shop's name"))
            ok = False
        problem = address_problem(self.url.text())
        if problem:
            self.url_message.say(problem)
            ok = False
        problem = currency_codes(self.currencies.text())[1]
        if problem:
            self.currencies_message.say(problem)
            ok = False
        keys = self._keys()
        if not keys[("test", "secret")] and not keys[("live", "secret")]:
            self.key_messages[("test", "secret")].say(
                _("At least one secret key is needed: the test one to start with")
            )
            ok = False
        if not self.counter.check():
            ok = False
        embedded = bool(self.profile and self.profile.embedded_sandbox)
        if self.session.store.shared and not embedded and identifying_key(keys) is None:
            self.key_messages[("test", "public")].say(NO_PUBLIC_KEY)  # it names the merchant
            ok = False
        return ok

    async def check(self) -> bool:
        """Check every given key with a real call; say next to each what it is and if it
        works. True when none is wrong: each works, or could not be checked (``unchecked``
        says why: nothing answers at the address), which is no reason to refuse Save."""
        for message in self.key_messages.values():
            message.say(None)
        self.unchecked = None
        if not self._check_fields():
            return False
        self.status.setText(_("Checking keys with the service…"))
        self.check_button.setEnabled(False)
        self.save_button.setEnabled(False)
        try:
            checked = await keycheck.check_all(self.url.text().strip(), self._keys())
        finally:
            self.check_button.setEnabled(True)
            self.save_button.setEnabled(True)
        for key, result in checked.keys.items():
            self.key_messages[key].say(result.message, ok=result.works, warn=not result.checked)
        if checked.address:  # another program answers there: the address is what is wrong
            self.url_message.say(checked.address)
        self.unchecked = checked.unchecked if checked.may_save else None
        shown, said = checked.said()
        self.status.setText(shown)
        self.session.report(said)
        return checked.may_save

    async def save(self) -> bool:
        refusal = self.session.profile_refusal(self.profile)
        if refusal is not None:  # the shop's merchants out of reach: nothing checked nor saved
            self.status.setText(refusal)
            return False
        if not await self.counter.check_logo():
            self._check_fields()  # every other problem said too
            return False
        if not await self.check():
            return False
        keys = {**self._keys(), WEBHOOK: self.webhook.text()}  # empty: none kept
        base = self.profile or Profile(id=Profile.new_id(), name="", base_url="")
        profile = replace(
            base,
            name=self.name.text().strip(),
            base_url=self.url.text().strip(),
            currencies=currency_codes(self.currencies.text())[0],
            txref_prefix=txref_prefix(self.prefix.text())[0],
            card_currencies=parse_card_currencies(self.card_codes.text())[0],
            callback_url=self.callback_default.text().strip(),
            return_url=self.return_default.text().strip(),
            merchant_name=self.merchant.text().strip(),
            calls_a_minute=check_calls(self.calls.text())[0],
            **self.counter.values(),
        )
        secret = keys[("test", "secret")] or keys[("live", "secret")]
        profile = await self.session.discover(profile, secret)
        # From here the profile is committed whole: Cancel no longer stops it half-way
        # (the session finishes it even if the editor is closed meanwhile).
        commit = self.session.tasks.spawn(
            self.session.save_profile(profile, keys), "save profile", expected=(LedgerError, NoPublicKeyError)
        )
        try:
            persisted = await asyncio.shield(commit)
        except LedgerError as error:  # the shared ledger: out of reach (its one sentence)...
            self.status.setText(str(error))
            return False
        except NoPublicKeyError as error:
            self.status.setText(_("Not saved: {error}").format(error=error))
            return False
        self.saved = profile
        if persisted:
            said = _("Profile {name} saved; its keys are in the system keyring").format(name=profile.name)
        else:
            why = self.session.keys.problem or _("there is no system keyring")
            said = _("Profile {name} saved, but its keys are kept for this session only ({why})").format(
                name=profile.name, why=why
            )
        if self.unchecked:
            said += _(". Its keys could not be checked: {unchecked}").format(unchecked=self.unchecked)
        self.session.report(said)
        self.accept()
        return True

    def done(self, result: int) -> None:  # Qt's name
        """Closing the editor (Save, Cancel, Escape) ends what it started."""
        self.tasks.cancel()
        super().done(result)
