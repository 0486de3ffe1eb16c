"""The layout audit's states of the Cards tab against the --family sandbox (SERVICE.md 1b:
first_name and last_name, a card's balance in its ``amount``, its fee hidden, no test cards,
a terminated card deleted): the test mode's words, Create card and its answer ("the fee is
not given by this service"), a card's page with what it was issued with, a state not read
yet, a purchase, Fund, Terminate, the card read again once the service no longer has it,
and the audit log. Long names, as a person fills them in."""

from __future__ import annotations

import pytest

from paydesk.desk.cards import words
from paydesk.i18n import _
from tests import dialects
from tests.ui import press
from tests.ui.layout_states.reach import LONG_FIRST, LONG_LAST, messages_of, yes_button


@pytest.fixture
def family(app, loop, make_sandbox):
    """PayDesk (its window as it opened on this screen) on a --family sandbox's profile,
    switched to live mode (the family keeps no test cards), its live balance topped up."""
    from tests.ui.cards.test_wallet import Desk

    sb = make_sandbox("family", base_path="/q", **dialects.options("family"))
    sb.fund_live_wallet()
    return Desk(app, loop, sb)


def test_cards_against_the_family(family, loop, seen):
    from tests.ui.cards.test_family import _seed

    desk, window = family, family.window
    tab, page = desk.tab, desk.tab.page
    # test mode first: the service keeps no test cards
    task = press.click_starting(window.mode_button, "mode")
    loop.until(task.done, message="test mode")
    loop.until(lambda: tab.stack.currentWidget() is tab.no_test_cards, message="the words")
    seen.look(window, "Cards against the family, test mode: no test cards")
    press.click(window.mode_button)
    loop.until(lambda: press.shown("confirm-live") is not None, message="Switch to live?")
    box = press.shown("confirm-live")
    press.click(yes_button(box))
    loop.until(lambda: desk.session.mode == "live" and tab.stack.currentWidget() is tab.sections, message="live mode")
    seen.look(window, "Cards against the family, an empty live wallet")
    # Create card, with its messages, then filled with long names
    desk.press(tab.wallet.create_button)
    dialog = desk.dialog("create-card-dialog")
    seen.steady(
        dialog, lambda: press.click(dialog.action), messages_of(dialog), "Create card's messages appear (family)"
    )
    seen.look(dialog, "Create card against the family, its messages")
    press.type_into(dialog.first_name, LONG_FIRST)
    press.type_into(dialog.last_name, LONG_LAST)
    press.type_into(dialog.amount, "50")
    press.type_into(
        dialog.callback,
        "https://kaffebraenderi-noerrebrogade.example.com/paydesk/card-notifications?shop=oestergaard-og-soenner",
    )
    said = desk.submit(dialog, "Card created")
    assert _(words.NO_FEE) in said, said
    seen.look(dialog, "Create card against the family, done: the fee not given")
    card = dialog.new_card
    desk.close(dialog)
    loop.until(
        lambda: page.record is not None and page.record.card_hash == card.card_hash, message="the new card on its page"
    )
    loop.until(lambda: page.values["state"].text() == _("Active"), timeout=30, message="its state read back")
    seen.look(window, "a family card's page: issued with, the fee not given, a long notification URL")
    # a purchase, read with Refresh card; Fund, its new balance
    desk.purchase(card.card_hash, 7, "Østergaard & Sønners Kaffebrænderi, Nørrebrogade")
    desk.press(page.buttons["reload"])
    loop.until(lambda: page.tx_model.rowCount() == 1, timeout=30, message="the purchase")
    seen.look(window, "a family card's page with a purchase")
    fund, said = desk.amount("fund", 20, expect="New balance")
    seen.look(fund, "Fund against the family, done")
    desk.close(fund)
    # a card whose state the create's answer does not say, every reading after it failing
    desk.press(tab.wallet.create_button)
    dialog = desk.dialog("create-card-dialog")
    press.type_into(dialog.first_name, LONG_FIRST)
    press.type_into(dialog.last_name, LONG_LAST)
    press.type_into(dialog.amount, "25")
    desk.sb.faults(mode="live", error_rate=0.97, seed=_seed(0.97))
    desk.submit(dialog, "Card created")
    unread = dialog.new_card
    desk.close(dialog)
    loop.until(
        lambda: (
            page.record is not None
            and page.record.card_hash == unread.card_hash
            and page.values["state"].text() == _(words.NOT_READ)
        ),
        timeout=30,
        message="the new card, not read yet",
    )
    seen.look(window, "a family card's page, its state not read yet")
    desk.sb.faults(mode="live")
    # Terminate, then read again: the family deletes a terminated card
    desk.choose_card(card.card_hash)
    desk.press(page.buttons["terminate"])
    dialog = desk.dialog("terminate-dialog")
    press.type_into(dialog.last4, card.last4)
    desk.submit(dialog, "Done")
    seen.look(dialog, "Terminate against the family, done")
    desk.close(dialog)
    loop.until(lambda: page.values["state"].text() == _("Terminated"), timeout=30, message="Terminated")
    desk.press(page.buttons["reload"])
    loop.until(lambda: page.message.text() == _(words.GONE), timeout=30, message="read again")
    seen.look(window, "a terminated family card, read again: the service no longer has it")
    press.tab(tab.sections, _("Audit log"))
    loop.until(lambda: tab.audit.model.rowCount() > 0, message="the audit log")
    seen.look(window, "the audit log against the family")
