"""The Cards tab against the sandbox, through its widgets: the whole life of a card (strict and
--quirks), each failure said plainly, the no-cards deployment, the currency code map."""

import asyncio
import csv
import sqlite3
from dataclasses import replace
from decimal import Decimal

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from paydesk.i18n import _
from paydesk.ui.cards.tab import NO_CARDS, CardsTab
from tests.profiles import SECRET_KEYS, TEST_SECRET, use_profile
from tests.ui import press
from tests.ui.test_links import go_live

# what a card dialog's outcome says, by the English phrase a test waits for: the message it
# begins (its words before the first placeholder), so that the wait holds in any language
SAID = {
    "Card created": "Card created: {card}, {amount}. Fee {fee}; total paid {paid}.",
    "Done": "Done.",
    "New balance": " New balance: {balance}.",
    "Not done": "Not done: {result}",
}


def said(phrase: str) -> str:
    """``phrase`` as a card dialog shows it in the staff's language."""
    return _(SAID.get(phrase, phrase)).split("{")[0].strip()


def exported_audit(loop, audit, path, lines: int) -> list[list[str]]:
    """The audit log saved through its Export button and the save dialog as ``path``: the
    file's rows as CSV once it holds ``lines`` lines (its header among them)."""
    press.click(audit.export_button)
    loop.until(lambda: press.shown("audit-export-dialog") is not None, message="the save dialog")
    press.save_as(press.shown("audit-export-dialog"), path)
    loop.until(lambda: path.exists() and len(path.read_text("utf-8").splitlines()) == lines, message="written")
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


class Desk:
    """PayDesk's window on a profile of ``sb`` (the embedded sandbox when None). A --family
    sandbox keeps no test cards: its profile has both secret keys, switched to live mode
    (the mode switch pressed and confirmed, as a person does)."""

    def __init__(self, app, loop, sb=None):
        self.app, self.loop, self.sb = app, loop, sb
        self.window, self.session = app.window, app.session
        if sb is not None:
            use_profile(
                loop,
                self.session,
                sb,
                name="Quirky" if sb.server.config.quirks else "Other",
                currencies=["GBP", "USD"],
                keys=SECRET_KEYS if self.family else TEST_SECRET,
                discover=True,
            )
            if self.family:
                go_live(self.window, loop)
        self.tab: CardsTab = self.window.cards_tab
        tabs = self.window.tabs  # its title as the window shows it, in any language
        press.tab(tabs, tabs.tabText(tabs.indexOf(self.tab)).replace("&", ""))
        loop.until(lambda: self.tab.loaded, message="the cards tab")

    def choose_card(self, card_hash):
        """Click the card's row in the list; its page opens."""
        table, model = self.tab.wallet.table, self.tab.wallet.model
        self.loop.until(lambda: model.row_of(card_hash) is not None, message="the card listed")
        index = model.index(model.row_of(card_hash), 0)
        table.scrollTo(index)
        press.click(table.viewport(), pos=table.visualRect(index).center())
        self.loop.until(
            lambda: self.tab.page.record is not None and self.tab.page.record.card_hash == card_hash, message="its page"
        )

    @property
    def profile(self):
        return self.session.profile

    @property
    def family(self) -> bool:
        return self.sb is not None and self.sb.server.config.family

    def api(self, method, path, **kw):
        key = self.loop.run(self.session.key())
        r = httpx.request(
            method,
            f"{self.profile.base_url}/{path}",
            **kw,
            headers={"Authorization": f"Bearer {key}", "Accept": "application/json"},
        )
        return r.json()

    def purchase(self, card_hash, amount, description):
        return self.api(
            "POST", f"_sandbox/cards/{card_hash}/purchase", json={"amount": str(amount), "description": description}
        )

    def press(self, button):
        """Click when it can be clicked (a card's buttons wait while an operation is open),
        and as a person does: never twice within a double click."""
        self.loop.until(button.isEnabled, message=f"{button.text()} to be enabled")
        self.loop.run(asyncio.sleep(QApplication.doubleClickInterval() / 1000))
        press.click(button)

    def dialog(self, name):
        """The dialog on screen (a window of its own, in front), found as a user sees it."""
        self.loop.until(lambda: press.shown(name) is not None, message=name)
        dialog = press.shown(name)
        assert dialog.isWindow() and dialog.windowTitle() and press.modal() is dialog
        return dialog

    def submit(self, dialog, until):
        """Press the dialog's verb; its outcome once it says ``until`` (one of SAID's
        phrases, in the staff's language) or that it was not done."""
        press.click(dialog.action)
        wanted, refused = said(until), said("Not done")
        self.loop.until(
            lambda: wanted in dialog.outcome.text() or refused in dialog.outcome.text(),
            timeout=30,
            message=f"{until!r} in the dialog",
        )
        return dialog.outcome.text()

    def close(self, dialog):
        press.click(dialog.close_button)
        self.loop.until(lambda: not dialog.isVisible() and self.tab.dialog is not dialog, message="the dialog to close")

    def create(self, amount="50", currency="GBP", first="Ada", last="Lovelace"):
        self.press(self.tab.wallet.create_button)
        dialog = self.dialog("create-card-dialog")
        press.type_into(dialog.first_name, first)
        press.type_into(dialog.last_name, last)
        press.type_into(dialog.amount, amount)
        press.choose(dialog.currency, currency)
        text = self.submit(dialog, "Card created")
        card = dialog.new_card
        self.close(dialog)
        return text, card

    def amount(self, kind, amount, expect="Done"):
        self.press(self.tab.page.buttons[kind])
        dialog = self.dialog(f"{kind}-dialog")
        press.type_into(dialog.amount, str(amount))
        text = self.submit(dialog, expect)
        return dialog, text


