"""A sale at the counter, through the keyboard as staff make it, asserted on both screens
(the staff's mirror and the customer's view), against the embedded sandbox."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt

from paydesk.ui.counter.sales import REFERENCE
from paydesk.ui.fixed_text import is_fixed
from tests.ui import press
from tests.ui.test_links import decode_qr


def test_type_enter_and_the_code_is_shown_until_paid(counter, loop):
    tab = counter.tab
    assert tab.window().focusWidget() is tab.amount  # Ctrl+4: the focus in the amount box
    assert tab.note.placeholderText().startswith("Sale ")
    title = tab.note.placeholderText()
    sale = counter.sell("7")
    record = sale.record
    assert record.state == "pending" and record.title == title
    assert record.email == "till@example.com"
    assert (record.first_name, record.last_name) == ("Walk-in", "customer")
    # the staff's screen: the state in words, the amount, the reference; the code is the
    # customer's view's, beside the amount box (one code on one screen: test_display.py)
    mirror = tab.mirror
    assert mirror.state.text() == "WAITING FOR PAYMENT" and mirror.amount.text() == "GBP 7.00"
    assert not mirror.qr.isVisible() and decode_qr(tab) == [record.checkout_url]
    assert mirror.reference.text() == f"Reference {sale.tx_ref}"
    assert is_fixed(mirror.reference.font())  # read back and typed: drawn as it is
    row = tab.model.index(0, REFERENCE)
    assert row.data() == sale.tx_ref and is_fixed(row.data(Qt.ItemDataRole.FontRole))
    # the customer's: the merchant, the amount, the code, the state; nothing else
    view = counter.view
    assert decode_qr(view.qr) == [record.checkout_url]
    assert counter.texts_on_display() == ["Sandbox", "GBP 7.00", "WAITING FOR PAYMENT"]
    assert title not in counter.texts_on_display()
    assert tab.amount.text() == "" and counter.listed_state(sale.tx_ref) == "Open"

    counter.pay(sale)
    loop.until(lambda: view.phase == "paid", message="PAID on the customer's screen")
    assert view.words.text() == "Paid" and not view.qr.isVisible() and view.qr.code is None
    assert "#1b7f3b" in view.styleSheet()
    assert mirror.state.text() == "PAID" and not mirror.qr.isVisible()
    loop.until(lambda: view.phase == "thanks", message="Thank you")
    assert view.words.text() == "Thank you"
    loop.until(lambda: view.phase == "blank", message="blank for the next customer")
    assert counter.texts_on_display() == ["Sandbox"]
    loop.until(lambda: counter.listed_state(sale.tx_ref) == "Paid", message="the list")
    assert "GBP: paid 7.00" in tab.totals.text()

    # ready for the next customer: Enter sells again
    second = counter.sell("12")
    assert second is not None and second.tx_ref != sale.tx_ref
    assert counter.texts_on_display() == ["Sandbox", "GBP 12.00", "WAITING FOR PAYMENT"]
    assert [s.tx_ref for s in tab.model.sales[:2]] == [second.tx_ref, sale.tx_ref]


def test_double_and_triple_enter_make_one_link(counter, loop):
    tab = counter.tab
    before = counter.calls()
    press.type_into(tab.amount, "9")
    task = press.starting("sell", lambda: press.enter(tab.amount))
    press.enter(tab.amount)  # while it is being made: nothing
    press.enter(tab.amount)
    sale = loop.run(task, timeout=60)
    for _ in range(3):  # while its code is shown: nothing either
        press.enter(tab.amount)
    press.type_into(tab.amount, "10")
    press.enter(tab.amount)
    loop.run(asyncio.sleep(0.5))  # time for a second create, were one started
    assert counter.calls() - before == 1
    assert [s.tx_ref for s in tab.model.sales] == [sale.tx_ref]
    assert tab.message.text() == "This customer's code is on screen: Escape starts a new sale"
    assert tab.amount.text() == "10"  # nothing typed is lost


def test_bad_input_is_said_next_to_the_box_and_never_on_the_customers_screen(counter, loop):
    tab = counter.tab
    before = counter.calls()
    press.type_into(tab.amount, "7.50")
    loop.run(press.starting("sell", lambda: press.enter(tab.amount)))
    message = tab.messages["amount"]
    assert message.isVisible() and message.text()
    said = [message.text()]
    assert tab.amount.text() == "7.50"  # nothing typed is lost
    press.type_into(tab.amount, "7")
    press.type_into(tab.email, "not an address")
    loop.run(press.starting("sell", lambda: press.enter(tab.email)))
    assert tab.messages["email"].isVisible() and tab.messages["email"].text()
    said.append(tab.messages["email"].text())
    assert not tab.messages["amount"].isVisible()
    assert counter.calls() == before  # nothing was sent
    shown = counter.texts_on_display()
    assert shown == ["Sandbox"]
    assert not any(error in text for error in said for text in shown)
    # Escape on a counter with something typed clears it; on a blank one closes the display
    press.escape(tab.email)
    assert tab.amount.text() == tab.email.text() == "" and not tab.messages["email"].isVisible()
    assert counter.view.isVisible()
    press.escape(tab.amount)
    assert counter.view is None and not tab.place.beside.isVisible()
    assert tab.place.toggle.text() == "Open customer display"


def test_no_shop_email_is_said_next_to_the_email_box(counter, loop):
    from dataclasses import replace

    session = counter.app.session
    loop.run(session.save_profile(replace(session.profile, shop_email=""), {}))
    tab = counter.tab
    before = counter.calls()
    press.type_into(tab.amount, "5")
    loop.run(press.starting("sell", lambda: press.enter(tab.amount)))
    assert tab.messages["email"].isVisible() and "e-mail" in tab.messages["email"].text()
    assert counter.calls() == before and tab.mirror.sale is None
    assert counter.texts_on_display() == ["Sandbox"]
    # the customer's own address does
    press.type_into(tab.email, "ada@example.com")
    task = press.starting("sell", lambda: press.key(tab.email, Qt.Key.Key_Return))
    sale = loop.run(task, timeout=60)
    assert sale.record.email == "ada@example.com" and counter.calls() == before + 1
    assert not tab.messages["email"].isVisible()
