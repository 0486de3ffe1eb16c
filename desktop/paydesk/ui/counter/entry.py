"""Where the staff types a sale: the large amount box (it has the focus), the currency, an
optional note (the link's title; "Sale 0042" shown until one is typed) and the customer's
e-mail, what is wrong with each said next to it, and the Sell and New sale buttons."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...desk.checks import WHOLE_UNITS, WHOLE_UNITS_SHORT
from ...i18n import _
from ..field_message import FieldMessage


class SaleEntry(QWidget):
    enterPressed = Signal()  # Enter in a box, or Sell
    newSaleRequested = Signal()  # New sale (Escape is the tab's)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("counter-entry")
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        grid = QGridLayout()
        caption = QLabel(_("&Amount"))
        self.amount = QLineEdit()
        self.amount.setObjectName("counter-amount")
        self.amount.setAccessibleName(_("Amount"))
        self.amount.setPlaceholderText(_("e.g. 25"))
        self.amount.setToolTip(_(WHOLE_UNITS))
        big = self.amount.font()
        big.setPointSize(28)
        self.amount.setFont(big)
        caption.setBuddy(self.amount)
        self.currency = QComboBox()
        self.currency.setObjectName("counter-currency")
        self.currency.setAccessibleName(_("Currency"))
        # seven digits at this size, and the example whole where a language's is longer ("p. ex.
        # 25"), up to what keeps the tab within 1024 px
        example = self.amount.fontMetrics().horizontalAdvance(self.amount.placeholderText()) + 24
        self.amount.setMinimumWidth(min(230, max(160, example)))
        units = QLabel(_(WHOLE_UNITS_SHORT))
        units.setObjectName("counter-units")
        units.setAccessibleName(_(WHOLE_UNITS_SHORT))
        units.setAccessibleDescription(_(WHOLE_UNITS))
        units.setStyleSheet("color: #5c6675;")
        units.setWordWrap(True)  # on two lines where a language's words are long: the tab fits 1024 px
        line = QHBoxLayout()
        line.addWidget(self.amount, 1)
        line.addWidget(self.currency)
        line.addWidget(units)
        grid.addWidget(caption, 0, 0)
        grid.addLayout(line, 0, 1)
        self.messages: dict[str, FieldMessage] = {"amount": FieldMessage("counter-amount")}
        grid.addWidget(self.messages["amount"], 1, 1)
        self.note = QLineEdit()
        self.note.setObjectName("counter-note")
        self.note.setAccessibleName(_("Note"))
        note_caption = QLabel(_("&Note"))
        note_caption.setBuddy(self.note)
        grid.addWidget(note_caption, 2, 0)
        grid.addWidget(self.note, 2, 1)
        self.messages["note"] = FieldMessage("counter-note")
        grid.addWidget(self.messages["note"], 3, 1)
        self.email = QLineEdit()
        self.email.setObjectName("counter-email")
        self.email.setAccessibleName(_("Customer e-mail"))
        self.email.setPlaceholderText(_("optional: the customer's receipt goes there"))
        email_caption = QLabel(_("Customer &e-mail"))
        email_caption.setBuddy(self.email)
        email_caption.setWordWrap(True)  # its words on two lines where a language's are long
        grid.addWidget(email_caption, 4, 0)
        grid.addWidget(self.email, 4, 1)
        self.messages["email"] = FieldMessage("counter-email")
        grid.addWidget(self.messages["email"], 5, 1)
        grid.setColumnStretch(1, 1)
        box.addLayout(grid)
        for field in (self.amount, self.note, self.email):
            field.returnPressed.connect(self.enterPressed)
        # Tab goes Amount -> Note -> e-mail, then the currency (a space typed in a combo box
        # opens its list: a note typed there would be lost)
        QWidget.setTabOrder(self.amount, self.note)
        QWidget.setTabOrder(self.note, self.email)
        QWidget.setTabOrder(self.email, self.currency)
        buttons = QHBoxLayout()
        self.sell_button = QPushButton(_("Sell"))
        self.sell_button.setObjectName("counter-sell")
        self.sell_button.setAccessibleName(_("Sell"))
        self.sell_button.setToolTip(_("Make the link and show its code to the customer (Enter)"))
        self.sell_button.clicked.connect(self.enterPressed)
        buttons.addWidget(self.sell_button)
        self.new_sale_button = QPushButton(_("New sale"))
        self.new_sale_button.setObjectName("counter-new-sale")
        self.new_sale_button.setAccessibleName(_("New sale"))
        self.new_sale_button.setToolTip(_("Clear for the next customer (Escape)"))
        self.new_sale_button.clicked.connect(self.newSaleRequested)
        buttons.addWidget(self.new_sale_button)
        buttons.addStretch(1)
        box.addLayout(buttons)
        self.message = FieldMessage("counter")  # what is not about one field
        box.addWidget(self.message)
        box.addStretch(1)

    @property
    def fields(self) -> tuple[QLineEdit, ...]:
        return (self.amount, self.note, self.email)

    def typed(self) -> bool:
        return any(f.text() for f in self.fields)

    def say(self, fields: dict[str, str], general: str = "") -> None:
        """What is wrong next to each box named in ``fields``; ``general`` under the buttons
        (what is not about one box). Nothing: every message hidden."""
        for key, message in self.messages.items():
            message.say(fields.get(key))
        self.message.say(general)

    def clear(self) -> None:
        for field in self.fields:
            field.clear()
        self.say({})

    def set_currencies(self, codes: list[str]) -> None:
        current = self.currency.currentText()
        self.currency.clear()
        self.currency.addItems(codes)
        if current in codes:
            self.currency.setCurrentText(current)
