"""Two desks of one shop on one shared ledger (a real PostgreSQL, a real sandbox), the views of
the first as a user sees them: what the other desk makes or what is paid there shows here
within a second (the recent links, the link on screen, the Transactions browser in any
view, the end of day); while the ledger is out of reach every view keeps what it had,
marked "as of" when it went (the engine's ``down_since``), cleared once it is back."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest
from PySide6.QtWidgets import QDialog

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.service.models import PaymentRequest
from paydesk.ui.links.tab import LinksTab
from paydesk.ui.transactions.tab import TransactionsTab
from tests import profiles
from tests.helpers import MemoryKeyring
from tests.ui import press


def request(ref: str, amount: int = 12) -> PaymentRequest:
    return PaymentRequest(
        amount=Decimal(amount),
        currency="GBP",
        email="kim@example.com",
        first_name="Kim",
        last_name="Lee",
        tx_ref=ref,
        title="Tea",
    )


@pytest.fixture
def shop(paths, keys, loop, tmp_path, sandbox, pg_url):
    """``shop(poller="here"|"there")``: (here, there): the desk whose views are tested and a
    second desk, both built by ``build_desk`` on the same database, the sandbox's merchant as
    their profile, started; ``poller`` says which one checks payments (holds the lease)."""
    desks = []

    def open_desk(name, desk_paths, desk_keys):
        desk = build_desk(desk_paths, desk_keys, ledger_url=pg_url)
        desk.live.keeper.ttl, desk.live.keeper.renew_every = 3.0, 0.5
        loop.run(desk.open())
        loop.run(desk.naming.rename(name))
        desks.append(desk)
        return desk

    def make(poller: str = "here"):
        here = open_desk("Counter 1", paths, keys)
        merchant = loop.run(profiles.add_profile(here.session, sandbox, txref_prefix="SHOP"))
        there = open_desk(
            "Finance",
            Paths(data=tmp_path / "there", sandbox=tmp_path / "there-sandbox").ensure(),
            KeyStore(MemoryKeyring()),
        )
        loop.run(there.session.save_profile(merchant, profiles.keys_of(sandbox)))
        first, second = (here, there) if poller == "here" else (there, here)
        first.start_background()
        loop.until(lambda: first.live.keeper.fence is not None, message="the poller's lease")
        second.start_background()
        return here, there

    yield make
    for desk in reversed(desks):
        loop.run(desk.close())


def shown(qtbot, widget):
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_every_view_is_marked_as_of_when_the_ledger_went(shop, loop, qtbot, pg_server):
    here, _ = shop()
    transactions = shown(qtbot, TransactionsTab(here.session, here.transactions))
    links = shown(qtbot, LinksTab(here.session, here.links, here.scheduler))
    loop.until(lambda: transactions.loaded and links.loaded, message="the views")
    assert not links.recent_as_of.isVisible() and "as of" not in transactions.count.text()
    with pg_server.down():
        loop.until(lambda: here.live.engine.down_since is not None, timeout=30, message="the ledger out of reach")
        as_of = f"as of {here.live.engine.down_since.astimezone():%H:%M}"
        loop.until(lambda: transactions.count.text().endswith(", " + as_of), message="the Transactions count marked")
        assert links.recent_as_of.text() == f"Recent links {as_of}"
        assert links.recent_as_of.isVisible()
        # a view built while the ledger is already down is marked at once
        later = shown(qtbot, TransactionsTab(here.session, here.transactions))
        assert later.as_of.text == as_of
        later_links = shown(qtbot, LinksTab(here.session, here.links, here.scheduler))
        assert later_links.recent_as_of.text() == f"Recent links {as_of}"
        press.click(transactions.end_of_day)
        loop.until(lambda: transactions.findChild(QDialog, "end-of-day") is not None, message="the end of day")
        day = transactions.findChild(QDialog, "end-of-day")
        loop.until(lambda: day.heading.text().endswith(", " + as_of), message="its heading marked")
    loop.until(lambda: "as of" not in transactions.count.text(), timeout=30, message="back: the mark cleared")
    assert not links.recent_as_of.isVisible()
    assert "as of" not in day.heading.text()
    # the links tab opened while it was out of reach reads its list once it is back
    loop.until(lambda: later_links.loaded, timeout=30, message="the later links tab read")
    assert not later_links.recent_as_of.isVisible()
    press.click(day.close_button)


def test_the_end_of_day_is_counted_again_under_a_steady_stream_of_changes(shop, loop, qtbot):
    here, there = shop()
    transactions = shown(qtbot, TransactionsTab(here.session, here.transactions))
    loop.until(lambda: transactions.loaded, message="the Transactions tab")
    press.click(transactions.end_of_day)
    loop.until(lambda: transactions.findChild(QDialog, "end-of-day") is not None, message="the end of day")
    made = transactions.findChild(QDialog, "end-of-day").figures["Links made"]
    loop.until(lambda: made.text() == "0", message="the day counted")
    profile = there.session.profile
    seen_during: list[str] = []

    async def stream() -> None:  # a change every 100 ms for 2 s, written at the other desk
        for i in range(20):
            await there.session.ledger.begin_link(profile.id, "test", request(f"STREAM-{i}"))
            seen_during.append(made.text())
            await asyncio.sleep(0.1)

    loop.run(stream(), timeout=30)
    # counted again while the changes kept coming, not only once they stopped
    assert any(text not in ("", "0") for text in seen_during[:-1]), seen_during
    loop.until(lambda: made.text() == "20", message="every link counted")
    press.click(transactions.findChild(QDialog, "end-of-day").close_button)


def listed(tab: TransactionsTab) -> list[str]:
    return [
        tab.model.text(tab.model.record_at(row), 0)
        for row in range(tab.model.rowCount())
        if tab.model.record_at(row) is not None
    ]


def test_another_desks_new_link_shows_in_a_searched_list_before_the_follow_tick(shop, loop, qtbot):
    here, there = shop()
    loop.run(there.links.create(request("BEFORE-1")))
    transactions = shown(qtbot, TransactionsTab(here.session, here.transactions))
    loop.until(lambda: transactions.loaded, message="the Transactions tab")
    press.click(transactions.filters.search)
    press.type_into(transactions.filters.search, "kim@")
    loop.until(lambda: listed(transactions) == ["BEFORE-1"], message="the search's one record")
    loop.run(there.links.create(request("AFTER-1", amount=30)))
    # before the follower's two-second tick could have found it: the desk's event did
    loop.until(
        lambda: listed(transactions) == ["AFTER-1", "BEFORE-1"],
        timeout=1.8,
        message="the other desk's new link in the searched list",
    )
    assert transactions.count.text() == "2 records"


def links_tab(qtbot, loop, desk) -> LinksTab:
    tab = shown(qtbot, LinksTab(desk.session, desk.links, desk.scheduler))
    loop.until(lambda: tab.loaded, message="the Payment links tab")
    return tab


def test_a_link_made_at_another_desk_shows_in_the_recent_links(shop, loop, qtbot):
    here, there = shop()
    tab = links_tab(qtbot, loop, here)
    assert tab.recent.state_of("THERE-1") is None
    loop.run(there.links.create(request("THERE-1")))
    loop.until(
        lambda: tab.recent.state_of("THERE-1") == "WAITING FOR PAYMENT",
        message="the other desk's link in the recent links",
    )
    assert tab.recent.model().index(0, 0).data() == "THERE-1"  # on top, the newest


def test_the_link_on_screen_turns_paid_when_the_other_desk_checks_payments(shop, loop, qtbot, sandbox):
    here, there = shop(poller="there")
    tab = links_tab(qtbot, loop, here)
    for key, text in dict(
        amount="42", email="ada@example.com", first_name="Ada", last_name="Lovelace", title="Flat white"
    ).items():
        press.type_into(getattr(tab.form, key), text)
    press.click(tab.form.create_button)
    panel = tab.panel
    loop.until(lambda: panel.record is not None and panel.record.checkout_url, timeout=30, message="the link on screen")
    assert panel.state.text() == "WAITING FOR PAYMENT"
    assert here.live.keeper.fence is None  # this desk does not check payments: the other does
    sandbox.control(f"pay/{panel.record.reference}", {"outcome": "success"})
    loop.until(lambda: panel.state.text() == "PAID", timeout=30, message="PAID on this desk's screen")
    assert here.live.keeper.fence is None and there.live.keeper.fence is not None
