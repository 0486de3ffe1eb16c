"""The Notifications window, the status bar's last notification, how PAID was learned in a
record's details, and the webhook secret in the profile editor: a shop on a real sandbox,
pressed as a user presses (tests/ui/press.py). Entries reach the inbox through its public
interface (``desk.inbox.receive``/``decide``) and are announced on the hub as the receiver
announces them."""

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from paydesk.ledger.inbox import APPLIED, STALE
from paydesk.ui.fixed_text import is_fixed
from paydesk.ui.main_window import MainWindow
from paydesk.ui.notifications.model import PAGE
from tests.ui import press
from tests.ui.test_accessibility import _labels_named_otherwise, _unnamed_focusable

pytestmark = pytest.mark.dialects("strict")


def announce(shop, entry):
    """An entry kept or decided, said on the desk's hub as the receiver says it."""
    shop.window.desk.hub.notification_changed.emit(entry)


def receive(shop, tx_ref, *, event="payment.completed", verdict=None, detail="", said=False):
    """One notification kept in the desk's inbox (and decided, when ``verdict``); with
    ``said``, announced after each step as the receiver announces it."""
    desk = shop.window.desk
    body = json.dumps({"event": event, "data": {"tx_ref": tx_ref, "status": "success"}}, separators=(",", ":")).encode()
    entry, _ = shop.loop.run(
        desk.inbox.receive(
            body,
            {"content-type": "application/json", "signature": "0f" * 32},
            "127.0.0.1",
            profile_id=shop.profile.id,
            mode="test",
            tx_ref=tx_ref,
            event=event,
        )
    )
    if said:
        announce(shop, entry)
    if verdict is not None:
        entry = shop.loop.run(desk.inbox.decide(entry.id, verdict, detail))
        if said:
            announce(shop, entry)
    return entry


def refuse(shop, tx_ref, peer="127.0.0.1", said=False):
    """A forged body refused (no key verifies it), traced as the receiver traces it."""
    desk = shop.window.desk
    body = json.dumps({"event": "payment.completed", "data": {"tx_ref": tx_ref}}).encode()
    trace = shop.loop.run(desk.inbox.refuse(body, peer))
    if said:
        desk.hub.refused_changed.emit(trace.remote)
    return trace


