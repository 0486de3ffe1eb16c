"""The Cards tab against the --family sandbox, which answers as the family's real server code
does (SERVICE.md 1b): a card's balance is its ``amount`` (what it was issued with is said only
by the create's answer), its fee is hidden, a new card's state is not in the create's answer,
cards are not split by mode (paid from the live balance, listed to either key), card
transactions come only from purchases and stay after terminate, and a card is refused
without a callback_url. Through the widgets, as a person sees them."""

from __future__ import annotations

import asyncio
import random

import pytest
from PySide6.QtCore import Qt

from paydesk.desk.cards import words
from paydesk.ledger.cards import CardQuery
from tests import dialects
from tests.ui import press
from tests.ui.cards.test_wallet import Desk


@pytest.fixture
def family(start_app, loop, make_sandbox):
    """PayDesk on a --family sandbox's profile, in live mode (the family keeps no test cards),
    its live balance topped up (it starts at 0)."""
    app = start_app(sandbox=True)
    app.wait_started()
    app.window.resize(1300, 900)
    sb = make_sandbox("family", base_path="/q", **dialects.options("family"))
    sb.fund_live_wallet()
    return Desk(app, loop, sb)


def texts(page) -> dict[str, str]:
    return {key: label.text() for key, label in page.values.items()}


def audit_lines(desk, loop):
    """The Audit log section, shown as a person opens it: its rows as (action, amount, result)."""
    tab = desk.tab
    press.tab(tab.sections, "Audit log")
    model = tab.audit.model
    loop.until(lambda: model.rowCount() > 0, message="the audit log")
    return [
        " | ".join(model.index(r, c).data() or "" for c in range(model.columnCount())) for r in range(model.rowCount())
    ]


def test_a_card_reads_its_balance_from_its_amount_and_says_its_fee_is_not_given(family, loop):
    desk, tab, page = family, family.tab, family.tab.page
    # no notification URL typed, none in the profile: PayDesk gives the service one of its
    # own (the family refuses a card without it), and the card is made
    text, card = desk.create("50", "GBP")
    assert "Total paid GBP 51.50; the fee is not given by this service." in text
    assert "Fee —" not in text and "Fee" not in text.split("Total paid")[0]
    loop.until(lambda: page.values["balance"].text() == "GBP 50.00", message="the balance")
    shown = texts(page)
    assert shown["state"] == "Active"  # read back: the create's answer has no state
    assert shown["issued"] == ("GBP 50.00 (paid GBP 51.50 in all; the fee is not given by this service)")
    assert shown["callback"].startswith("none given:")

    # funded: the balance (the family's ``amount``) moves; what it was issued with does not
    dialog, said = desk.amount("fund", 20)
    assert "New balance: GBP 70.00." in said
    desk.close(dialog)
    loop.until(lambda: page.values["balance"].text() == "GBP 70.00", message="70.00")
    assert page.values["issued"].text().startswith("GBP 50.00 ")
    assert tab.wallet.model.text(tab.wallet.model.records[tab.wallet.model.row_of(card.card_hash)], 2) == "GBP 70.00"
    desk.press(tab.wallet.refresh_button)  # the list's cards say only their balance
    loop.until(lambda: tab.wallet.as_of.text().startswith("Up to date"), message="refreshed")
    assert page.values["issued"].text().startswith("GBP 50.00 ")
    assert page.values["balance"].text() == "GBP 70.00"

    # a purchase is the only card transaction (the fund wrote none); it stays after terminate
    desk.purchase(card.card_hash, 7, "Corner cafe")
    desk.press(page.buttons["reload"])
    loop.until(lambda: page.values["balance"].text() == "GBP 63.00", message="63.00")
    loop.until(lambda: page.tx_model.rowCount() == 1, message="the purchase listed")
    assert page.tx_model.text(page.tx_model.rows[0], 1) == "−GBP 7.00"
    desk.press(page.buttons["terminate"])
    dialog = desk.dialog("terminate-dialog")
    press.type_into(dialog.last4, card.last4)
    assert "Card terminated." in desk.submit(dialog, "Done")  # the family answers data: null
    desk.close(dialog)
    loop.until(lambda: page.values["state"].text() == "Terminated", message="Terminated")
    desk.press(page.buttons["reload"])  # the family deletes a terminated card
    loop.until(lambda: page.message.text() == words.GONE, message="read again")
    assert [page.tx_model.text(t, 2) for t in page.tx_model.rows] == ["Corner cafe"]
    assert page.values["issued"].text().startswith("GBP 50.00 ")

    lines = audit_lines(desk, loop)
    assert any("create" in line.lower() and "50.00" in line and "done" in line.lower() for line in lines), lines
    assert any("fund" in line.lower() and "20.00" in line for line in lines), lines


