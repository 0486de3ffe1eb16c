"""Words that go when their cause goes (issue 29 item 7): "No test secret key for …" once
this desk's keys are saved (the key store's change heard: the status bar, the Create link
reason, the counter's line); and while the shop's notification receiver checks payments
(it holds the poller lease) the status bar says so instead of an ageing "Checked 13 min
ago" (the red "Shared ledger unreachable" going within seconds of the ledger's return is
in test_counter.py, measured)."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.ledger.postgres.lease import RECEIVER
from tests.helpers import MemoryKeyring
from tests.ui import press
from tests.ui.outage.test_links import fill

NO_KEY = "No test secret key for Corner Shop: add it in the profile editor"


def test_the_missing_key_notice_goes_once_the_keys_are_saved(shop, pg_url):
    first = shop()
    first.loop.run(first.session.save_profile(replace(first.profile, shop_email="till@example.com"), {}))
    other = shop(beside=first)  # another desk of the shop: the merchant, none of its keys
    loop, window = other.loop, other.window
    loop.until(lambda: window.links_tab.loaded and other.profile is not None, message="the merchant seen there")
    status, form = window.status, window.links_tab.form
    # Create link: refused for want of the key, said beside the button and in the status bar
    fill(form, "SHOP-KEY-1")
    loop.run(press.click_starting(form.create_button, "create"), timeout=30)
    assert form.why_disabled.text() == NO_KEY
    loop.until(lambda: status.connection.text() == NO_KEY, message="the status bar's word")
    # the Counter's Sell: the same, under its buttons
    press.key(window.focusWidget() or window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    counter = window.counter_tab
    loop.until(lambda: window.tabs.currentWidget() is counter and counter.loaded, message="the Counter tab")
    press.type_into(counter.amount, "5")
    loop.run(press.starting("sell", lambda: press.enter(counter.amount)), timeout=30)
    assert counter.message.text() == NO_KEY
    # the keys typed into the profile editor and saved (as the person was told)
    task = press.click_starting(window.edit_profile, "editor")
    loop.until(lambda: press.shown("profile-editor") is not None, message="the editor")
    editor = press.shown("profile-editor")
    for mode, kind in (("test", "secret"), ("test", "public")):
        press.type_into(editor.key_fields[(mode, kind)].edit, other.sandbox.key(mode, kind))
    press.click(editor.save_button)
    loop.run(task, timeout=60)
    assert loop.run(other.session.key()) == other.sandbox.key("test", "secret")
    # every notice of the missing key has gone, with no call made since
    loop.until(lambda: status.connection.text() != NO_KEY, message="the status bar's word gone")
    assert not counter.message.isVisible() and counter.message.text() == ""
    assert form.why_disabled.text() != NO_KEY
    other.no_crash()


def test_while_the_receiver_checks_payments_the_status_says_so(shop, pg_url, tmp_path, loop):
    here = shop()
    status = here.window.status
    here.link("SHOP-CHK-1")  # a call of this desk: "Checked 0 s ago"
    loop.until(lambda: status.connection.text().startswith("Checked"), message="Checked")
    # the shop's notification receiver starts: it takes the poller lease from this desk
    receiver = build_desk(
        Paths(data=tmp_path / "receiver", sandbox=tmp_path / "rsb").ensure(),
        KeyStore(MemoryKeyring()),
        ledger_url=pg_url,
        lease_priority=RECEIVER,
    )
    loop.run(receiver.open())
    loop.run(receiver.naming.rename("shop-server"))  # the receiver's desk, named by the shop
    receiver.start_background()
    try:
        loop.until(
            lambda: status.shared.text() == "Payments checked by the notification receiver on shop-server",
            timeout=30,
            message="who checks payments",
        )
        loop.until(
            lambda: not status.connection.isVisible() or not status.connection.text(),
            timeout=5,
            message="no ageing Checked … ago while the receiver checks",
        )
        assert not status.connection.text().startswith("Checked")
    finally:
        loop.run(receiver.close())
    # the receiver gone, this desk checks payments again, and says when it last did
    loop.until(
        lambda: status.shared.text() == "Payments checked by Counter 1", timeout=30, message="this desk checks again"
    )
    loop.until(lambda: status.connection.text().startswith("Checked"), timeout=5, message="Checked again")
    here.no_crash()


def test_while_notifications_bring_payments_the_status_says_so(start_app, loop):
    """On the embedded sandbox the app's own receiver hears each payment: the status bar's
    word on the connection says so, not when this desk last asked."""
    from tests import helpers

    app = start_app(sandbox=True)
    app.on_links_tab()
    status, tab = app.window.status, app.window.links_tab
    fill(tab.form, tab.form.tx_ref.text())
    loop.run(press.click_starting(tab.form.create_button, "create"), timeout=30)
    record = tab.panel.record
    assert record is not None and record.reference
    loop.until(lambda: status.connection.text().startswith("Checked"), message="Checked")
    helpers.control(
        app.session.profile.base_url, loop.run(app.session.key()), f"pay/{record.reference}", {"outcome": "success"}
    )
    loop.until(lambda: tab.panel.state.text() == "PAID", timeout=30, message="PAID")
    loop.until(
        lambda: status.notifications is not None and status.notifications.text().startswith("Last notification"),
        message="the notification heard",
    )
    loop.until(lambda: status.connection.text() == "PAID by notification", timeout=5, message="the connection's word")
    app.close()
