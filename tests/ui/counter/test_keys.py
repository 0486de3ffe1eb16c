"""The counter's keys as staff use them without the mouse: Tab goes Amount → Note → e-mail,
and a note with spaces is typed whole (never into the currency box, whose list a space
opens); the currency is reached after them."""

from __future__ import annotations

from decimal import Decimal

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.ui import press


def test_tab_goes_amount_note_email_and_a_note_with_spaces_is_typed_whole(counter, loop):
    tab = counter.tab
    assert QApplication.focusWidget() is tab.amount  # Ctrl+4
    currency = tab.currency.currentText()
    assert press.at_keyboard("12") is tab.amount
    assert press.at_keyboard(which=Qt.Key.Key_Tab) is tab.amount
    assert QApplication.focusWidget() is tab.note, QApplication.focusWidget()
    assert press.at_keyboard("two flat whites") is tab.note
    assert QApplication.activePopupWidget() is None, "a list opened"
    assert tab.note.text() == "two flat whites" and tab.currency.currentText() == currency
    press.at_keyboard(which=Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is tab.email
    press.at_keyboard("kim@example.com")
    press.at_keyboard(which=Qt.Key.Key_Tab)  # the currency comes after
    assert QApplication.focusWidget() is tab.currency
    back = [
        press.at_keyboard(which=Qt.Key.Key_Backtab) and QApplication.focusWidget() for _ in range(3)
    ]  # and back, with Shift+Tab
    assert back == [tab.email, tab.note, tab.amount]
    task = press.starting("sell", lambda: press.at_keyboard(which=Qt.Key.Key_Return))
    sale = loop.run(task, timeout=60)
    assert (sale.record.title, sale.record.email, sale.record.amount) == (
        "two flat whites",
        "kim@example.com",
        Decimal(12),
    )
