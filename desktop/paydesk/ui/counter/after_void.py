"""The red banner above the counter's list: a payment that came after its sale was voided,
shown loudly until someone decides (Refund… or Keep)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from ...ledger.counter import Sale
from ..fixed_text import use_fixed
from .sales import sale_money, sale_title

HEADLINE = "Paid after void: refund or keep"


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
        self.refund = QPushButton("Refund…")
        self.refund.setObjectName("counter-refund")
        self.refund.setAccessibleName("Refund")
        self.refund.clicked.connect(lambda: self._asked(self.refundRequested))
        row.addWidget(self.refund)
        self.keep = QPushButton("Keep")
        self.keep.setObjectName("counter-keep")
        self.keep.setAccessibleName("Keep")
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
        text = f"{HEADLINE}: {sale_title(sale)}, {sale_money(sale)}" + (f" (and {more} more)" if more else "")
        self.text.setText(text)
        self.text.setAccessibleName(text)
        reference = f"Reference {sale.tx_ref}"
        self.reference.setText(reference)
        self.reference.setAccessibleName(reference)
        self.show()

    def set_busy(self, busy: bool) -> None:
        self.refund.setEnabled(not busy)
        self.keep.setEnabled(not busy)

    def _asked(self, signal: SignalInstance) -> None:
        if self.first is not None:
            signal.emit(self.first)
