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
    op = loop.run(
        desk.cards.create(shop.profile, "test", Decimal(30), "GBP", None, first_name="Ada", last_name="Lovelace"),
        timeout=30,
    )
    assert op.state == "done", op
    record = loop.run(desk.session.card_ledger.card(shop.profile.id, "test", op.card_hash))
    if blocked:
        assert loop.run(desk.cards.block(record), timeout=30).state == "done"
    tab = shop.window.cards_tab
    press.tab(shop.window.tabs, "Cards")
    loop.until(lambda: tab.loaded, message="the cards tab")
    # the tab reads the service when first shown: over before anything is counted (a busy
    # machine finished it after the test's count of the service's calls, or its ledger
    # write told the desk of the outage before the press)
    loop.until(
        lambda: tab.wallet.as_of.text().startswith("Up to date"),
        timeout=30,
        message="the tab's own reading of the service",
    )
    table, model = tab.wallet.table, tab.wallet.model
    loop.until(lambda: model.row_of(op.card_hash) is not None, message="the card listed")
    index = model.index(model.row_of(op.card_hash), 0)
    press.click(table.viewport(), pos=table.visualRect(index).center())
    loop.until(lambda: tab.page.record is not None and tab.page.record.card_hash == op.card_hash, message="its page")
    # the page's and the desk's readings of the card over: a test counts the calls from here
    loop.until(lambda: len(tab.tasks) == 0 and len(desk.cards.tasks) == 0, message="the card's readings done")
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
            shop.loop.until(lambda: press.shown("create-card-dialog") is not None, message="the dialog")
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
    shop.loop.until(
        lambda: not UNREACHABLE_IN(tab.wallet.as_of.text()) and tab.page.message.text() == "",
        timeout=15,
        message="the words gone once the ledger answers",
    )
    shop.no_crash()


def UNREACHABLE_IN(text: str) -> bool:
    return "Shared ledger unreachable since" in text and "Traceback" not in text


def audit_log(shop):
    """The Cards tab's Audit log, as a person opens it (a card made first: lines to show)."""
    tab = cards_tab(shop)
    press.tab(tab.sections, "Audit log")
    audit = tab.audit
    shop.loop.until(lambda: audit.model.rowCount() > 0, message="the audit lines")
    return audit


def test_the_audit_logs_export_is_refused_before_the_save_dialog(shop, tmp_path):
    shop = shop()
    audit = audit_log(shop)
    with shop.down():
        press.click(audit.export_button)
        shop.loop.until(lambda: refused(audit.message.text()), message="the sentence")
        shop.settle()
        assert press.shown("audit-export-dialog") is None  # no file asked for
        assert audit.message.isVisible()
        shop.no_crash()
    shop.loop.until(lambda: audit.message.text() == "", timeout=15, message="the sentence gone once the ledger answers")
    shop.no_crash()


def test_an_audit_export_that_meets_the_ledger_gone_keeps_the_file_as_it_was(shop, tmp_path):
    """The desk did not know yet (no feed running): the save dialog opens, the export finds
    out, says so where it was pressed (never the crash hook), and the file chosen is left as
    it was."""
    shop = shop(background=False)
    audit = audit_log(shop)
    path = tmp_path / "audit.csv"
    path.write_text("last month's export\n")
    with shop.down(noticed=False):
        press.click(audit.export_button)
        shop.loop.until(lambda: press.shown("audit-export-dialog") is not None, message="the save dialog")
        replace = press.answer_later("already exists", "Yes")  # Qt's own "replace it?"
        press.save_as(press.shown("audit-export-dialog"), path)
        replace.check()
        shop.loop.until(lambda: refused(audit.message.text()), timeout=30, message="the sentence")
        assert path.read_text() == "last month's export\n"
        assert list(tmp_path.glob("audit.csv*")) == [path]
        shop.no_crash()
    shop.no_crash()


def test_searching_the_cards_while_the_ledger_is_down_keeps_the_list(shop):
    """The wallet's search (or state filter) reads the list again: out of reach, the list
    stays as it was, said as of when the ledger went, and no crash; read again once back."""
    shop = shop()
    tab = cards_tab(shop)
    model = tab.wallet.model
    listed, count = model.rowCount(), tab.wallet.count.text()
    with shop.down():
        press.type_into(tab.wallet.search, "Lovelace")
        shop.loop.until(lambda: UNREACHABLE_IN(tab.wallet.as_of.text()), message="the wallet")
        shop.settle()
        shop.no_crash()
        assert model.rowCount() == listed and tab.wallet.count.text() == count
    shop.loop.until(
        lambda: not UNREACHABLE_IN(tab.wallet.as_of.text()),
        timeout=15,
        message="the list read again once the ledger answers",
    )
    assert model.rowCount() == listed
    shop.no_crash()


def test_choosing_another_card_while_the_ledger_is_down_says_why_its_lines_are_missing(shop):
    """A card clicked in the wallet while the ledger is out of reach: its page shows it as
    listed, the one sentence where its transactions would be read, never the crash dialog;
    its transactions are read once the ledger answers."""
    shop = shop()
    other = shop.loop.run(
        shop.desk.cards.create(
            shop.profile, "test", Decimal(12), "GBP", None, first_name="Mary", last_name="Somerville"
        ),
        timeout=30,
    )
    assert other.state == "done", other
    tab = cards_tab(shop)
    table, model = tab.wallet.table, tab.wallet.model
    shop.loop.until(lambda: model.row_of(other.card_hash) is not None, message="both listed")
    with shop.down():
        index = model.index(model.row_of(other.card_hash), 0)
        press.click(table.viewport(), pos=table.visualRect(index).center())
        shop.loop.until(lambda: tab.page.record.card_hash == other.card_hash, message="its page")
        shop.loop.until(lambda: refused(tab.page.message.text()), message="the sentence")
        shop.settle()
        shop.no_crash()
    shop.loop.until(
        lambda: tab.page.message.text() == "", timeout=15, message="the sentence gone once the ledger answers"
    )
    shop.no_crash()


def test_searching_the_audit_log_while_the_ledger_is_down_keeps_its_lines(shop):
    """The audit log's search read while the ledger is out of reach: its lines stay, the one
    sentence under the log, never the crash dialog; searched once the ledger answers."""
    shop = shop()
    audit = audit_log(shop)
    lines = audit.model.rowCount()
    with shop.down():
        press.type_into(audit.search, "Lovelace")
        shop.loop.until(lambda: refused(audit.message.text()), message="the sentence")
        shop.settle()
        shop.no_crash()
        assert audit.model.rowCount() == lines
    shop.loop.until(lambda: audit.message.text() == "", timeout=15, message="the sentence gone once the ledger answers")
    shop.loop.until(
        lambda: audit.model.query is not None and audit.model.query.text == "Lovelace",
        message="the search read once the ledger answers",
    )
    shop.no_crash()
