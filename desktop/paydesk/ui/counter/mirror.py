"""The staff's mirror of the customer's screen: the sale's state in words, its amount, a
small code and its reference (in the fixed face: it is read back and typed). When the
customer's view is beside the amount box, on the same screen, the code is the customer's
view's alone (``set_code_beside``): one code on one screen."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ...desk.formats import money_in
from ...desk.states import state_words
from ...i18n import N_, _, staff
from ...ledger.counter import PAID_AFTER_VOID, VOIDED, Sale
from ..fixed_text import use_fixed
from ..links.panel import selectable_when_shown, state_label
from ..links.qr import QrWidget
from .sales import sale_title

KIND_SHOWN = {VOIDED: (N_("VOIDED"), "#5c6675"), PAID_AFTER_VOID: (N_("PAID AFTER VOID"), "#b3261e")}


class StaffMirror(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("counter-mirror")
        self.sale: Sale | None = None
        self.code_beside = False  # the customer's view shows the code on this screen
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.state = state_label("counter-mirror-state", 16)
        self.state.setWordWrap(True)  # WAITING FOR PAYMENT on two lines where it is narrow
        column.addWidget(self.state)
        self.amount = state_label("counter-mirror-amount", 16)
        column.addWidget(self.amount)
        self.qr = QrWidget(minimum=120)
        self.qr.setObjectName("counter-mirror-qr")
        self.qr.setMaximumSize(220, 220)
        column.addWidget(self.qr, 0, Qt.AlignmentFlag.AlignHCenter)
        self.title = QLabel("")
        self.title.setObjectName("counter-mirror-title")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title.setWordWrap(True)  # a long note wraps: it never widens the window
        column.addWidget(self.title)
        self.reference = QLabel("")
        self.reference.setObjectName("counter-mirror-reference")
        self.reference.setAlignment(Qt.AlignmentFlag.AlignCenter)
        use_fixed(self.reference)
        column.addWidget(self.reference)
        column.addStretch(1)
        self.show_sale(None)

    def show_sale(self, sale: Sale | None) -> None:
        self.sale = sale
        record = sale.record if sale is not None else None
        if sale is None or record is None:
            self.qr.set_text(None)
            self.qr.hide()
            for label in (self.state, self.amount, self.title, self.reference):
                label.setText("")
                label.setAccessibleName("")
            self.state.setStyleSheet("")
            self.state.setAccessibleDescription(_("No sale on the customer's screen"))
            if sale is not None:  # written in the book, its link never sent
                self._state(_("NOT SENT"), "#b3261e")
                self._reference(sale)
            selectable_when_shown(self.reference)
            return
        self.state.setAccessibleDescription("")
        shown = KIND_SHOWN.get(sale.kind)
        words, colour = (_(shown[0]), shown[1]) if shown else state_words(record)
        self._state(words, colour)
        amount = money_in(record.amount, record.currency, staff())  # the staff's way
        self.amount.setText(amount)
        self.amount.setAccessibleName(_("Amount {amount}").format(amount=amount))
        payable = not record.final and not sale.voided and bool(record.checkout_url)
        self.qr.set_text(record.checkout_url if payable else None)
        self.qr.setVisible(payable and not self.code_beside)
        self.title.setText(sale_title(sale))
        self.title.setAccessibleName(sale_title(sale))
        self._reference(sale)

    def _state(self, words: str, colour: str) -> None:
        self.state.setText(words)
        self.state.setAccessibleName(_("State: {words}").format(words=words))
        self.state.setStyleSheet(f"color: white; background: {colour}; border-radius: 6px; padding: 4px 10px;")

    def _reference(self, sale: Sale) -> None:
        self.reference.setText(_("Reference {tx_ref}").format(tx_ref=sale.tx_ref))
        self.reference.setAccessibleName(_("Reference {tx_ref}").format(tx_ref=sale.tx_ref))
        selectable_when_shown(self.reference)

    def set_code_beside(self, beside: bool) -> None:
        """The customer's view is shown beside the amount box (``beside``): the code is
        there, big, and not here; else (a monitor of its own, or closed) here too."""
        self.code_beside = beside
        self.show_sale(self.sale)
