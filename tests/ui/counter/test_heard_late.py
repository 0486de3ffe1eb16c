"""A word on the sale heard late does not take its code off the screens.

On a shared ledger each desk hears of every change and reads what it announced when it
hears of it, so a read can reach the screens after a newer one: the sale as it was while
its link was being created, after the sale with its code was shown (the key-less counter's
sales did this, one in a few hundred: tests/benchmarks/bench_counter.py caught the code gone
from the customer's screen). The late words are given to the desk's hub here as its
shared ledger's feed gives them (desk/live.py), since the order of two reads on worker
threads cannot be had on cue."""

from __future__ import annotations

from dataclasses import replace

from tests.ui.test_links import decode_qr


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
    for late in (
        lambda: hub.record_changed.emit(record),  # the link as it was before it was paid
        lambda: hub.sale_changed.emit(sale),  # and the sale, open then
    ):
        late()  # a paid sale is never payable again, on no screen, in no list
        assert (mirror.state.text(), view.words.text()) == paid_words and view.qr.code is None
        assert counter.listed_state(sale.tx_ref) == "Paid" and not desk.counter.payable()
