"""A sale voided at the counter, seen from the Transactions tab (issue 28, item 8): the list
and the details say VOIDED AT COUNTER (PAID AFTER VOID once the customer pays anyway), the
state filters tell it from the links still waiting for payment, the export keeps the
service's word beside the counter's, and the end of day counts it on a line of its own."""

from __future__ import annotations

import csv
from dataclasses import replace
from decimal import Decimal

from paydesk.service.models import PaymentRequest
from paydesk.ui.transactions.model import STATE
from tests.ui import press
from tests.ui.counter.conftest import SHOP_EMAIL, open_counter_tab
from tests.ui.test_links import choose_row


def listed_state(tab, tx_ref: str) -> str | None:
    """The State column of the record's row, as the list shows it; None when not listed."""
    model = tab.model
    for row in range(model.rowCount()):
        if model.index(row, 0).data() == tx_ref:
            return model.index(row, STATE).data()
    return None


def listed(tab) -> set[str]:
    model = tab.model
    return {model.index(row, 0).data() for row in range(model.rowCount())}


def to_transactions(app, loop):
    window = app.window
    press.tab(window.tabs, "Transactions")
    tab = window.transactions_tab
    loop.until(lambda: window.tabs.currentWidget() is tab and tab.loaded, message="the Transactions tab")
    return tab


def test_a_sale_voided_at_the_counter_reads_as_voided_everywhere(start_app, loop, tmp_path):
    app = start_app(sandbox=True)
    app.on_links_tab()
    session = app.session
    loop.run(session.save_profile(replace(session.profile, shop_email=SHOP_EMAIL), {}))
    # a link made on the Payment links tab, waiting for payment: not a counter sale
    waiting = loop.run(
        app.window.links.create(
            PaymentRequest(
                amount=Decimal(9),
                currency="GBP",
                email="ada@example.com",
                first_name="Ada",
                last_name="Lovelace",
                tx_ref="SANDBOX-WAIT-1",
                title="Flat white",
            )
        )
    )
    counter = open_counter_tab(app, loop)
    press.click(counter.tab.place.toggle)  # the customer's view beside the amount: one screen
    assert counter.view is counter.tab.place.beside
    sale = counter.sell("7")

    # Transactions lists the sale while the customer may pay it
    tab = to_transactions(app, loop)
    loop.until(lambda: listed_state(tab, sale.tx_ref) == "WAITING FOR PAYMENT", message="the sale, waiting")

    # voided at the counter: the list says so at once (no F5), from the void itself, with
    # the service answering nothing meanwhile (no check of the link brings the news)
    app.faults(error_rate=1.0)
    counter = open_counter_tab(app, loop)
    task = press.starting("new sale", lambda: press.escape(counter.tab.amount))
    loop.until(lambda: press.shown("confirm-void") is not None, message="the void box")
    press.click(press.button(press.shown("confirm-void"), "Void sale"))
    assert loop.run(task).voided
    tab = to_transactions(app, loop)
    loop.until(lambda: listed_state(tab, sale.tx_ref) == "VOIDED AT COUNTER", message="the sale, voided")
    app.faults()
    assert listed_state(tab, waiting.tx_ref) == "WAITING FOR PAYMENT"

    # its details: the badge, and when it was voided
    choose_row(tab.table, tab.model.row_of(sale.key))
    details = tab.details
    loop.until(lambda: details.record is not None and details.record.key == sale.key, message="the sale's details")
    assert details.state.text() == "VOIDED AT COUNTER"
    voided = details.values["voided"]
    assert voided.isVisible() and "can still pay" in voided.text()
    assert details.captions["voided"].isVisible()

    # the filters: waiting for payment leaves it out; voided at counter lists it alone
    state = tab.filters.state
    press.choose(state, "Waiting for payment")
    loop.until(
        lambda: tab.model.query.states == frozenset({"pending"}) and tab.model.counted, message="the waiting ones"
    )
    assert {sale.tx_ref, waiting.tx_ref} & listed(tab) == {waiting.tx_ref}
    press.choose(state, "Voided at counter")
    loop.until(lambda: tab.model.query.voided is True and tab.model.counted, message="the voided ones")
    assert listed(tab) == {sale.tx_ref}
    press.choose(state, "All states")
    loop.until(lambda: not tab.model.query.states and tab.model.counted, message="every one")

    # the export: the words shown, the service's own word, and the counter's
    target = tmp_path / "voided.csv"
    task = press.click_starting(tab.export_button, "export")
    loop.until(lambda: press.shown("save-dialog") is not None, message="the save dialog")
    press.save_as(press.shown("save-dialog"), target)
    loop.until(task.done, timeout=60, message="the export")
    with open(target, encoding="utf-8-sig", newline="") as f:
        rows = {row["tx_ref"]: row for row in csv.DictReader(f)}
    row = rows[sale.tx_ref]
    assert (row["state"], row["service_state"], row["counter_void"]) == ("VOIDED AT COUNTER", "pending", "voided")
    assert row["counter_voided_utc"].endswith("Z")
    assert (rows[waiting.tx_ref]["counter_void"], rows[waiting.tx_ref]["counter_voided_utc"]) == ("", "")

    # the end of day: still open 1 (the link), voided at counter 1 (the sale)
    press.click(tab.end_of_day)
    loop.until(lambda: press.shown("end-of-day") is not None, message="the end of day")
    day = press.shown("end-of-day")
    loop.until(lambda: day.figures["Links made"].text() == "2", message="the day's figures")
    assert day.figures["Still open"].text() == "1"
    assert day.figures["Voided at counter"].text() == "1"
    press.click(day.close_button)
    loop.until(lambda: press.shown("end-of-day") is None, message="the end of day closed")

    # the customer had scanned the code, and pays anyway: PAID AFTER VOID, in red
    counter.pay(sale)
    loop.until(lambda: listed_state(tab, sale.tx_ref) == "PAID AFTER VOID", timeout=30, message="paid after its void")
    loop.until(lambda: details.state.text() == "PAID AFTER VOID", message="the details")
    assert "paid after it" in details.values["voided"].text()
