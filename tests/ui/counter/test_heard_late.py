"""A word on the sale heard late does not take its code off the screens.

On a shared ledger each desk hears of every change and reads what it announced when it
hears of it, so a read can reach the screens after a newer one: the sale as it was while
its link was being created, after the sale with its code was shown (the key-less counter's
sales did this, one in a few hundred: tests/benchmarks/bench_counter.py caught the code gone
from the customer's screen). The late words are given to the desk's hub here as its
shared ledger's feed gives them (desk/live.py), since the order of two reads on worker
threads cannot be had on cue."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from tests.ui import press
from tests.ui.test_links import decode_qr
from tests.ui.transactions.test_voided_sales import listed_state


def test_the_sale_heard_as_it_was_before_its_link_was_answered_changes_nothing_on_the_screens(counter, loop):
    sale = counter.sell("7")
    view, mirror = counter.view, counter.tab.mirror
    record = sale.record
    assert record.state == "pending" and decode_qr(view.qr) == [record.checkout_url]
    shown = counter.texts_on_display()
    assert shown == ["Sandbox", "GBP 7.00", "WAITING FOR PAYMENT"]
    hub = counter.window.desk.hub
    heard = []
    hub.sale_changed.connect(heard.append)
    creating = replace(record, state="creating", checkout_url=None, reference=None)
    for late in (
        lambda: hub.record_changed.emit(creating),  # the link's intent, heard after its answer
        lambda: hub.sale_changed.emit(replace(sale, record=creating)),  # the sale as read then
        lambda: hub.sale_changed.emit(replace(sale, record=None)),  # before its link was written
    ):
        late()  # heard: each screen follows at once, or not at all
        assert counter.texts_on_display() == shown and view.qr.code.text == record.checkout_url
        assert mirror.state.text() == "WAITING FOR PAYMENT" and counter.window.desk.counter.payable()
    # the desk reads the sale again when its link is heard of: the book's word, the newest
    loop.until(lambda: len(heard) > 2 and heard[-1].record is not None, message="the sale read again")
    hub.sale_changed.disconnect(heard.append)
    assert heard[-1].record.state == "pending"
    assert counter.texts_on_display() == shown and decode_qr(view.qr) == [record.checkout_url]
    assert mirror.state.text() == "WAITING FOR PAYMENT" and mirror.sale.record.checkout_url
    assert counter.window.desk.counter.payable()
    assert counter.listed_state(sale.tx_ref) == "Open"

    desk = counter.window.desk
    counter.pay(sale)  # what is newer still shows at once
    loop.until(
        lambda: view.phase == "paid" and counter.listed_state(sale.tx_ref) == "Paid" and not desk.counter.payable(),
        message="PAID on the screens and in the list",
    )
    paid_words = (mirror.state.text(), view.words.text())
    transactions = counter.window.transactions_tab
    press.tab(counter.window.tabs, "Transactions")
    loop.until(lambda: listed_state(transactions, sale.tx_ref) == "PAID", message="PAID in Transactions")
    press.tab(counter.window.tabs, "Counter")
    for late in (
        lambda: hub.record_changed.emit(record),  # the link as it was before it was paid
        lambda: hub.sale_changed.emit(sale),  # and the sale, open then
    ):
        late()  # a paid sale is never payable again, on no screen, in no list
        assert (mirror.state.text(), view.words.text()) == paid_words and view.qr.code is None
        assert counter.listed_state(sale.tx_ref) == "Paid" and not desk.counter.payable()
        assert listed_state(transactions, sale.tx_ref) == "PAID"


def test_the_books_word_older_than_the_one_heard_does_not_take_the_sale_back(counter, loop):
    """The desk reads a sale again when its link is heard of; a read made before a newer word
    came (a key-less counter's sale: read while its link was created, the sale with its
    code given back meanwhile) must not take the sale back. Here the newer word is the link
    said paid on the hub before the book holds it, so that the re-read is the older one."""
    sale = counter.sell("7")
    desk = counter.window.desk
    view = counter.view
    desk.hub.record_changed.emit(replace(sale.record, state="success"))  # paid, heard first
    assert not desk.counter.payable()  # at once, ahead of the book (as PAID is shown)
    name = f"sale {sale.profile_id} {sale.tx_ref}"  # the desk's task that reads it again
    reread = next(t for t in asyncio.all_tasks(loop.loop) if t.get_name() == name)
    loop.until(reread.done, message="the book's word on the sale")  # still open there
    assert not desk.counter.payable() and desk.counter.current.record.state == "success"
    assert view.phase == "paid" and view.qr.code is None
    counter.pay(sale)  # and then it is paid there too
    loop.until(lambda: counter.listed_state(sale.tx_ref) == "Paid", message="paid in the list")
