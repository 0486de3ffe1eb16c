"""The Notifications window while the shared ledger is out of reach: Send a test notification
makes a test link and waits for its notification in the ledger, so it is refused with the one
sentence beside the button before anything is made or sent; the words go once the ledger
answers again."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt

from paydesk.ui.notifications.model import PAGE
from tests.ui import press
from tests.ui.outage.conftest import refused


def notifications_window(shop):
    """View → Notifications…, as a person opens it; the test offered (a sandbox profile)."""
    bar, menu = shop.window.menuBar(), shop.window.view_menu
    press.click(bar, pos=bar.actionGeometry(menu.menuAction()).center())
    shop.loop.until(menu.isVisible, message="the View menu")
    press.click(menu, pos=menu.actionGeometry(shop.window.notifications_action).center())
    shop.loop.until(lambda: press.shown("notifications-window") is not None, message="the Notifications window")
    window = press.shown("notifications-window")
    shop.loop.until(window.test_button.isEnabled, timeout=30, message="the test offered")
    return window


def test_send_a_test_notification_is_refused_before_anything_is_made(shop):
    shop = shop()
    window = notifications_window(shop)
    calls = shop.calls()
    with shop.down():
        press.click(window.test_button)
        shop.loop.until(lambda: refused(window.result.text()), message="the sentence")
        shop.settle()
        assert refused(window.result.text()), window.result.text()
        shop.no_crash()
    shop.loop.until(lambda: window.result.text() == "", timeout=15, message="the sentence gone once the ledger answers")
    assert window.test_button.isEnabled()
    assert shop.calls() == calls  # no test link made, nothing paid
    shop.no_crash()


def test_scrolling_past_the_first_page_while_the_ledger_is_down_never_crashes(shop):
    """A list read a page at a time: the next page asked for while the ledger is out of reach
    is not read (nothing reaches the crash hook) and is read when asked once it answers."""
    shop = shop()
    inbox = shop.desk.inbox
    for i in range(PAGE + 20):
        body = json.dumps(
            {"event": "payment.completed", "data": {"tx_ref": f"SHOP-N-{i:04d}"}}, separators=(",", ":")
        ).encode()
        entry, _ = shop.loop.run(
            inbox.receive(
                body,
                {"content-type": "application/json"},
                "127.0.0.1",
                profile_id=shop.profile.id,
                mode="test",
                tx_ref=f"SHOP-N-{i:04d}",
                event="payment.completed",
            )
        )
        shop.loop.run(inbox.decide(entry.id, "applied", ""))
    window = notifications_window(shop)
    table, model = window.table, window.model
    shop.loop.until(lambda: model.rowCount() == PAGE, message="the first page")
    press.click(table.viewport(), pos=table.visualRect(model.index(0, 0)).center())
    with shop.down():
        press.key(table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        shop.settle(1.0)
        shop.no_crash()
        assert model.rowCount() == PAGE  # nothing made up
    press.key(table, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    press.key(table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    shop.loop.until(lambda: model.rowCount() > PAGE, timeout=15, message="the next page read once the ledger answers")
    shop.no_crash()


def test_a_search_while_the_ledger_is_down_is_read_once_it_answers(shop):
    """The search typed while the ledger is out of reach cannot be read: the list stays, its
    line says why, and once the ledger answers the search is read and the why goes."""
    shop = shop()
    window = notifications_window(shop)
    shop.loop.until(
        lambda: window.count.text().endswith("notifications") or window.count.text().endswith("notification"),
        message="the count",
    )
    with shop.down():
        press.type_into(window.search, "SHOP-NONE")
        shop.loop.until(
            lambda: "Shared ledger unreachable since" in window.count.text(), message="why the list is not searched"
        )
        shop.no_crash()
    shop.loop.until(
        lambda: window.count.text() == "0 notifications", timeout=15, message="the search read once the ledger answers"
    )
    shop.no_crash()
