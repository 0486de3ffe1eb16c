"""The red banner above the counter's list: a payment that came after its sale was voided,
shown loudly until someone decides (Refund… or Keep)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from ...i18n import N_, _
from ...ledger.counter import Sale
from ..fixed_text import use_fixed
from .sales import sale_money, sale_title

HEADLINE = N_("Paid after void: refund or keep")


class AfterVoidBanner(QWidget):
    """The first undecided sale (and how many more), with its two decisions."""

    refundRequested = Signal(object)  # the Sale
    keepRequested = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("counter-after-void")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.setStyleSheet(
            "#counter-after-void { background: #b3261e; } "
            "#counter-after-void QLabel { color: white; font-weight: 700; }"
        )
        self.sales: list[Sale] = []
        row = QHBoxLayout(self)
        self.text = QLabel("")
        self.text.setObjectName("counter-after-void-text")
        self.text.setWordWrap(True)
        row.addWidget(self.text, 1)
        self.reference = QLabel("")  # staff copy it to refund on the service's dashboard
        self.reference.setObjectName("counter-after-void-reference")
        self.reference.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        use_fixed(self.reference)
        row.addWidget(self.reference)
        self.refund = QPushButton(_("Refund…"))
        self.refund.setObjectName("counter-refund")
        self.refund.setAccessibleName(_("Refund"))
        self.refund.clicked.connect(lambda: self._asked(self.refundRequested))
        row.addWidget(self.refund)
        self.keep = QPushButton(_("Keep"))
        self.keep.setObjectName("counter-keep")
        self.keep.setAccessibleName(_("Keep"))
        self.keep.clicked.connect(lambda: self._asked(self.keepRequested))
        row.addWidget(self.keep)
        self.show_sales([])

    @property
    def first(self) -> Sale | None:
        return self.sales[0] if self.sales else None

    def show_sales(self, sales: list[Sale]) -> None:
        self.sales = [s for s in sales if s.needs_decision]
        sale = self.first
        if sale is None:
            for label in (self.text, self.reference):
                label.setText("")
                label.setAccessibleName("")
            self.hide()
            return
        more = len(self.sales) - 1
        text = _("{headline}: {title}, {amount}").format(
            headline=_(HEADLINE), title=sale_title(sale), amount=sale_money(sale)
        )
        if more:
            text += _(" (and {more} more)").format(more=more)
        self.text.setText(text)
        self.text.setAccessibleName(text)
        reference = _("Reference {tx_ref}").format(tx_ref=sale.tx_ref)
        self.reference.setText(reference)
        self.reference.setAccessibleName(reference)
        self.show()

    def set_busy(self, busy: bool) -> None:
        self.refund.setEnabled(not busy)
        self.keep.setEnabled(not busy)

    def _asked(self, signal: SignalInstance) -> None:
        if self.first is not None:
            signal.emit(self.first)
