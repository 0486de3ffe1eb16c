"""Money safety with a widget: a copied number does not outlive PayDesk on the clipboard.
(The rest of the wallet's money safety is Qt-free: tests/desk/cards/test_money_safety.py.)"""

import asyncio

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from paydesk.ui.cards.secret import SecretBox
from tests.ui import press


def test_a_copied_number_leaves_the_clipboard_when_paydesk_closes(qapp, loop, qtbot):
    class Card:
        card_pan, cvv = "4242424242424242", "123"

    async def fetch(action):
        return Card()

    box = SecretBox(fetch, lambda coro, name: asyncio.ensure_future(coro))
    qtbot.addWidget(box)
    box.set_card("424242******4242")
    box.show()
    qtbot.waitExposed(box)
    clipboard = QGuiApplication.clipboard()
    press.click(box.copy_button)
    loop.until(lambda: clipboard.text() == "4242424242424242", message="copied")
    assert bytes(clipboard.mimeData().data("x-kde-passwordManagerHint")) == b"secret"
    box.forget()  # what the main window does when it closes
    assert clipboard.text() == ""
    clipboard.setText("something else")  # copied since: left alone
    loop.run(asyncio.sleep(QApplication.doubleClickInterval() / 1000))  # a new click
    press.click(box.copy_button)
    loop.until(lambda: clipboard.text() == "4242424242424242", message="copied again")
    clipboard.setText("the user's own text")
    box.forget()
    assert clipboard.text() == "the user's own text"