def test_test_mode_says_the_service_keeps_no_test_cards_and_keeps_each_card_once(family, loop):
    desk, tab = family, family.tab
    _, card = desk.create("30", "USD")
    window = desk.window
    task = press.click_starting(window.mode_button, "mode")  # back to test: no question
    loop.until(task.done, message="test mode")
    assert desk.session.mode == "test"
    loop.until(lambda: tab.stack.currentWidget() is tab.no_test_cards, message="the words")
    assert tab.no_test_cards.isVisible()
    said = tab.no_test_cards.text()
    assert "keeps no test cards" in said and "live balance" in said and "live mode" in said
    desk.window.activateWindow()
    for key, modifier in (
        (Qt.Key.Key_F5, Qt.KeyboardModifier.NoModifier),
        (Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier),
    ):
        press.key(desk.window, key, modifier)  # Refresh, Create card: nothing happens
    loop.run(asyncio.sleep(0.3))
    assert press.shown("create-card-dialog") is None and tab.dialog is None
    assert not tab.refresh_action.isEnabled() and not tab.create_action.isEnabled()
    assert loop.run(desk.session.card_ledger.refreshed_at(desk.profile.id, "test")) is None
    ledger, profile = desk.session.card_ledger, desk.session.profile
    assert loop.run(ledger.card_count(CardQuery(profile.id, "test"))) == 0
    assert loop.run(ledger.card_count(CardQuery(profile.id, "live"))) == 1
    assert loop.run(ledger.card(profile.id, "live", card.card_hash)) is not None


def _seed(rate: float, passes: int = 1, fails: int = 15) -> int:
    """A seed of the sandbox's fault dice whose first ``passes`` requests go through and the
    next ``fails`` are answered 503 (``error_rate`` ``rate``: each request rolls once)."""
    for seed in range(100_000):
        rolls = random.Random(seed)
        dice = [rolls.random() for _ in range(passes + fails)]
        if all(d >= rate for d in dice[:passes]) and all(d < rate for d in dice[passes:]):
            return seed
    raise AssertionError("no such seed")


def test_a_new_card_whose_state_is_not_said_waits_until_it_is_read(family, loop):
    desk, tab, page = family, family.tab, family.tab.page
    desk.press(tab.wallet.create_button)
    dialog = desk.dialog("create-card-dialog")
    press.type_into(dialog.first_name, "Grace")
    press.type_into(dialog.last_name, "Hopper")
    press.type_into(dialog.amount, "25")
    # the create goes through; every reading after it fails (the service out of breath), so
    # the new card's state, which the family's create does not say, is not known
    desk.sb.faults(mode="live", error_rate=0.97, seed=_seed(0.97))
    assert "Card created" in desk.submit(dialog, "Card created")
    card = dialog.new_card
    desk.close(dialog)
    loop.until(
        lambda: page.record is not None and page.record.card_hash == card.card_hash, message="the new card on its page"
    )
    assert page.values["state"].text() == words.NOT_READ == "Not read yet"
    assert tab.wallet.state_of(card.card_hash) == "Not read yet"
    assert page.message.text() == words.NOT_READ_HINT
    assert not any(page.buttons[k].isEnabled() for k in ("fund", "withdraw", "block", "terminate"))
    desk.sb.faults(mode="live")  # the service answers again: Refresh card reads it
    desk.press(page.buttons["reload"])
    loop.until(lambda: page.values["state"].text() == "Active", timeout=30, message="Active")
    assert tab.wallet.state_of(card.card_hash) == "Active"
    assert page.message.text() == ""
    assert page.buttons["fund"].isEnabled() and page.buttons["block"].isEnabled()


def test_a_card_terminated_elsewhere_still_shows_its_purchases(family, loop):
    desk, page = family, family.tab.page
    _, card = desk.create("40", "GBP")
    loop.until(
        lambda: page.record is not None and page.record.card_hash == card.card_hash, message="the new card on its page"
    )
    desk.purchase(card.card_hash, 9, "Book shop")  # PayDesk has not read it yet
    desk.api("GET", f"api/virtual_card/terminate/{card.card_hash}")  # another desk, or a script
    desk.press(page.buttons["reload"])
    loop.until(lambda: page.tx_model.rowCount() == 1, timeout=20, message="the purchase")
    assert page.tx_model.text(page.tx_model.rows[0], 2) == "Book shop"
    said = page.message.text()
    assert "no longer has this card" in said and "could not be read" not in said
