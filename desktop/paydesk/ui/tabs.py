"""The three tabs. Each shows what it will hold until its issue fills it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

TABS = (
    ("Payment links", "links",
     "Create a payment link, show it as a QR code, and watch it turn to PAID.\n"
     "Recent links of this mode will be listed here with their live states."),
    ("Transactions", "transactions",
     "Every link created and every transaction looked up, from PayDesk's own ledger:\n"
     "search by reference, filter by state, export for reconciliation."),
    ("Cards", "cards",
     "The wallet of virtual cards: create, fund, withdraw, block, unblock, terminate,\n"
     "and each card's transactions."),
)


class PlaceholderTab(QWidget):
    def __init__(self, title: str, name: str, text: str):
        super().__init__()
        self.setObjectName(f"tab-{name}")
        self.setAccessibleName(title)
        layout = QVBoxLayout(self)
        label = QLabel(text)
        label.setObjectName(f"{name}-placeholder")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setWordWrap(True)
        label.setAccessibleName(text.split("\n")[0])
        layout.addWidget(label)
