"""'For your website': the form post and inline checkout as templates a merchant's site fills
per order. What changes with every order (the reference, the amount, the customer) is a
placeholder; what the merchant set in the form (title, description, currency, URLs, extra
information) and the public key are written in."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from ...i18n import N_, _
from ...service.models import PaymentRequest
from ...service.snippets import html_form, inline_checkout
from ..fixed_text import use_fixed
from ..screen_fit import resize_within_screen

# what the merchant's site writes in for each order, and what each one means
PLACEHOLDERS = {
    "{{ORDER_REFERENCE}}": N_("a new reference for every order (never reuse one)"),
    "{{AMOUNT}}": N_("the order's total in whole units, digits only (25, not 25.50)"),
    "{{CUSTOMER_EMAIL}}": N_("the customer's e-mail (the receipt goes there)"),
    "{{CUSTOMER_FIRST_NAME}}": N_("the customer's first name"),
    "{{CUSTOMER_LAST_NAME}}": N_("the customer's last name"),
}
PER_ORDER = ("amount", "email", "first_name", "last_name", "tx_ref")  # the form's fields left out
_AMOUNT = Decimal(987654321)  # stands for {{AMOUNT}} while the snippet is written (no such order)


def template(request: PaymentRequest) -> PaymentRequest:
    """The form's request with every per-order value replaced by its placeholder."""
    return replace(
        request,
        tx_ref="{{ORDER_REFERENCE}}",
        amount=_AMOUNT,
        email="{{CUSTOMER_EMAIL}}",
        first_name="{{CUSTOMER_FIRST_NAME}}",
        last_name="{{CUSTOMER_LAST_NAME}}",
    )


def _placed(text: str) -> str:
    return text.replace(str(_AMOUNT), "{{AMOUNT}}")


def explanation() -> str:
    rows = "".join(
        _("<li><code>{name}</code>: {meaning}</li>").format(name=name, meaning=_(meaning))
        for name, meaning in PLACEHOLDERS.items()
    )
    return _(
        "<p>These are templates: your website writes each order's own values in place of the "
        "placeholders, on your server, for every order:</p><ul>{rows}</ul><p>Escape each value for "
        "where it lands (an HTML attribute in the form, a JavaScript string in the inline "
        "checkout). The title, description, currency, addresses and extra information are the ones "
        "in the Payment links form; edit them there to change them.</p>"
    ).format(rows=rows)


class SnippetsDialog(QDialog):
    def __init__(
        self,
        request: PaymentRequest,
        public_key: str,
        base_url: str,
        secret_key: str | None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("website-snippets")
        self.setWindowTitle(_("For your website"))
        resize_within_screen(self, 760, 700)
        column = QVBoxLayout(self)
        intro = QLabel(explanation())
        intro.setObjectName("snippet-explanation")
        intro.setWordWrap(True)
        intro.setAccessibleName(_("How to use these templates"))
        column.addWidget(intro)
        order = template(request)
        self.texts: dict[str, QPlainTextEdit] = {}
        for key, title, text in (
            ("form", _("HTML form (posts to the service)"), html_form(order, public_key, base_url, secret_key)),
            (
                "inline",
                _("Inline checkout (a button and payment.js)"),
                inline_checkout(order, public_key, base_url, secret_key),
            ),
        ):
            label = QLabel(f"<b>{title}</b>")
            column.addWidget(label)
            edit = QPlainTextEdit(_placed(text))
            edit.setObjectName(f"snippet-{key}")
            edit.setReadOnly(True)
            use_fixed(edit)  # keys and URLs in code, copied as they are
            edit.setAccessibleName(title)
            self.texts[key] = edit
            column.addWidget(edit, 1)
            form = key == "form"
            copy = QPushButton(_("Copy HTML form") if form else _("Copy inline checkout"))
            what = (
                _("Copied the HTML form to the clipboard") if form else _("Copied the inline checkout to the clipboard")
            )
            copy.setObjectName(f"copy-{key}")
            copy.setAccessibleName(copy.text())
            copy.clicked.connect(lambda _checked=False, e=edit, w=what: self._copy(e, w))
            column.addWidget(copy)
        self.outcome = QLabel("")
        self.outcome.setObjectName("snippet-done")
        self.outcome.setAccessibleDescription(_("What the last Copy did"))
        column.addWidget(self.outcome)
        note = QLabel(_("These use your public key. Never put a secret key on a web page."))
        note.setWordWrap(True)
        column.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.Close).setAccessibleName(_("Close"))
        column.addWidget(buttons)

    def _copy(self, edit: QPlainTextEdit, said: str) -> None:
        QGuiApplication.clipboard().setText(edit.toPlainText())
        text = said
        self.outcome.setText(text)
        self.outcome.setAccessibleName(text)
