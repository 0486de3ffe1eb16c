"""The Cards tab while the shared ledger is out of reach: Create card, Fund, Withdraw, Block,
Unblock, Terminate, Reveal, Copy number, Refresh and Refresh card are each refused with the
one sentence where they were pressed (the dialog's outcome line, the card's message line, the
wallet's line), no operation nor audit line written, nothing sent to the service."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest
from PySide6.QtWidgets import QApplication

from paydesk.ledger.cards import AuditQuery
from tests.ui import press
from tests.ui.outage.conftest import refused


def cards_tab(shop, *, blocked: bool = False):
    """A card made while the ledger answers (blocked too, with ``blocked``), its page open."""
    desk, loop = shop.desk, shop.loop
    op = loop.run(desk.cards.create(shop.profile, "test", Decimal(30), "GBP", None,
                                    first_name="Ada", last_name="Lovelace"), timeout=30)
    assert op.state == "done", op
    record = loop.run(desk.session.card_ledger.card(shop.profile.id, "test", op.card_hash))
    if blocked:
        assert loop.run(desk.cards.block(record), timeout=30).state == "done"
    tab = shop.window.cards_tab
    press.tab(shop.window.tabs, "Cards")
    loop.until(lambda: tab.loaded, message="the cards tab")
    table, model = tab.wallet.table, tab.wallet.model
    loop.until(lambda: model.row_of(op.card_hash) is not None, message="the card listed")
    index = model.index(model.row_of(op.card_hash), 0)
    press.click(table.viewport(), pos=table.visualRect(index).center())
    loop.until(lambda: tab.page.record is not None and tab.page.record.card_hash == op.card_hash,
               message="its page")
    return tab


def written(shop) -> tuple[int, int]:
    """How many card operations and audit lines the shared ledger holds (read while up)."""
    ledger = shop.desk.session.card_ledger
    profile = shop.profile.id
    operations = shop.loop.run(ledger.operations(profile, "test"))
    audit = shop.loop.run(ledger.audit_count(AuditQuery(profile, "test")))
    return len(operations), audit


def press_when_clickable(shop, button) -> None:
    shop.loop.until(button.isEnabled, message=f"{button.text()} to be enabled")
    shop.loop.run(asyncio.sleep(QApplication.doubleClickInterval() / 1000))
    press.click(button)


DIALOGS = {  # the button of the card's page, its dialog, and what is typed before the verb
    "fund": ("fund-dialog", "5"),
    "withdraw": ("withdraw-dialog", "5"),
    "terminate": ("terminate-dialog", None),
}


@pytest.mark.parametrize("kind", ["create", *DIALOGS])
def test_a_card_dialogs_verb_is_refused_in_the_dialog(shop, kind):
    shop = shop()
    tab = cards_tab(shop)
    before, calls = written(shop), shop.calls()
    with shop.down():
        if kind == "create":
            press_when_clickable(shop, tab.wallet.create_button)
            shop.loop.until(lambda: press.shown("create-card-dialog") is not None,
                            message="the dialog")
            dialog = press.shown("create-card-dialog")
            press.type_into(dialog.first_name, "Ada")
            press.type_into(dialog.last_name, "Lovelace")
            press.type_into(dialog.amount, "20")
        else:
            name, amount = DIALOGS[kind]
            press_when_clickable(shop, tab.page.buttons[kind])
            shop.loop.until(lambda: press.shown(name) is not None, message="the dialog")
            dialog = press.shown(name)
            if amount is not None:
                press.type_into(dialog.amount, amount)
            else:  # the last four digits, as the dialog asks
                press.type_into(dialog.last4, tab.page.record.masked[-4:])
        press.click(dialog.action)
        shop.loop.until(lambda: refused(dialog.outcome.text()), message="the sentence")
        assert dialog.action.isEnabled() and dialog.isVisible()  # nothing under way
        shop.no_crash()
        press.click(dialog.close_button)
    assert written(shop) == before
    assert shop.calls() == calls
    shop.no_crash()


@pytest.mark.parametrize("blocked", [False, True], ids=["block", "unblock"])
def test_block_and_unblock_are_refused_on_the_cards_page(shop, blocked):
    shop = shop()
    tab = cards_tab(shop, blocked=blocked)
    button = tab.page.buttons["block"]
    assert button.text() == ("Unblock" if blocked else "Block")
    before, calls = written(shop), shop.calls()
    with shop.down():
        press_when_clickable(shop, button)
        shop.loop.until(lambda: refused(tab.page.message.text()), message="the sentence")
        shop.no_crash()
    assert written(shop) == before
    assert shop.calls() == calls
    shop.no_crash()


@pytest.mark.parametrize("which", ["reveal", "copy"])
def test_reveal_and_copy_number_send_nothing_while_the_ledger_is_down(shop, which):
    """Each is audited: while that cannot be written the number is not fetched."""
    shop = shop()
    tab = cards_tab(shop)
    secret = tab.page.secret
    clipboard = QApplication.clipboard().text()
    before, calls = written(shop), shop.calls()
    with shop.down():
        press.click(secret.reveal_button if which == "reveal" else secret.copy_button)
        shop.loop.until(lambda: refused(tab.page.message.text()), message="the sentence")
        assert "•" in secret.number.text()  # still hidden
        assert QApplication.clipboard().text() == clipboard
        shop.no_crash()
    assert written(shop) == before
    assert shop.calls() == calls
    shop.no_crash()


def test_refresh_and_refresh_card_are_refused(shop):
    shop = shop()
    tab = cards_tab(shop)
    calls = shop.calls()
    with shop.down():
        press.click(tab.wallet.refresh_button)
        shop.loop.until(lambda: UNREACHABLE_IN(tab.wallet.as_of.text()), message="the wallet")
        press_when_clickable(shop, tab.page.buttons["reload"])
        shop.loop.until(lambda: refused(tab.page.message.text()), message="the card's page")
        shop.no_crash()
    assert shop.calls() == calls
    shop.no_crash()


def UNREACHABLE_IN(text: str) -> bool:  # noqa: N802 - read as a phrase
    return "Shared ledger unreachable since" in text and "Traceback" not in text