# A card's whole life and its failures against the strict (the embedded sandbox), --quirks
# and --family sandboxes; the tests without ``desk`` are about PayDesk alone.
# (its failures' words for a card terminated elsewhere are strict's and --quirks')
pytestmark = pytest.mark.dialects(apart={"family": ("test_each_failure_is_said_plainly",)})


@pytest.fixture
def desk(dialect, start_app, loop, make_sandbox):
    from tests import dialects

    app = start_app(sandbox=True)
    app.wait_started()
    app.window.resize(1300, 900)
    sb = make_sandbox(dialect, base_path="/q", **dialects.options(dialect)) if dialect != "strict" else None
    if dialect == "family":
        sb.fund_live_wallet()  # its cards draw on the live balance, whichever key
    return Desk(app, loop, sb)


def test_the_life_of_a_card(desk, loop):
    tab, page = desk.tab, desk.tab.page
    text, card = desk.create("50", "GBP")
    # the family's card hides its charge: what was paid in all is told, and that the fee is not
    assert (
        "Total paid GBP 51.50; the fee is not given by this service."
        if desk.family
        else "Fee GBP 1.50; total paid GBP 51.50"
    ) in text
    assert "—" not in text
    loop.until(lambda: tab.wallet.selected() is not None, message="the new card selected")
    assert tab.wallet.selected().card_hash == card.card_hash == page.record.card_hash
    assert page.title.text() == f"Card {card.masked}"
    loop.until(lambda: page.values["balance"].text() == "GBP 50.00", message="the balance")
    assert tab.wallet.state_of(card.card_hash) == "Active"

    dialog, text = desk.amount("fund", 20)
    assert "Card funded. New balance: GBP 70.00." in text
    desk.close(dialog)
    loop.until(lambda: page.values["balance"].text() == "GBP 70.00", message="70.00 on the page")

    desk.press(page.buttons["withdraw"])
    dialog = desk.dialog("withdraw-dialog")
    before = len(service_card_transactions_of(desk, card.card_hash))
    for typed, said in (("500", "At most GBP 70.00"), ("12.5", "Whole units only"), ("", "Enter an amount")):
        press.type_into(dialog.amount, typed)
        press.enter(dialog.amount)
        loop.until(lambda said=said: said in dialog.amount_message.text(), message=said)
    assert len(service_card_transactions_of(desk, card.card_hash)) == before  # nothing sent
    press.type_into(dialog.amount, "10")
    assert "New balance: GBP 60.00" in desk.submit(dialog, "Done")
    desk.close(dialog)

    # block with one click; the same button undoes it
    desk.press(page.buttons["block"])
    loop.until(lambda: page.values["state"].text() == "Blocked", message="Blocked")
    assert "Press Unblock to undo." in page.message.text()
    assert page.buttons["block"].text() == "Unblock" and not page.buttons["fund"].isEnabled()
    loop.until(lambda: tab.wallet.state_of(card.card_hash) == "Blocked", message="the list")
    desk.press(page.buttons["block"])
    loop.until(lambda: page.values["state"].text() == "Active", message="Active again")

    # blocked elsewhere (another desk): the service refuses the fund, and says why
    desk.api("GET", f"api/virtual_card/block/{card.card_hash}")
    dialog, text = desk.amount("fund", 5, expect="Not done")
    assert "Card is blocked" in text and "Card is blocked" in dialog.amount_message.text()
    desk.close(dialog)
    loop.until(lambda: page.values["state"].text() == "Blocked", message="the card read again")
    desk.press(page.buttons["block"])
    loop.until(lambda: page.values["state"].text() == "Active", message="unblocked")

    # a purchase at a shop shows up in the card's transactions
    desk.purchase(card.card_hash, 7, "Corner cafe")
    desk.press(page.buttons["reload"])
    loop.until(lambda: any(t.description == "Corner cafe" for t in page.tx_model.rows), message="the purchase")
    row = next(i for i, t in enumerate(page.tx_model.rows) if t.description == "Corner cafe")
    assert page.tx_model.text(page.tx_model.rows[row], 1) == "−GBP 7.00"
    # a reading started before the purchase (after the unblock) may land first, with the
    # older balance; the Refresh pressed after it brings 53.00
    loop.until(lambda: page.values["balance"].text() == "GBP 53.00", message="53.00 after it")

    # terminate: the last four digits, or nothing happens
    desk.press(page.buttons["terminate"])
    dialog = desk.dialog("terminate-dialog")
    warning = dialog.findChild(type(dialog.outcome), "terminate-warning").text()
    assert "cannot be undone" in warning and "GBP 53.00" in warning and "refunded" in warning
    wrong = "0000" if card.last4 != "0000" else "1111"
    press.type_into(dialog.last4, wrong)
    press.enter(dialog.last4)
    loop.until(lambda: "type its last four digits" in dialog.last4_message.text(), message="the last four refused")
    assert desk.api("GET", f"api/virtual_card/card/{card.card_hash}")["data"]["status"] == 1
    press.type_into(dialog.last4, card.last4)
    assert "Card terminated." in desk.submit(dialog, "Done")
    desk.close(dialog)
    loop.until(lambda: page.values["state"].text() == "Terminated", message="Terminated")
    assert not any(page.buttons[k].isEnabled() for k in ("fund", "withdraw", "block", "terminate"))

    desk.press(tab.wallet.refresh_button)
    loop.until(lambda: tab.wallet.as_of.text().startswith("Up to date"), message="refreshed")
    assert tab.wallet.state_of(card.card_hash) == "Terminated"
    if desk.sb is not None:  # the family drops terminated cards from its list: kept here
        assert "no longer in the service's list" in page.values["seen"].text()


