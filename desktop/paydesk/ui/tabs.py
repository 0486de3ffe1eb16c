"""The three tabs. Each shows what it will hold until its issue fills it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

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


def _takes_typing(widget: QWidget) -> bool:
    if isinstance(widget, (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox)):
        return not widget.isReadOnly()
    return isinstance(widget, QComboBox) and widget.isEditable()


def first_field(tab: QWidget | None) -> QWidget | None:
    """Where typing should go when ``tab`` is shown: its first field a user can type in (in
    the order Tab visits them), else its first widget that takes the keyboard, else a list."""
    if tab is None:
        return None
    candidates: list[QWidget] = []
    widget = tab.nextInFocusChain()
    while widget is not tab and widget is not None and len(candidates) < 500:
        if tab.isAncestorOf(widget) and widget.isVisibleTo(tab) and widget.isEnabled() \
                and widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
            if _takes_typing(widget):
                return widget
            candidates.append(widget)
        widget = widget.nextInFocusChain()
    lists = [w for w in candidates if isinstance(w, QAbstractItemView)]
    return (lists or candidates or [None])[0]
