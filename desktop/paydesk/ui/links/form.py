"""The link form: every field checked as it is typed, the message next to it, and a
Create button that says why it is disabled."""

from __future__ import annotations

from decimal import Decimal

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from ...desk import checks
from ...i18n import _
from ...service.models import PaymentRequest
from ..elided import ElidedLabel
from ..field_message import FieldMessage, add_field_row
from ..fixed_text import use_fixed


class MetaRows(QWidget):
    """Extra information sent as ``meta``: name/value rows."""

    changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[QLineEdit, QLineEdit, QWidget]] = []
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(0, 0, 0, 0)
        self.add_button = QPushButton(_("Add extra field"))
        self.add_button.setObjectName("meta-add")
        self.add_button.setAccessibleName(_("Add extra field"))
        self.add_button.clicked.connect(lambda: self.add_row())
        self.column.addWidget(self.add_button)

    def add_row(self, key: str = "", value: str = "") -> None:
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        k, v = QLineEdit(key), QLineEdit(value)
        n = len(self.rows) + 1
        k.setPlaceholderText("name")
        v.setPlaceholderText("value")
        k.setAccessibleName(_("Extra field {n} name").format(n=n))
        v.setAccessibleName(_("Extra field {n} value").format(n=n))
        remove = QPushButton(_("Remove"))
        remove.setAccessibleName(_("Remove extra field {n}").format(n=n))
        for w in (k, v):
            w.textChanged.connect(self.changed)
        line.addWidget(k)
        line.addWidget(v, 1)
        line.addWidget(remove)
        entry = (k, v, row)
        remove.clicked.connect(lambda: self._remove(entry))
        self.rows.append(entry)
        self.column.insertWidget(self.column.count() - 1, row)
        self.changed.emit()

    def _remove(self, entry: tuple[QLineEdit, QLineEdit, QWidget]) -> None:
        self.rows.remove(entry)
        entry[2].deleteLater()
        self.changed.emit()

    def pairs(self) -> list[tuple[str, str]]:
        return [(k.text(), v.text()) for k, v, _unused in self.rows if k.text().strip() or v.text().strip()]

    def clear(self) -> None:
        for entry in list(self.rows):
            self._remove(entry)