def service_card_transactions_of(desk, card_hash):
    return desk.api("GET", f"api/virtual_card/transactions/{card_hash}")["data"]


def test_each_failure_is_said_plainly(desk, loop):
    tab, page = desk.tab, desk.tab.page
    # the merchant's balance cannot pay for the card
    desk.press(tab.wallet.create_button)
    dialog = desk.dialog("create-card-dialog")
    press.type_into(dialog.first_name, "Grace")
    press.type_into(dialog.last_name, "Hopper")
    press.type_into(dialog.amount, "99999")
    assert "Not done: Insufficient Funds" in desk.submit(dialog, "Not done")
    assert "Insufficient Funds" in dialog.amount_message.text()
    press.type_into(dialog.amount, "10")
    press.type_into(dialog.callback, "not a url")
    press.enter(dialog.callback)
    loop.until(lambda: "http:// or https://" in dialog.callback_message.text(), message="URL")
    press.clear(dialog.callback)
    assert "Card created" in desk.submit(dialog, "Card created")
    card = dialog.new_card
    desk.close(dialog)
    # terminated elsewhere: the service refuses, and the card reads as terminated
    loop.until(
        lambda: page.record is not None and page.record.card_hash == card.card_hash, message="the card on the page"
    )
    desk.api("GET", f"api/virtual_card/terminate/{card.card_hash}")
    dialog, text = desk.amount("fund", 1, expect="Not done")
    assert "Card is terminated" in text
    desk.close(dialog)
    loop.until(lambda: page.values["state"].text() == "Terminated", message="read again")
    # a card the service no longer knows (kept from before in PayDesk's list): written in the
    # service's own database, as no call of the service forgets a card
    _, gone = desk.create("10")
    db_path = (desk.sb.server.data_dir if desk.sb is not None else desk.session.sandbox.data_dir) / "sandbox.sqlite3"
    with sqlite3.connect(db_path) as db:
        db.execute("DELETE FROM cards WHERE card_hash = ?", (gone.card_hash,))
    desk.choose_card(gone.card_hash)
    dialog, text = desk.amount("fund", 1, expect="Not done")
    assert "Card not found" in text
    desk.close(dialog)


