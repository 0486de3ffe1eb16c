"""A key-less counter's window on a shop's shared ledger (a real PostgreSQL): with the shop's
key holder not running, Enter says so in one sentence under the amount and nothing is sold;
its Cards tab has no operations at all, only one sentence saying where cards are made."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QLabel

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.desk.counter_keyless import DOWN
from paydesk.desk.leases import KeylessDesk
from paydesk.ui.main_window import MainWindow
from tests import profiles
from tests.helpers import MemoryKeyring
from tests.ui import press


def _shown(widget) -> list[str]:
    return [label.text() for label in widget.findChildren(QLabel) if label.isVisible() and label.text()]


def test_a_key_less_counter_without_its_key_holder_sells_nothing_and_has_no_card_operations(
    paths, keys, loop, qtbot, pg_url, sandbox, tmp_path
):
    office = build_desk(  # the shop's merchant, saved by a desk with its keys
        Paths(data=tmp_path / "office", sandbox=tmp_path / "office-sb").ensure(),
        KeyStore(MemoryKeyring()),
        ledger_url=pg_url,
    )
    loop.run(office.open())
    loop.run(profiles.add_profile(office.session, sandbox, shop_email="till@example.com"))
    loop.run(office.close())
    (paths.data / "counter.json").write_text(json.dumps({"name": "Till 1", "keyless": True}))
    desk = build_desk(paths, keys, ledger_url=pg_url)
    loop.run(desk.open())
    window = None
    try:
        loop.run(desk.session.switch_profile(desk.session.settings.profiles[0].id))
        desk.start_background()
        window = MainWindow(desk)
        qtbot.addWidget(window)
        window.show()
        bar = window.tabs.tabBar()
        press.click(bar, pos=bar.tabRect(3).center())  # Counter
        tab = window.counter_tab
        loop.until(lambda: window.tabs.currentWidget() is tab and tab.loaded, message="the Counter tab loaded")
        loop.until(
            lambda: window.status.shared.text() == "The shop's key holder is not running: this counter cannot sell",
            message="the status bar saying the counter cannot sell",
        )
        press.type_into(tab.amount, "12")
        loop.run(press.starting("sell", lambda: press.enter(tab.amount)), timeout=30)
        loop.until(lambda: DOWN in _shown(tab), message="the key holder's absence said under the amount")
        assert desk.counter.current is None and loop.run(desk.counter.today()) == []

        press.click(bar, pos=bar.tabRect(2).center())  # Cards
        cards = window.cards_tab
        loop.until(lambda: window.tabs.currentWidget() is cards, message="the Cards tab")
        assert _shown(cards) == [KeylessDesk().message]
        assert not cards.refresh_action.isEnabled() and not cards.create_action.isEnabled()
    finally:
        if window is not None:
            window.close()
        loop.run(desk.close())