class LinkForm(QWidget):
    createRequested = Signal()
    newReference = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("link-form")
        form = QFormLayout(self)
        # narrower than a caption and its field side by side (the window made as narrow as
        # it goes, a code beside): each caption above its field, never scrolled sideways
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.messages: dict[str, FieldMessage] = {}
        self.fields: dict[str, QLineEdit] = {}

        def add(
            key: str, label: str, widget: QLineEdit, placeholder: str = "", container: QWidget | None = None
        ) -> None:
            widget.setObjectName(f"field-{key}")
            widget.setAccessibleName(label.replace("&", ""))
            widget.setPlaceholderText(placeholder)
            widget.textChanged.connect(self.revalidate)
            message = add_field_row(form, label, container or widget, f"field-{key}", widget)
            self.fields[key] = widget
            self.messages[key] = message

        amount_row = QWidget()
        line = QHBoxLayout(amount_row)
        line.setContentsMargins(0, 0, 0, 0)
        self.amount = QLineEdit()
        self.currency = QComboBox()
        self.currency.setObjectName("field-currency")
        self.currency.setAccessibleName(_("Currency"))
        line.addWidget(self.amount, 1)
        line.addWidget(self.currency)
        self.units = QLabel(_(checks.WHOLE_UNITS_SHORT))
        self.units.setObjectName("amount-units")
        self.units.setAccessibleName(_(checks.WHOLE_UNITS_SHORT))  # what it shows
        self.units.setAccessibleDescription(_(checks.WHOLE_UNITS))
        self.units.setToolTip(_(checks.WHOLE_UNITS))
        self.units.setStyleSheet("color: #5c6675;")
        self.units.setWordWrap(True)  # on two lines where a language's words are long
        line.addWidget(self.units)
        add("amount", _("&Amount"), self.amount, _("e.g. 25"), container=amount_row)
        self.amount.setToolTip(_(checks.WHOLE_UNITS))
        self.email = QLineEdit()
        add("email", _("Customer &e-mail"), self.email, "customer@example.com")
        self.first_name = QLineEdit()
        add("first_name", _("&First name"), self.first_name)
        self.last_name = QLineEdit()
        add("last_name", _("&Last name"), self.last_name)
        self.title = QLineEdit()
        add("title", _("&Title"), self.title, _("what the customer sees, e.g. the shop's name"))
        self.description = QLineEdit()
        add("description", _("&Description"), self.description, _("e.g. two flat whites"))
        self.logo = QLineEdit()
        add("logo", _("Lo&go URL"), self.logo, "https://…")
        self.callback_url = QLineEdit()
        add("callback_url", _("Call&back URL"), self.callback_url, _("https://… (notifications)"))
        self.return_url = QLineEdit()
        add("return_url", _("&Return URL"), self.return_url, _("https://… (after payment)"))
        self.meta = MetaRows()
        self.meta.changed.connect(self.revalidate)
        meta_message = FieldMessage("field-meta")
        box = QVBoxLayout()
        box.addWidget(self.meta)
        box.addWidget(meta_message)
        form.addRow(QLabel(_("Extra information")), box)
        self.messages["meta"] = meta_message

        ref_row = QWidget()
        ref_line = QHBoxLayout(ref_row)
        ref_line.setContentsMargins(0, 0, 0, 0)
        self.tx_ref = QLineEdit()
        self.tx_ref.setObjectName("field-tx_ref")
        self.tx_ref.setAccessibleName(_("Reference"))
        self.tx_ref.textChanged.connect(self.revalidate)
        use_fixed(self.tx_ref, self.logo, self.callback_url, self.return_url)
        self.new_ref = QPushButton(_("New reference"))
        self.new_ref.setObjectName("new-reference")
        self.new_ref.setAccessibleName(_("New reference"))
        self.new_ref.clicked.connect(self.newReference)
        ref_line.addWidget(self.tx_ref, 1)
        ref_line.addWidget(self.new_ref)
        ref_message = FieldMessage("field-tx_ref")
        box = QVBoxLayout()
        box.setSpacing(2)
        box.addWidget(ref_row)
        box.addWidget(ref_message)
        caption = QLabel(_("Re&ference"))
        caption.setBuddy(self.tx_ref)
        form.addRow(caption, box)
        self.fields["tx_ref"] = self.tx_ref
        self.messages["tx_ref"] = ref_message

        self.create_button = QPushButton(_("Create link"))
        self.create_button.setObjectName("create-link")
        self.create_button.setAccessibleName(_("Create link"))
        self.create_button.setDefault(True)
        self.create_button.clicked.connect(self.createRequested)
        # three lines kept beside the button: a longer language's reason wraps within them,
        # the whole on hover where it needs more (a wrapped label was given too few lines)
        self.why_disabled = ElidedLabel("", lines=3)
        self.why_disabled.setObjectName("create-disabled-reason")
        form.addRow(self.create_button, self.why_disabled)
        self._touched: set[str] = set()
        self.busy = False
        self.refused = ""  # why no link can be made now (a shared ledger out of reach)
        self.waiting = ""  # "Waiting for the service (3 s)": the create waits for the budget
        for key, widget in self.fields.items():
            if isinstance(widget, QLineEdit):
                widget.editingFinished.connect(lambda k=key: self._touch(k))
        self.revalidate()

    def _touch(self, key: str) -> None:
        self._touched.add(key)
        self.revalidate()

    def problems(self) -> dict[str, str]:
        found = {
            "amount": checks.amount(self.amount.text()),
            "email": checks.email(self.email.text()),
            "first_name": checks.name(self.first_name.text(), _("first name")),
            "last_name": checks.name(self.last_name.text(), _("last name")),
            "title": checks.limit(self.title.text(), 100),
            "description": checks.limit(self.description.text(), 255, lines=True),
            "logo": checks.url(self.logo.text()),
            "callback_url": checks.url(self.callback_url.text()),
            "return_url": checks.url(self.return_url.text()),
            "meta": checks.meta(self.meta.pairs()),
            "tx_ref": checks.tx_ref(self.tx_ref.text()),
        }
        if not self.currency.currentText():
            found["amount"] = found["amount"] or _("This profile has no currency")
        return {k: v for k, v in found.items() if v}

    def revalidate(self) -> dict[str, str]:
        """Messages next to the fields typed in; the button says the first problem."""
        problems = self.problems()
        for key, message in self.messages.items():
            typed = key in self._touched or (key in self.fields and self.fields[key].text().strip())
            message.say(problems.get(key) if typed or key == "meta" else None)
        self.create_button.setEnabled(not problems and not self.busy and not self.refused)
        if self.busy:
            reason = self.waiting or _("Creating the link…")
        elif self.refused:
            reason = self.refused
        elif problems:
            key, text = next(iter(problems.items()))
            label = {
                "tx_ref": _("Reference"),
                "first_name": _("First name"),
                "last_name": _("Last name"),
                "callback_url": _("Callback URL"),
                "return_url": _("Return URL"),
                "email": _("Customer e-mail"),
                "meta": _("Extra information"),
            }.get(key, key.title())
            reason = _("Create is disabled: {label}: {text}").format(label=label, text=text)
        else:
            reason = ""
        self.why_disabled.setText(reason)
        self.why_disabled.setAccessibleName(reason or _("Ready to create"))
        self.create_button.setToolTip(reason or _("Create the payment link (Enter)"))
        return problems

    def set_busy(self, busy: bool) -> None:
        """A create is under way: the button stays disabled until it ends, whatever is typed."""
        self.busy = busy
        self.waiting = ""
        self.revalidate()

    def set_waiting(self, text: str) -> None:
        """The create under way waits for the service's budget ("Waiting for the service
        (3 s)"), said beside Create link; "" when it goes."""
        self.waiting = text
        self.revalidate()

    def set_refused(self, reason: str | None) -> None:
        """Nothing can be created now, and ``reason`` says why beside the button (None: it
        can again, and the reason goes)."""
        self.refused = reason or ""
        self.revalidate()

    def show_all(self) -> None:
        self._touched.update(self.fields)
        self.revalidate()

    def show_service_errors(self, errors: dict[str, list[str]], message: str) -> None:
        """What the service refused, next to the fields it names."""
        shown = False
        for field, texts in errors.items():
            key = field.split(".")[-1]
            if key in self.messages:
                self.messages[key].say(texts[0])
                shown = True
        if not shown:
            self.why_disabled.setText(message)

    def set_currencies(self, codes: list[str]) -> None:
        current = self.currency.currentText()
        self.currency.clear()
        self.currency.addItems(codes)
        if current in codes:
            self.currency.setCurrentText(current)
        self.revalidate()

    def set_defaults(self, callback_url: str, return_url: str) -> None:
        if not self.callback_url.text():
            self.callback_url.setText(callback_url)
        if not self.return_url.text():
            self.return_url.setText(return_url)

    def request(self) -> PaymentRequest:
        def opt(w: QLineEdit) -> str | None:
            return w.text().strip() or None

        return PaymentRequest(
            amount=Decimal(self.amount.text().strip()),
            currency=self.currency.currentText(),
            email=self.email.text().strip(),
            first_name=self.first_name.text().strip(),
            last_name=self.last_name.text().strip(),
            tx_ref=self.tx_ref.text().strip(),
            callback_url=opt(self.callback_url),
            return_url=opt(self.return_url),
            title=opt(self.title),
            description=opt(self.description),
            logo=opt(self.logo),
            meta={k.strip(): v for k, v in self.meta.pairs()},
        )

    def merchant_request(self) -> PaymentRequest:
        """The form's request with only the merchant's own fields filled (what a website
        template keeps); the per-order ones are left blank for the template to replace."""

        def opt(w: QLineEdit) -> str | None:
            return w.text().strip() or None

        return PaymentRequest(
            amount=Decimal(1),
            currency=self.currency.currentText(),
            email="",
            first_name="",
            last_name="",
            tx_ref="",
            callback_url=opt(self.callback_url),
            return_url=opt(self.return_url),
            title=opt(self.title),
            description=opt(self.description),
            logo=opt(self.logo),
            meta={k.strip(): v for k, v in self.meta.pairs()},
        )

    # -- a draft per profile and mode (the tab keeps them) ------------------------------------

    DRAFTED = (
        "amount",
        "email",
        "first_name",
        "last_name",
        "title",
        "description",
        "logo",
        "callback_url",
        "return_url",
    )

    def draft(self) -> dict:
        """What was typed (but the reference, proposed anew for each profile and mode)."""
        return {
            "fields": {key: self.fields[key].text() for key in self.DRAFTED},
            "currency": self.currency.currentText(),
            "meta": self.meta.pairs(),
        }

    def restore(self, draft: dict | None, callback_url: str, return_url: str) -> None:
        """Show ``draft`` (None: an empty form with the profile's default addresses), the
        reference empty until this profile's is proposed; no field's message is said until
        it is typed in again."""
        fields = draft["fields"] if draft else {"callback_url": callback_url, "return_url": return_url}
        self.tx_ref.clear()  # the last one's reference never shows here: proposed anew
        for key in self.DRAFTED:
            self.fields[key].setText(fields.get(key, ""))
        if draft and self.currency.findText(draft["currency"]) >= 0:
            self.currency.setCurrentText(draft["currency"])
        self.meta.clear()
        for key, value in draft["meta"] if draft else ():
            self.meta.add_row(key, value)
        self._touched.clear()
        self.revalidate()

    def clear_for_next(self) -> None:
        for w in (self.amount, self.email, self.first_name, self.last_name, self.description):
            w.clear()
        self.meta.clear()
        self._touched.clear()
        self.revalidate()