def test_no_cards_deployment_explains_and_ignores_card_shortcuts(start_app, loop, make_sandbox):
    app = start_app(sandbox=True)
    app.wait_started()
    sb = make_sandbox("plain", base_path="/plain", deployment="no-cards")
    desk = Desk(app, loop, sb)
    tab = desk.tab
    assert desk.profile.has_cards is False
    assert tab.stack.currentWidget() is tab.no_cards and tab.no_cards.isVisible()
    assert tab.no_cards.text() == _(NO_CARDS)
    app.window.activateWindow()
    for key, modifier in (
        (Qt.Key.Key_F5, Qt.KeyboardModifier.NoModifier),
        (Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier),
    ):
        press.key(app.window, key, modifier)  # wherever the keyboard is in the window
    loop.run(asyncio.sleep(0.3))
    assert tab.dialog is None
    assert not tab.refresh_action.isEnabled() and not tab.create_action.isEnabled()
    # nothing was read from the service for this profile
    assert loop.run(app.session.card_ledger.refreshed_at(desk.profile.id, "test")) is None
    # back on a profile with cards, the shortcuts work
    embedded = next(p for p in app.session.settings.profiles if p.embedded_sandbox)
    press.choose(app.window.profiles, embedded.name)
    loop.until(lambda: app.session.profile.id == embedded.id, message="the profile chosen")
    loop.until(lambda: tab.stack.currentWidget() is tab.sections, message="the wallet")
    press.tab_to(tab.wallet.table)  # from the Profile box, by Tab
    press.key(tab.wallet.table, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    dialog = desk.dialog("create-card-dialog")
    press.escape(dialog)  # Escape cancels (the keyboard is on its Create card button)
    loop.until(lambda: not dialog.isVisible() and tab.dialog is None, message="closed")


def test_currency_codes_go_through_the_profiles_map(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    _, card = desk.create("25", "USD")
    page = desk.tab.page
    loop.until(lambda: page.values["balance"].text() == "USD 25.00", message="USD")
    profile = desk.profile
    loop.run(app.session.save_profile(replace(profile, card_currencies={"12": "GBP"}), {}))
    loop.until(
        lambda: (
            desk.tab.wallet.model.records
            and desk.tab.wallet.model.text(desk.tab.wallet.model.records[0], 2) == "25.00 (code 11)"
        ),
        message="the code as it is",
    )
    index = desk.tab.wallet.model.index(0, 2)
    hint = desk.tab.wallet.model.data(index, Qt.ItemDataRole.ToolTipRole)
    assert "'11' is not in this profile's card currency map" in hint


def test_the_list_searches_and_filters(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    cards = [desk.create(str(10 + n))[1] for n in range(3)]
    wallet = desk.tab.wallet
    loop.until(lambda: wallet.model.rowCount() == 3, message="three cards")
    assert wallet.count.text() == "3 cards"

    def shown():
        """The card numbers in the list's rows, as the table shows them."""
        model = wallet.model
        return [model.data(model.index(row, 0)) for row in range(model.rowCount())]

    # numbers are random: search by the last four of a card whose last four no other card's
    # number holds (one exists unless the sandbox drew a one-in-thousands collision)
    target = next(c for c in cards if not any(c.last4 in other.masked for other in cards if other is not c))
    press.type_into(wallet.search, target.last4)
    loop.until(lambda: shown() == [target.masked], message="the search")
    assert wallet.count.text() == "1 card"
    press.type_into(wallet.search, cards[0].name_on_card.lower())  # the name, in any case
    loop.until(lambda: sorted(shown()) == sorted(c.masked for c in cards), message="by name")
    press.type_into(wallet.search, "no such card")
    loop.until(lambda: shown() == [] and wallet.count.text() == "0 cards", message="none")
    press.clear(wallet.search)
    loop.until(lambda: len(shown()) == 3, message="all again")

    desk.api("GET", f"api/virtual_card/block/{cards[2].card_hash}")
    desk.press(wallet.refresh_button)
    loop.until(lambda: wallet.state_of(cards[2].card_hash) == "Blocked", message="refreshed")

    def states():
        return [wallet.model.data(wallet.model.index(row, 3)) for row in range(wallet.model.rowCount())]

    press.choose(wallet.state_filter, "Blocked")
    loop.until(lambda: shown() == [cards[2].masked], message="the filter")
    assert states() == ["Blocked"] and wallet.count.text() == "1 card"
    press.choose(wallet.state_filter, "Active")
    loop.until(lambda: sorted(shown()) == sorted([cards[0].masked, cards[1].masked]), message="the active ones")
    assert states() == ["Active", "Active"] and wallet.count.text() == "2 cards"
    press.choose(wallet.state_filter, "Terminated")
    loop.until(lambda: shown() == [] and wallet.count.text() == "0 cards", message="none")
    press.choose(wallet.state_filter, "Blocked")  # with a search: both apply
    press.type_into(wallet.search, cards[0].last4)
    loop.until(
        lambda: shown() == ([] if cards[0].last4 not in cards[2].masked else [cards[2].masked]),
        message="filter and search",
    )


def test_a_double_click_or_an_impatient_enter_sends_one_fund(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    _, card = desk.create("30", "GBP")
    desk.press(desk.tab.page.buttons["fund"])
    dialog = desk.dialog("fund-dialog")
    press.type_into(dialog.amount, "4")
    press.double_click(dialog.action)
    press.enter(dialog)  # at once, where the keyboard is now: the Fund button just clicked
    loop.until(lambda: "New balance" in dialog.outcome.text(), message="the fund")
    assert "GBP 34.00" in dialog.outcome.text() and not dialog.action.isVisible()
    press.enter(dialog)  # and once more after it is done: it closes the dialog
    loop.until(lambda: not dialog.isVisible(), message="Enter to close the finished dialog")
    loop.run(asyncio.sleep(0.3))
    credits = [t for t in service_card_transactions_of(desk, card.card_hash) if t["description"] == "Card funded"]
    assert len(credits) == 1


def test_a_double_click_on_block_blocks(start_app, loop):
    """Regression: the button came back as Unblock within a double click, and the second
    half of the double click unblocked the card just blocked."""
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    desk.create("30", "GBP")
    page = desk.tab.page
    block = page.buttons["block"]
    loop.until(block.isEnabled, message="Block enabled")
    press.click(block)
    loop.until(lambda: block.isEnabled() and block.text() == "Unblock", message="blocked")
    press.click(block)  # the second half of the double click, as quick as the first was done
    loop.run(asyncio.sleep(0.3))
    assert page.values["state"].text() == "Blocked" and block.text() == "Unblock"


def test_a_busy_card_is_said_and_is_no_crash(start_app, loop, monkeypatch):
    """Regression: an expected refusal (another window's operation under way) was shown in
    the dialog and also sent to the crash report."""
    import sys

    from paydesk.ledger.cards import AuditDraft, OperationDraft

    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    _, card = desk.create("30", "GBP")
    loop.until(lambda: desk.tab.page.record is not None, message="the card on its page")
    crashes = []
    monkeypatch.setattr(sys, "excepthook", lambda *a: crashes.append(a[1]))
    profile = desk.profile
    # the Fund dialog open first: once the page hears of the other operation, Fund waits
    desk.press(desk.tab.page.buttons["fund"])
    dialog = desk.dialog("fund-dialog")
    loop.run(
        desk.session.card_ledger.begin_operation(  # another PayDesk withdraws meanwhile
            OperationDraft(profile.id, "test", "withdraw", card.card_hash, card.masked, Decimal(1), "GBP"),
            AuditDraft("other", profile.id, profile.name, "test", "withdraw", "sent", card.card_hash, card.masked),
        )
    )
    press.type_into(dialog.amount, "2")
    desk.submit(dialog, "still under way")
    loop.run(asyncio.sleep(0.2))
    assert crashes == []