def open_notifications(shop):
    """Ctrl+Shift+N from the Transactions tab; the window once its list is read."""
    press.click(shop.tab.lookup_box)
    press.key(
        shop.tab.lookup_box, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    shop.loop.until(lambda: press.shown("notifications-window") is not None, message="the Notifications window")
    window = press.shown("notifications-window")
    assert window.windowTitle() == "Notifications — PayDesk"
    shop.loop.until(
        lambda: window.count.text().endswith(("notification", "notifications")), message="the list and its count"
    )
    return window


def rows(window):
    model = window.model
    return [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]


def test_the_list_filtered_searched_and_in_full(strict_shop):
    shop = strict_shop
    receive(shop, "SHOP-A", verdict=APPLIED, detail="the service says PAID")
    refuse(shop, "SHOP-B")  # a forgery: not a notification, counted apart
    receive(shop, "SHOP-C", verdict=STALE, detail="the ledger knew it already")
    window = open_notifications(shop)
    shown = rows(window)
    assert [row[1] for row in shown] == ["SHOP-C", "SHOP-A"]  # newest first
    assert shown[0][2:] == ["payment.completed", "Stale", "Corner Shop · TEST", "the ledger knew it already"]
    assert window.model.headerData(1, Qt.Orientation.Horizontal) == "Reference"
    assert window.count.text() == "2 notifications"
    shop.loop.until(
        lambda: window.refused.text() == "1 refused from 127.0.0.1 in the last hour",
        message="the refused request, counted",
    )
    assert is_fixed(window.model.index(0, 1).data(Qt.ItemDataRole.FontRole))
    # every control named, every label named by what it shows
    assert _unnamed_focusable(window, at_least=5) == []
    assert _labels_named_otherwise(window) == []

    press.choose(window.verdict, "Stale")
    shop.loop.until(lambda: len(rows(window)) == 1 and window.count.text() == "1 notification")
    press.choose(window.verdict, "All verdicts")
    press.type_into(window.search, "shop-a")  # case ignored
    shop.loop.until(lambda: [r[1] for r in rows(window)] == ["SHOP-A"], message="the search")

    # one entry in full: its headers and its raw body, as text to select and copy
    table = window.table
    press.click(table.viewport(), pos=table.visualRect(window.model.index(0, 1)).center())
    text = window.details.toPlainText()
    assert "Verdict: Applied" in text and "Detail: the service says PAID" in text
    assert "content-type: application/json" in text and "signature: " + "0f" * 32 in text
    assert text.endswith('{"event":"payment.completed","data":{"tx_ref":"SHOP-A","status":"success"}}')
    assert window.details.isReadOnly()
    assert window.details.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByKeyboard
    press.escape(window.table)  # Escape closes it, as a dialog
    shop.loop.until(lambda: press.closed(window), message="the window closed")


def test_live_entries_on_top_and_verdicts_in_place(strict_shop):
    shop = strict_shop
    receive(shop, "SHOP-OLD", verdict=APPLIED)
    window = open_notifications(shop)
    reads = []
    window.model.modelAboutToBeReset.connect(lambda: reads.append(1))  # a full re-read
    entry = receive(shop, "SHOP-NEW", said=True)
    shop.loop.until(lambda: [r[1] for r in rows(window)] == ["SHOP-NEW", "SHOP-OLD"])
    assert rows(window)[0][3] == "Pending"
    press.click(window.table.viewport(), pos=window.table.visualRect(window.model.index(0, 0)).center())
    assert "Verdict: Pending" in window.details.toPlainText()
    decided = shop.loop.run(shop.window.desk.inbox.decide(entry.id, APPLIED, "the service says PAID"))
    announce(shop, decided)
    assert rows(window)[0][3] == "Applied" and rows(window)[0][5] == "the service says PAID"
    assert "Verdict: Applied" in window.details.toPlainText()  # the details follow
    shop.loop.until(lambda: window.count.text() == "2 notifications")
    assert reads == []  # nothing was read again
    # a list of one verdict: a decided entry leaves it, a new one of it joins
    press.choose(window.verdict, "Pending")
    shop.loop.until(lambda: rows(window) == [])
    receive(shop, "SHOP-NEXT", said=True)
    assert [r[1] for r in rows(window)] == ["SHOP-NEXT"]


def test_paged_never_all_rows(strict_shop):
    shop = strict_shop
    for n in range(PAGE + 30):
        receive(shop, f"SHOP-{n:04d}")
    window = open_notifications(shop)
    assert window.model.rowCount() == PAGE  # the first page only
    assert window.count.text() == f"{PAGE + 30} notifications"
    press.click(window.table.viewport(), pos=window.table.visualRect(window.model.index(0, 0)).center())
    # to the bottom, as a user goes there: the next page is read
    press.key(window.table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    shop.loop.until(lambda: window.model.rowCount() == PAGE + 30, message="the next page")
    assert rows(window)[-1][1] == "SHOP-0000"


def test_the_status_bar_says_when_the_last_notification_came(strict_shop):
    shop = strict_shop
    label = shop.window.status.notifications
    assert not label.isVisible()  # nothing yet: nothing said
    # a link paid while no notification arrived (learned by checking)
    record = shop.create("SHOP-PAID-1")
    reference = record.checkout_url.rsplit("/", 1)[1]
    shop.control(f"pay/{reference}", {"outcome": "success"})
    shop.loop.run(shop.window.links.check(record))
    shop.loop.until(lambda: label.text() == "No notification since start")
    assert label.isVisible() and label.accessibleName() == "Notifications: No notification since start"
    receive(shop, "SHOP-PAID-1", said=True)
    shop.loop.until(lambda: label.text() == "Last notification just now")
    assert label.accessibleName() == "Notifications: Last notification just now"
    # how PAID was learned, in the record's details
    shop.loop.until(lambda: shop.tab.model.row_of(record.key) is not None)
    row = shop.tab.model.row_of(record.key)
    press.click(shop.tab.table.viewport(), pos=shop.tab.table.visualRect(shop.tab.model.index(row, 0)).center())
    shop.loop.until(lambda: shop.tab.details.values["learned"].text() == "check")
    assert shop.tab.details.values["learned"].accessibleName() == "Learned by: check"


def test_last_notification_read_at_start(strict_shop, qtbot):
    shop = strict_shop
    receive(shop, "SHOP-BEFORE", verdict=APPLIED)
    # a window opened on this ledger now (as at the next start) reads when it came
    window = MainWindow(shop.window.desk)
    qtbot.addWidget(window)
    window.show()
    label = window.status.notifications
    shop.loop.until(lambda: label.text() == "Last notification just now", message="read at start")
    assert label.isVisible()
    refuse(shop, "SHOP-BAD", said=True)  # a forgery is no notification
    assert label.text() == "Last notification just now"
    assert window.status.notifications is label and shop.window.status.notifications is not label


def test_send_a_test_notification_says_where_it_broke(strict_shop):
    shop = strict_shop
    window = open_notifications(shop)
    button = window.test_button
    shop.loop.until(
        lambda: window.offered is not None and button.isEnabled(), message="the test offered on the sandbox"
    )
    assert button.accessibleName() == button.text() == "Send a test notification"
    task = press.click_starting(button, "test")
    outcome = shop.loop.run(task, timeout=30)
    assert outcome.step == "send" and not outcome.ok
    assert window.result.text().startswith("The service did not send a notification")
    assert window.result.accessibleName() == window.result.text()
    # the test link is an ordinary record of the ledger
    record = shop.loop.run(shop.session.ledger.get(shop.profile.id, outcome.tx_ref))
    assert record.customization.get("title") == "PayDesk notification test"
    # in live mode it is not offered
    shop.loop.run(shop.session.set_mode("live"))
    shop.loop.until(lambda: not button.isEnabled(), message="not offered in live mode")
    assert "sandbox" in button.toolTip()


def test_the_webhook_secret_in_the_profile_editor(strict_shop):
    shop = strict_shop
    press.click(shop.tab.lookup_box)
    press.key(shop.tab.lookup_box, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    shop.loop.until(lambda: press.shown("profile-editor") is not None, message="the editor")
    editor = press.shown("profile-editor")
    field = editor.findChild(QLineEdit, "key-webhook")
    shop.loop.until(lambda: field.isVisible())
    assert field.echoMode() == QLineEdit.EchoMode.Password and field.text() == ""
    assert field.accessibleName() == "Webhook secret"
    note = editor.webhook_note.text()
    assert "dashboard webhook secret" in note and "signs with the secret key" in note
    press.type_into(field, "whsec_corner_shop_1")
    task = press.click_starting(editor.save_button, "save")
    assert shop.loop.run(task, timeout=60)
    keys = shop.session.keys
    assert shop.loop.run(keys.get(shop.profile.id, "test", "webhook")) == "whsec_corner_shop_1"


def test_a_test_notification_through_the_whole_path(strict_shop):
    """A receiver of this desk on loopback (as the app runs one for the embedded sandbox),
    given to the sandbox as the merchant's webhook URL: the test's link turns PAID by
    notification, and every screen says so."""
    from paydesk.receiver.serve import Receiver
    from paydesk.service.sandbox_control import set_webhook_url

    shop = strict_shop
    receiver = Receiver(shop.window.desk, "127.0.0.1", 0)
    shop.loop.run(receiver.start())
    try:
        shop.loop.run(set_webhook_url(shop.sandbox.base_url, shop.sandbox.key(), receiver.url))
        window = open_notifications(shop)
        shop.loop.until(
            lambda: window.offered is not None and window.test_button.isEnabled(),
            message="the test offered on the sandbox",
        )
        outcome = shop.loop.run(press.click_starting(window.test_button, "test"), timeout=30)
        assert outcome.ok, outcome.text
        assert window.result.text() == f"Notifications work: PAID in {outcome.millis} ms"
        # the notification in the list, decided, without reading the list again
        shop.loop.until(
            lambda: rows(window) and rows(window)[0][1] == outcome.tx_ref and rows(window)[0][3] == "Applied",
            message="the entry, applied",
        )
        assert rows(window)[0][2] == "payment.completed"
        assert rows(window)[0][4] == "Corner Shop · TEST"
        label = shop.window.status.notifications
        assert label.text() == "Last notification just now" and label.isVisible()
        # how PAID was learned, in the record's details on the Transactions tab
        record = shop.loop.run(shop.session.ledger.get(shop.profile.id, outcome.tx_ref))
        shop.window.activateWindow()
        shop.loop.until(lambda: shop.tab.model.row_of(record.key) is not None)
        row = shop.tab.model.row_of(record.key)
        press.click(shop.tab.table.viewport(), pos=shop.tab.table.visualRect(shop.tab.model.index(row, 0)).center())
        shop.loop.until(lambda: shop.tab.details.values["learned"].text() == "notification")
        assert shop.tab.model.index(row, 5).data() == "PAID"
    finally:
        shop.loop.run(receiver.close())


def test_the_app_on_its_sandbox_gets_paid_by_notification(start_app, loop):
    """``paydesk --sandbox`` as a user starts it: the app's own receiver is given to the
    embedded sandbox, so the test notification works with nothing set up."""
    app = start_app(sandbox=True).on_links_tab()
    window = app.window
    press.tab(window.tabs, "Transactions")
    loop.until(lambda: window.transactions_tab.loaded, message="the transactions tab")
    press.click(window.transactions_tab.lookup_box)
    press.key(
        window.transactions_tab.lookup_box,
        Qt.Key.Key_N,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    loop.until(lambda: press.shown("notifications-window") is not None, message="the window")
    notifications = press.shown("notifications-window")
    loop.until(lambda: notifications.test_button.isEnabled(), message="the test offered")
    outcome = loop.run(press.click_starting(notifications.test_button, "test"), timeout=30)
    assert outcome.ok and outcome.text.startswith("Notifications work: PAID in "), outcome.text
    assert window.status.notifications.text() == "Last notification just now"
    app.close()


def test_a_flood_of_forgeries_is_one_line_per_peer(strict_shop):
    """Issue 29: 100 forged bodies made 104 rows of this window. Posted to a receiver of
    this desk over HTTP (behind a proxy on this computer, which names the peer), they are
    one line per peer above the list; a real notification among them is listed, whole."""
    import httpx

    from paydesk.receiver.serve import Receiver
    from paydesk.receiver.signature import sign

    shop = strict_shop
    receiver = Receiver(shop.window.desk, "127.0.0.1", 0)
    shop.loop.run(receiver.start())
    try:
        window = open_notifications(shop)
        assert not window.refused.isVisible()  # nothing refused: nothing said
        assert window.verdict.findText("Bad signature") < 0  # no list of forgeries

        async def post_all():
            async with httpx.AsyncClient(timeout=30) as client:
                for n in range(104):
                    peer = "10.0.0.7" if n < 101 else "203.0.113.9"
                    answer = await client.post(
                        receiver.url,
                        content=b'{"forged": %d}' % n,
                        headers={"Content-Type": "application/json", "Signature": "ab" * 32, "X-Forwarded-For": peer},
                    )
                    assert answer.status_code == 401
                body = b'{"event":"payment.completed","data":{"tx_ref":"SHOP-REAL"}}'
                answer = await client.post(
                    receiver.url,
                    content=body,
                    headers={
                        "Content-Type": "application/json",
                        "Signature": sign(body, shop.sandbox.key("test", "secret")),
                    },
                )
                assert answer.status_code == 200

        shop.loop.run(post_all(), timeout=60)
        expected = "101 refused from 10.0.0.7 in the last hour\n3 refused from 203.0.113.9 in the last hour"
        shop.loop.until(
            lambda: window.refused.text() == expected, timeout=10, message="the forgeries, one line per peer"
        )
        assert window.refused.isVisible() and window.refused.accessibleName() == expected
        shop.loop.until(
            lambda: [r[1] for r in rows(window)] == ["SHOP-REAL"], message="the real notification, listed alone"
        )
        assert window.count.text() == "1 notification"
    finally:
        shop.loop.run(receiver.close())
