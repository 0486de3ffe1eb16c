"""What a counter needs before its first sale: on a fresh ``paydesk --sandbox`` nothing (its
profile has a shop e-mail and a walk-in name); on a profile without the shop's e-mail, the
Counter tab asks for it when it is opened, and saves it in the profile."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QApplication

from tests.ui import press
from tests.ui.counter.conftest import open_counter_tab


def test_a_fresh_sandbox_sells_at_once(start_app, loop):
    app = start_app(sandbox=True)
    app.on_links_tab()
    counter = open_counter_tab(app, loop)
    tab = counter.tab
    assert QApplication.focusWidget() is tab.amount
    sale = counter.sell("5")
    assert not tab.message.isVisible() and not tab.messages["email"].isVisible(), tab.messages["email"].text()
    assert sale is not None and sale.record.state == "pending"
    assert tab.mirror.state.text() == "WAITING FOR PAYMENT"
    assert not tab.shop_email.isVisible()  # nothing asked


def test_the_counter_asks_for_the_shops_email_when_opened(start_app, loop):
    app = start_app(sandbox=True)
    app.on_links_tab()
    session = app.session
    loop.run(session.save_profile(replace(session.profile, shop_email=""), {}))
    counter = open_counter_tab(app, loop)
    tab = counter.tab
    ask = tab.shop_email
    # asked at once, in the tab, before any sale: the field has the keyboard, its words said
    assert ask.isVisible() and QApplication.focusWidget() is ask.field
    assert ask.field.accessibleName() == "Shop e-mail"
    assert "shop's e-mail" in ask.words.text() and "every payment" in ask.words.text()
    press.type_into(ask.field, "till@")
    press.click(ask.save_button)
    loop.until(lambda: ask.message.isVisible(), message="the e-mail refused")
    assert ask.message.text() == "Not an e-mail address" and session.profile.shop_email == ""
    press.type_into(ask.field, "till@example.com")
    task = press.starting("shop e-mail", lambda: press.enter(ask.field))
    loop.run(task)
    assert session.profile.shop_email == "till@example.com"
    assert not ask.isVisible() and QApplication.focusWidget() is tab.amount
    sale = counter.sell("6")
    assert sale is not None and sale.record.email == "till@example.com"
