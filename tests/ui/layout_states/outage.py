"""The layout audit's states of the one-sentence refusals while the shared ledger is out of
reach ("Shared ledger unreachable since 04:41, retrying"), as a person sees them where they
pressed: Create link on the Payment links tab, Sell, Close shift and Rename counter at the
Counter tab, Fund and Block on a card's page, Create links in the Bulk window and QR sheet…
in Batches. A shop's desk on a real PostgreSQL and a real sandbox (tests/ui/outage's
``shop``), the server stopped under it. Beside the audit, each sentence is read whole where
it is said (never shortened with "…", which the audit lets pass with its tooltip)."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from paydesk.desk.bulk.check import BulkRow
from paydesk.i18n import _
from paydesk.ui.screen_fit import resize_within_screen
from tests.ui import press
from tests.ui.layout_audit import settle, shows_whole
from tests.ui.layout_states.reach import LONG_FIRST, LONG_LAST, LONG_PROFILE, LONG_TITLE, fill_link, to_tab
from tests.ui.outage import conftest as outage
from tests.ui.outage.conftest import refused

crashes, shop = outage.crashes, outage.shop  # the outage tests' fixtures: a shop's desk

SHOP_EMAIL = "till.and.back.office@example.com"


def _read_whole(label, where: str) -> None:
    """The refusal is the one sentence, read whole where the person pressed."""
    settle()
    assert refused(label.text()), f"{where}: {label.text()!r}"
    assert label.isVisible() and shows_whole(label), (
        f"{where}: {label.text()!r} is not read whole in {label.width()}×{label.height()}"
    )


def _ready(shop):
    """While the ledger answers: a long profile name with the shop's e-mail, a card, a
    batch sent, a counter sale; the window as it opens on this screen."""
    loop, desk = shop.loop, shop.desk
    loop.run(shop.session.save_profile(replace(shop.profile, name=LONG_PROFILE, shop_email=SHOP_EMAIL), {}))
    resize_within_screen(shop.window, 1100, 720)  # as the main window opens (1300×900 here)
    op = loop.run(
        desk.cards.create(shop.profile, "test", Decimal(30), "GBP", None, first_name=LONG_FIRST, last_name=LONG_LAST),
        timeout=30,
    )
    assert op.state == "done", op
    from tests.ui.bulk.conftest import row

    rows = [BulkRow(n, row(n, first_name=LONG_FIRST, last_name=LONG_LAST, title=LONG_TITLE)) for n in (2, 3)]
    batch, _ = loop.run(desk.bulk.keep("september-invoices-for-the-supporters-club.csv", rows, "skip"))
    loop.run(desk.bulk.start(batch))
    loop.run(desk.bulk.wait(batch.id), timeout=60)
    return op.card_hash


def test_refusals_while_the_shared_ledger_is_out_of_reach(shop, seen, tmp_path):
    from tests.ui.outage.test_bulk import batches_window, bulk_window
    from tests.ui.outage.test_cards import press_when_clickable
    from tests.ui.outage.test_counter import sell

    shop = shop()
    loop, window = shop.loop, shop.window
    card = _ready(shop)
    to_tab(window, "counter")
    counter = window.counter_tab
    loop.until(lambda: counter.loaded, message="the Counter tab")
    # the Bulk window at its dry run, and Batches, opened while the ledger answers
    to_tab(window, "links")
    bulk = bulk_window(shop, tmp_path, 2)
    batches = batches_window(shop)
    form = window.links_tab.form
    fill_link(form)
    # the card's page open on the Cards tab, as the person left it
    to_tab(window, "cards")
    cards = window.cards_tab
    model, table = cards.wallet.model, cards.wallet.table
    loop.until(lambda: model.row_of(card) is not None, 30, message="the card listed")
    press.click(table.viewport(), pos=table.visualRect(model.index(model.row_of(card), 0)).center())
    loop.until(lambda: cards.page.record is not None, message="its page")
    with shop.down():
        # a card's page: Block refused on the page, Fund in its dialog
        press_when_clickable(shop, cards.page.buttons["block"])
        loop.until(lambda: refused(cards.page.message.text()), message="the sentence")
        _read_whole(cards.page.message, "Block")
        seen.look(window, "a card's page, Block while the shared ledger is out of reach")
        press_when_clickable(shop, cards.page.buttons["fund"])
        loop.until(lambda: press.shown("fund-dialog") is not None, message="the dialog")
        fund = press.shown("fund-dialog")
        press.type_into(fund.amount, "5")
        press.click(fund.action)
        loop.until(lambda: refused(fund.outcome.text()), message="the sentence")
        _read_whole(fund.outcome, "Fund")
        seen.look(fund, "Fund while the shared ledger is out of reach")
        press.click(fund.close_button)
        # Payment links: Create link disabled, the sentence beside it
        to_tab(window, "links")
        loop.until(lambda: not form.create_button.isEnabled(), message="Create link disabled")
        _read_whole(form.why_disabled, "Create link")
        seen.look(window, "Payment links, Create link while the shared ledger is out of reach")
        # the Counter tab: Sell refused under the amount box
        to_tab(window, "counter")
        press.type_into(counter.note, LONG_TITLE)
        assert sell(shop, counter, "12") is None
        _read_whole(counter.message, "Sell")
        seen.look(window, "the Counter tab, Sell while the shared ledger is out of reach")
        # Close shift: the box saying why
        press.click(counter.close_shift_button)
        loop.until(lambda: press.shown("close-shift-told") is not None, message="the box")
        box = press.shown("close-shift-told")
        assert refused(box.text()), box.text()
        seen.look(box, "Close shift while the shared ledger is out of reach")
        press.click(press.button(box, _("OK")))
        # Rename counter: the sentence in its dialog
        press.click(counter.rename_button)
        loop.until(lambda: press.shown("rename-counter") is not None, message="the dialog")
        dialog = press.shown("rename-counter")
        press.type_into(dialog.name, "Østergaard Kaffebrænderi, till 3 by door")
        press.click(dialog.rename)
        loop.until(lambda: refused(dialog.message.text()), message="the sentence")
        _read_whole(dialog.message, "Rename counter")
        seen.look(dialog, "Rename counter while the shared ledger is out of reach")
        press.click(dialog.cancel)
        # the Bulk window's Create links, and Batches' QR sheet…
        step = bulk.check_step
        press.click(step.create_links)
        loop.until(lambda: refused(step.why.text()), message="the sentence")
        _read_whole(step.why, "Create links")
        seen.look(bulk, "Bulk links, Create links while the shared ledger is out of reach")
        press.click(batches.qr)
        loop.until(lambda: refused(batches.said.text()), message="the sentence")
        _read_whole(batches.said, "QR sheet…")
        seen.look(batches, "Batches, QR sheet… while the shared ledger is out of reach")
        shop.no_crash()
