"""The counter display: a customer-facing window with the big QR, the amount, the merchant's
title and the live state. Keyboard-driven: type the amount, Enter creates, Escape clears.
It opens blank, ready for the next customer. One customer, one link: from the first Enter
until Escape (while the link is made, and while its code is shown) Enter does nothing more.
Escape on a blank display closes it (so does "Close counter display" on the desk)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from ...desk.checks import WHOLE_UNITS, WHOLE_UNITS_SHORT
from ...desk.checks import amount as check_amount
from ...desk.states import money, state_words
from ...ledger import LinkRecord
from .panel import paint_state, state_label
from .qr import QrWidget
from .watermark import Watermark

NEXT_CUSTOMER = "This customer's code is on screen: press Escape for the next customer"


class CounterWindow(QWidget):
    createRequested = Signal(str)  # the amount typed at the counter
    cleared = Signal()  # nothing is shown (Escape, or the window went away)
    visibleChanged = Signal(bool)  # opened or closed (the desk's button follows it)

    def __init__(self):
        super().__init__(None, Qt.WindowType.Window)
        self.setObjectName("counter-window")
        self.setWindowTitle("PayDesk counter")
        self.record: LinkRecord | None = None
        column = QVBoxLayout(self)
        self.title = QLabel("")
        self.title.setObjectName("counter-title")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        big = self.title.font()
        big.setPointSize(22)
        self.title.setFont(big)
        column.addWidget(self.title)
        self.amount = state_label("counter-amount", 36)
        column.addWidget(self.amount)
        self.qr = QrWidget(minimum=240)
        self.qr.setObjectName("counter-qr")
        column.addWidget(self.qr, 1)
        self.state = state_label("counter-state", 30)
        column.addWidget(self.state)
        row = QHBoxLayout()
        caption = QLabel("Amount for the next customer:")
        caption.setObjectName("counter-amount-label")
        row.addStretch(1)
        row.addWidget(caption)
        self.entry = QLineEdit()
        self.entry.setObjectName("counter-amount-entry")
        self.entry.setAccessibleName("Amount for the next customer")
        self.entry.setPlaceholderText("e.g. 25, then Enter (Escape clears)")
        self.entry.setToolTip(WHOLE_UNITS)
        self.entry.setMinimumWidth(260)
        self.entry.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.entry.returnPressed.connect(self._enter)
        caption.setBuddy(self.entry)
        row.addWidget(self.entry)
        self.units = QLabel(WHOLE_UNITS_SHORT)
        self.units.setObjectName("counter-amount-units")
        self.units.setAccessibleName(WHOLE_UNITS_SHORT)  # what it shows
        self.units.setAccessibleDescription(WHOLE_UNITS)
        self.units.setStyleSheet("color: #5c6675;")
        row.addWidget(self.units)
        row.addStretch(1)
        column.addLayout(row)
        self.message = QLabel("")
        self.message.setObjectName("counter-message")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setStyleSheet("color: #b3261e; font-weight: 600;")
        column.addWidget(self.message)
        self.connection = QLabel("")
        self.connection.setObjectName("counter-connection")
        self.connection.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.connection.setStyleSheet("color: #5c6675;")
        column.addWidget(self.connection)
        self.busy = False
        self.watermark = Watermark(self)
        self.set_test(True)
        self.show_record(None)

    def set_test(self, test: bool) -> None:
        self.watermark.setVisible(test)
        self.watermark.lower()
        self.setWindowTitle("PayDesk counter — TEST" if test else "PayDesk counter")

    def resizeEvent(self, event) -> None:  # noqa: N802
        self.watermark.setGeometry(self.rect())
        super().resizeEvent(event)

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        self.visibleChanged.emit(True)

    def hideEvent(self, event) -> None:  # noqa: N802 - closed or hidden: no link on screen
        self.cleared.emit()
        super().hideEvent(event)
        self.visibleChanged.emit(False)

    def set_busy(self, busy: bool) -> None:
        """A link is being created: Enter is ignored until it is done."""
        self.busy = busy
        self.entry.setReadOnly(busy or self.record is not None)
        if busy:
            self.message.setText("Creating the link…")
            self.message.setAccessibleName("Creating the link")
        elif self.message.text() == "Creating the link…":
            self.message.setText("")
            self.message.setAccessibleName("")

    def set_connection(self, text: str) -> None:
        self.connection.setText(text)
        self.connection.setAccessibleName(f"Connection: {text}" if text else "Connection")

    def say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setAccessibleName(text)

    def _enter(self) -> None:
        """One Enter, one link: ignored while one is made or its code is on screen."""
        if self.busy:
            return
        if self.record is not None:
            self.say(NEXT_CUSTOMER)
            return
        problem = check_amount(self.entry.text())
        self.say(problem or "")
        if not problem:
            self.set_busy(True)  # at once: a second Enter before the create starts is ignored
            self.createRequested.emit(self.entry.text().strip())

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape:
            if self.busy and self.record is None:
                return  # the link being made will be shown; Escape then clears it
            if self.record is None and not self.entry.text():
                self.close()  # blank already: Escape leaves the display
                return
            self.clear()
            return
        super().keyPressEvent(event)

    def clear(self) -> None:
        self.entry.clear()
        self.message.setText("")
        self.show_record(None)
        self.entry.setFocus()
        self.cleared.emit()

    def show_record(self, record: LinkRecord | None) -> None:
        previous, self.record = self.record, record
        self.entry.setReadOnly(self.busy or record is not None)
        if record is None:
            self.qr.set_text(None)
            self.amount.setText("")
            self.title.setText("")
            self.state.setText("")
            self.state.setStyleSheet("")
            self.state.setAccessibleName("")  # it shows nothing: named by nothing
            self.state.setAccessibleDescription("Waiting for the next customer")
            return
        self.state.setAccessibleDescription("")
        if previous is None or previous.key != record.key:
            self.say("")  # a new link: what was said was about another
        self.qr.set_text(record.checkout_url)
        self.qr.set_done(state_words(record).words if record.final else None)
        self.amount.setText(money(record))
        self.amount.setAccessibleName(f"Amount {money(record)}")
        self.title.setText(record.title)
        paint_state(self.state, record)

    def update_record(self, record: LinkRecord) -> None:
        if self.record and (self.record.profile_id, self.record.tx_ref) == (record.profile_id, record.tx_ref):
            self.show_record(record)

    def show_on(self, screen) -> None:
        """Full screen on the chosen monitor (the customer-facing one)."""
        if screen is not None:
            self.setScreen(screen)
            self.move(screen.geometry().topLeft())
        self.showFullScreen()
        self.entry.setFocus()
