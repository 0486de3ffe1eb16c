"""The card dialogs as a user meets them (issue 15, blocker): each a window with a title, its
buttons on screen and named by their verb, Enter pressing the verb, Escape cancelling; and the
Create card dialog asking for the name on the card."""

import asyncio

import httpx
from PySide6.QtWidgets import QApplication, QPushButton

from tests.ui import press
from tests.ui.cards.test_wallet import Desk
from tests.ui.test_accessibility import _unnamed_focusable


def calls_to(desk, path_end):
    """How many calls of this merchant the service logged at a path ending so."""
    key = desk.loop.run(desk.session.key())
    calls = httpx.get(f"{desk.profile.base_url}/_sandbox/requests", headers={"Authorization": f"Bearer {key}"}).json()[
        "data"
    ]
    return sum(1 for c in calls if c["path"].endswith(path_end))


def buttons_on_screen(dialog):
    return [b.text() for b in dialog.findChildren(QPushButton) if b.isVisible()]


def test_each_card_dialog_shows_its_buttons_and_answers_enter_and_escape(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    tab = desk.tab

    # Create card: filled in and sent with Enter alone, from the last field typed
    desk.press(tab.wallet.create_button)
    dialog = desk.dialog("create-card-dialog")
    assert dialog.windowTitle() == "Create card"
    # the keyboard starts in the first field: typing at once types the name
    loop.until(lambda: QApplication.focusWidget() is dialog.first_name, message="the keyboard in the first field")
    assert buttons_on_screen(dialog) == ["Create card", "Cancel"]
    assert [b.accessibleName() for b in (dialog.action, dialog.close_button)] == ["Create card", "Cancel"]
    assert _unnamed_focusable(dialog, at_least=6) == []
    assert [dialog.first_name.accessibleName(), dialog.last_name.accessibleName()] == [
        "First name on card",
        "Last name on card",
    ]
    press.type_into(dialog.first_name, "Ada")
    press.type_into(dialog.last_name, "Lovelace")
    press.type_into(dialog.amount, "30")
    press.enter(dialog.amount)
    loop.until(lambda: "Card created" in dialog.outcome.text(), timeout=30, message="created with Enter")
    assert buttons_on_screen(dialog) == ["Close"]  # done: the verb is gone, Enter closes
    press.enter(dialog.amount)
    loop.until(lambda: not dialog.isVisible() and tab.dialog is None, message="closed")
    loop.until(lambda: tab.page.record is not None, message="the new card's page")

    # Fund and Withdraw: the verb and Cancel; Escape cancels, nothing sent
    for kind, title, verb in (("fund", "Fund card", "Fund"), ("withdraw", "Withdraw from card", "Withdraw")):
        sent = calls_to(desk, f"/virtual_card/{kind}")
        desk.press(tab.page.buttons[kind])
        dialog = desk.dialog(f"{kind}-dialog")
        assert dialog.windowTitle() == title
        loop.until(
            lambda dialog=dialog: QApplication.focusWidget() is dialog.amount, message="the keyboard in the amount"
        )
        assert buttons_on_screen(dialog) == [verb, "Cancel"]
        assert dialog.action.accessibleName() == verb and dialog.action.isDefault()
        press.type_into(dialog.amount, "3")
        press.escape(dialog.amount)
        loop.until(lambda dialog=dialog: not dialog.isVisible() and tab.dialog is None, message="cancelled")
        loop.run(asyncio.sleep(0.2))
        assert calls_to(desk, f"/virtual_card/{kind}") == sent

    # Fund with Enter: done
    desk.press(tab.page.buttons["fund"])
    dialog = desk.dialog("fund-dialog")
    press.type_into(dialog.amount, "5")
    press.enter(dialog.amount)
    loop.until(lambda: "New balance: GBP 35.00" in dialog.outcome.text(), timeout=30, message="funded with Enter")
    desk.close(dialog)

    # Terminate: the verb, named so; Cancel leaves the card as it was
    desk.press(tab.page.buttons["terminate"])
    dialog = desk.dialog("terminate-dialog")
    assert dialog.windowTitle() == "Terminate card"
    loop.until(lambda: QApplication.focusWidget() is dialog.last4, message="the keyboard in the last four digits")
    assert buttons_on_screen(dialog) == ["Terminate", "Cancel"]
    press.click(dialog.close_button)
    loop.until(lambda: not dialog.isVisible() and tab.dialog is None, message="cancelled")
    assert tab.page.values["state"].text() == "Active"


def test_create_card_asks_for_the_name_on_the_card(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    sent = calls_to(desk, "/virtual_card/create")
    desk.press(desk.tab.wallet.create_button)
    dialog = desk.dialog("create-card-dialog")
    press.type_into(dialog.amount, "20")
    press.enter(dialog.amount)
    loop.until(lambda: dialog.first_name_message.isVisible(), message="the first name asked")
    assert "Enter the cardholder's first name" in dialog.first_name_message.text()
    assert "Enter the cardholder's last name" in dialog.last_name_message.text()
    assert dialog.last_name_message.isVisible()
    loop.run(asyncio.sleep(0.2))
    assert calls_to(desk, "/virtual_card/create") == sent  # nothing sent

    # checked as typed: the message next to the field follows each change
    press.type_into(dialog.first_name, "Grace")
    assert not dialog.first_name_message.isVisible()
    press.clear(dialog.first_name)
    assert dialog.first_name_message.isVisible()
    assert "first name" in dialog.first_name_message.text()
    press.type_into(dialog.first_name, "  Grace ")
    press.type_into(dialog.last_name, "Hopper")
    assert not dialog.first_name_message.isVisible() and not dialog.last_name_message.isVisible()
    press.click(dialog.action)
    loop.until(lambda: "Card created" in dialog.outcome.text(), timeout=30, message="created")
    assert calls_to(desk, "/virtual_card/create") == sent + 1
    desk.close(dialog)
    # the name as typed (trimmed) reached the service: the card's page shows it as issued
    loop.until(
        lambda: desk.tab.page.values["name"].text() == "GRACE HOPPER",
        message="the cardholder's name on the card's page",
    )
