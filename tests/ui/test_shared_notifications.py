"""The Notifications window on a shop's shared ledger (a real PostgreSQL, a real sandbox):
what reaches the shop's inbox elsewhere (another desk, or the receiver) shows here as it is
kept and as it is decided, and the list is read from the database a page at a time."""

from __future__ import annotations

import json

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.desk.notify_test import NotificationTest
from paydesk.ledger.inbox import APPLIED
from paydesk.ui.notifications.window import NotificationsWindow
from tests import profiles
from tests.helpers import MemoryKeyring
from tests.ui import press


def test_another_desks_notifications_show_here(paths, keys, loop, tmp_path, sandbox, pg_url, qtbot):
    desks = []
    try:
        for name, desk_paths, desk_keys in (
            ("Counter 1", paths, keys),
            (
                "Finance",
                Paths(data=tmp_path / "there", sandbox=tmp_path / "there-sb").ensure(),
                KeyStore(MemoryKeyring()),
            ),
        ):
            desk = build_desk(desk_paths, desk_keys, ledger_url=pg_url)
            loop.run(desk.open())
            loop.run(desk.naming.rename(name))
            desks.append(desk)
        here, there = desks
        merchant = loop.run(profiles.add_profile(here.session, sandbox, txref_prefix="SHOP"))
        loop.run(there.session.save_profile(merchant, profiles.keys_of(sandbox)))
        body = json.dumps({"event": "payment.completed", "data": {"tx_ref": "SHOP-OLD"}}).encode()
        loop.run(
            there.inbox.receive(
                body,
                {"content-type": "application/json"},
                "10.0.0.9",
                profile_id=merchant.id,
                mode="test",
                tx_ref="SHOP-OLD",
                event="payment.completed",
            )
        )
        for desk in desks:
            desk.start_background()
        window = NotificationsWindow(here.session, here.inbox, NotificationTest(here.session, here.links, here.inbox))
        qtbot.addWidget(window)
        window.show()
        loop.until(lambda: window.count.text() == "1 notification", message="the list")
        assert window.model.index(0, 1).data() == "SHOP-OLD"

        # kept at the other desk (or by the receiver): here within a second, on top
        body = json.dumps({"event": "payment.completed", "data": {"tx_ref": "SHOP-NEW"}}).encode()
        entry, _ = loop.run(
            there.inbox.receive(
                body,
                {"content-type": "application/json"},
                "10.0.0.9",
                profile_id=merchant.id,
                mode="test",
                tx_ref="SHOP-NEW",
                event="payment.completed",
            )
        )
        loop.until(
            lambda: window.model.index(0, 1).data() == "SHOP-NEW", timeout=10, message="the other desk's notification"
        )
        assert window.model.index(0, 3).data() == "Pending"
        loop.run(there.inbox.decide(entry.id, APPLIED, "the service says PAID"))
        loop.until(lambda: window.model.index(0, 3).data() == "Applied", timeout=10, message="its verdict")
        assert window.model.index(0, 5).data() == "the service says PAID"
        loop.until(lambda: window.count.text() == "2 notifications")
        press.choose(window.verdict, "Applied")
        loop.until(lambda: window.count.text() == "1 notification", message="filtered")
    finally:
        for desk in reversed(desks):
            loop.run(desk.close())
