"""The Notifications window while the shared ledger is out of reach: Send a test notification
makes a test link and waits for its notification in the ledger, so it is refused with the one
sentence beside the button before anything is made or sent; the words go once the ledger
answers again."""

from __future__ import annotations

from tests.ui import press
from tests.ui.outage.conftest import refused


def notifications_window(shop):
    """View → Notifications…, as a person opens it; the test offered (a sandbox profile)."""
    bar, menu = shop.window.menuBar(), shop.window.view_menu
    press.click(bar, pos=bar.actionGeometry(menu.menuAction()).center())
    shop.loop.until(menu.isVisible, message="the View menu")
    press.click(menu, pos=menu.actionGeometry(shop.window.notifications_action).center())
    shop.loop.until(lambda: press.shown("notifications-window") is not None,
                    message="the Notifications window")
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
    shop.loop.until(lambda: window.result.text() == "", timeout=15,
                    message="the sentence gone once the ledger answers")
    assert window.test_button.isEnabled()
    assert shop.calls() == calls  # no test link made, nothing paid
    shop.no_crash()
