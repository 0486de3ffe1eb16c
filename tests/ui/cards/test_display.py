"""How cards read: the state badge (a number the service may add later shown as it is), a card
past its expiry marked expired in the list and on its page, and the wallet opening from the
ledger's cache, marked "As of …" until the service has been read again."""

import sqlite3
from dataclasses import replace
from datetime import UTC, date, datetime

import httpx
from PySide6.QtCore import Qt

from paydesk.desk.cards import words
from paydesk.ledger.cards import CardRecord
from paydesk.ui.cards.wallet import EXPIRES, STATE
from tests.helpers import set_faults
from tests.ui import press
from tests.ui.cards.test_wallet import Desk

RED = "#b3261e"


def a_record(**over) -> CardRecord:
    base = CardRecord(
        profile_id="p",
        mode="test",
        card_hash="ch_1",
        masked="412345******6789",
        name_on_card="SHOP",
        currency_code="12",
        balance=None,
        state=1,
        expiration="2029-05",
        created_at=None,
        seen_at=datetime.now(UTC),
    )
    return replace(base, **over)


def test_the_state_badge_names_known_states_and_shows_any_other_number():
    assert [words.badge(n).words for n in (1, 2, 0)] == ["Active", "Blocked", "Terminated"]
    assert words.badge(7).words == "state 7"
    assert words.badge(-1).words == "state -1"
    assert words.badge(None).words == "Not read yet"  # the service has not said it (yet)
    known = {words.badge(n).colour for n in (1, 2)}
    assert words.badge(7).colour not in known  # not dressed as an active or blocked card


def test_a_card_is_expired_only_after_its_expiry_month():
    record = a_record(expiration="2024-05")
    assert words.expiry(record, date(2024, 5, 31)) == ("05/2024", False)
    assert words.expiry(record, date(2024, 6, 1)) == ("05/2024 (expired)", True)
    assert words.expiry(record, date(2025, 1, 1)) == ("05/2024 (expired)", True)
    assert words.expiry(a_record(expiration=None), date(2030, 1, 1)) == ("—", False)


def _service_db(desk):
    """The embedded sandbox's own database. Written here because the service can make no
    card that is already past its expiry (it issues them for three years) nor one in a state
    it does not have: the test stands in for the service's future, then reads it over HTTP."""
    return sqlite3.connect(desk.session.sandbox.data_dir / "sandbox.sqlite3")


def _choose(desk, loop, card_hash):
    desk.choose_card(card_hash)


def test_an_expired_card_and_an_unknown_state_as_the_service_sends_them(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    _, old = desk.create("10", "GBP")
    _, odd = desk.create("11", "GBP")
    _, fine = desk.create("12", "GBP")
    with _service_db(desk) as db:
        db.execute("UPDATE cards SET expiration = '2020-01' WHERE card_hash = ?", (old.card_hash,))
        db.execute("UPDATE cards SET status = 7 WHERE card_hash = ?", (odd.card_hash,))
    desk.press(desk.tab.wallet.refresh_button)
    wallet, page = desk.tab.wallet, desk.tab.page
    loop.until(lambda: wallet.state_of(odd.card_hash) == "state 7", message="the refresh")
    model = wallet.model

    def cell(card, column, role=Qt.ItemDataRole.DisplayRole):
        return model.data(model.index(model.row_of(card.card_hash), column), role)

    assert cell(old, EXPIRES) == "01/2020 (expired)"
    assert cell(old, EXPIRES, Qt.ItemDataRole.AccessibleTextRole) == "01/2020 (expired)"
    assert cell(old, EXPIRES, Qt.ItemDataRole.ForegroundRole).name() == RED
    assert "expired" not in cell(fine, EXPIRES) and cell(fine, EXPIRES) == cell(odd, EXPIRES)
    assert cell(fine, EXPIRES, Qt.ItemDataRole.ForegroundRole) is None
    assert cell(odd, STATE) == "state 7" and cell(fine, STATE) == "Active"

    _choose(desk, loop, old.card_hash)
    expires = page.values["expires"]
    assert expires.text() == "01/2020 (expired)"
    assert expires.accessibleName() == "Expires: 01/2020 (expired)"
    assert RED in expires.styleSheet()
    _choose(desk, loop, odd.card_hash)
    assert page.values["state"].text() == "state 7"
    assert page.values["state"].accessibleName() == "State: state 7"
    assert "(expired)" not in page.values["expires"].text() and RED not in page.values["expires"].styleSheet()


def test_the_wallet_opens_from_its_cache_as_of_its_last_reading(start_app, loop):
    """A second session on the same data folder: the cards saved by the first are on screen
    at once, marked with when they were read, while the service (slowed by a latency fault)
    is read again; then "Up to date"."""
    first = start_app(sandbox=True)
    first.wait_started()
    desk = Desk(first, loop)
    _, card = desk.create("15", "GBP")
    desk.press(desk.tab.wallet.refresh_button)
    loop.until(lambda: desk.tab.wallet.as_of.text().startswith("Up to date"), message="read")
    profile_id = desk.profile.id
    read_at = loop.run(desk.session.card_ledger.refreshed_at(profile_id, "test"))
    assert read_at is not None
    first.close()

    second = start_app(sandbox=True)
    second.wait_started()
    window, session = second.window, second.session
    tab = window.cards_tab
    assert window.tabs.currentWidget() is not tab  # not read yet: the tab is not shown
    base, key = session.profile.base_url, loop.run(session.key())
    auth = {"Authorization": f"Bearer {key}"}

    def lists_asked():
        calls = httpx.get(f"{base}/_sandbox/requests", headers=auth).json()["data"]
        return sum(1 for c in calls if c["path"].endswith("/virtual_card/all"))

    asked = lists_asked()
    set_faults(base, key, latency_ms=2500)
    try:
        press.tab(window.tabs, "Cards")
        wallet = tab.wallet
        loop.until(lambda: lists_asked() > asked, timeout=5, message="the service asked")
        # the service is being read (slowly): the cache is on screen, marked as of its reading
        assert [r.card_hash for r in wallet.model.records] == [card.card_hash]
        assert wallet.state_of(card.card_hash) == "Active"
        expected = f"As of {words.when(read_at)}"
        assert wallet.as_of.text().startswith(expected), wallet.as_of.text()
        assert wallet.as_of.accessibleName().startswith(expected)
        assert not tab.wallet.refresh_button.isEnabled()
        loop.until(lambda: wallet.as_of.text().startswith("Up to date"), timeout=30, message="read again")
    finally:
        set_faults(base, key)
    assert "As of" not in wallet.as_of.text()
    assert loop.run(session.card_ledger.refreshed_at(profile_id, "test")) > read_at
