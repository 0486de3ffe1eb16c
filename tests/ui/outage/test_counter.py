"""The Counter tab while the shared ledger is out of reach: Sell, New sale's void, Keep and
Refund after a void, and Close shift are each refused with the one sentence under the
buttons (or in the box the staff answered), nothing written nor sent; and the red words go
within seconds of the ledger's return, without another sale (issue 29 item 7: they stayed
two and a half minutes)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt

from paydesk.ledger.counter import SaleQuery
from tests.ui import press
from tests.ui.outage.conftest import refused

SHOP_EMAIL = "till@example.com"
OUTAGE = 20.0  # s: longer than every retry's longest wait (the feed's 10 s, the probe's 5 s)


def counter_tab(shop):
    """Ctrl+4, as staff open the Counter tab (the profile has the shop's e-mail)."""
    loop, window = shop.loop, shop.window
    loop.run(shop.session.save_profile(replace(shop.profile, shop_email=SHOP_EMAIL), {}))
    press.key(window.focusWidget() or window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    tab = window.counter_tab
    loop.until(lambda: window.tabs.currentWidget() is tab and tab.loaded, message="the Counter tab")
    return tab


def sell(shop, tab, amount: str):
    press.type_into(tab.amount, amount)
    return shop.loop.run(press.starting("sell", lambda: press.enter(tab.amount)), timeout=60)


def sales(shop) -> list:
    book = shop.desk.book
    return shop.loop.run(book.sales(SaleQuery(profile_id=shop.profile.id, mode="test")))


@pytest.mark.slow  # about 20 s: ./dev test starts it first
def test_sell_is_refused_and_the_words_go_once_the_ledger_is_back(shop):
    shop = shop()
    tab = counter_tab(shop)
    calls = shop.calls()
    shop.server.stop()
    try:
        shop.loop.until(lambda: shop.session.ledger_down() is not None, message="noticed")
        assert sell(shop, tab, "12") is None
        assert refused(tab.message.text()) and tab.message.isVisible(), tab.message.text()
        assert tab.mirror.sale is None
        shop.no_crash()
        # an outage long enough for every retry to reach its longest wait (not a measure)
        shop.settle(OUTAGE)
        assert refused(tab.message.text()) and tab.message.isVisible()
    finally:
        shop.server.start()
    started = time.monotonic()  # the server answers from here
    shop.loop.until(
        lambda: not tab.message.isVisible(), timeout=15, message="the red words gone once the ledger answers"
    )
    gone = time.monotonic() - started
    print(f"\nafter {OUTAGE:.0f} s down, the counter's red words went {gone:.2f} s after the server answered again")
    assert gone < 10  # the engine asks a lost server again at least every 5 s
    assert shop.calls() == calls
    assert sales(shop) == []
    shop.no_crash()


def test_the_void_of_a_sale_is_refused_and_the_sale_stays_open(shop):
    shop = shop()
    tab = counter_tab(shop)
    sale = sell(shop, tab, "7")
    assert sale is not None and tab.controller.payable()
    calls = shop.calls()
    with shop.down():
        press.click(tab.new_sale_button)
        shop.settle()
        assert press.shown("confirm-void") is None  # not asked: it could not be done
        assert refused(tab.message.text()), tab.message.text()
        assert tab.mirror.sale is not None and tab.mirror.sale.key == sale.key  # still shown
        shop.no_crash()
    assert not [s for s in sales(shop) if s.voided]
    assert [c for c in shop.calls() if c not in calls and c[0] == "POST"] == []
    shop.no_crash()


def test_keep_and_refund_after_a_void_are_refused(shop):
    shop = shop()
    tab = counter_tab(shop)
    sale = sell(shop, tab, "9")
    task = press.starting("new sale", lambda: press.click(tab.new_sale_button))
    shop.loop.until(lambda: press.shown("confirm-void") is not None, message="the box")
    press.click(press.button(press.shown("confirm-void"), "Void sale"))
    voided = shop.loop.run(task)
    shop.pay(voided.record)
    shop.loop.until(tab.banner.isVisible, timeout=30, message="the red banner")
    with shop.down():
        for button in (tab.banner.keep, tab.banner.refund):
            task = press.starting("decide", lambda button=button: press.click(button))
            assert shop.loop.run(task) is None  # refused: nothing decided
            assert press.shown("confirm-refund") is None  # and not asked
            assert refused(tab.message.text()), tab.message.text()
            assert tab.banner.isVisible()
        shop.no_crash()
    (after,) = [s for s in sales(shop) if s.key == sale.key]
    assert after.needs_decision  # nothing decided
    shop.no_crash()


def test_close_shift_is_refused_with_the_sentence(shop):
    shop = shop()
    tab = counter_tab(shop)
    sell(shop, tab, "4")
    with shop.down():
        press.click(tab.close_shift_button)
        shop.loop.until(lambda: press.shown("close-shift-told") is not None, message="the box saying why")
        box = press.shown("close-shift-told")
        assert refused(box.text()), box.text()
        assert press.shown("confirm-close-shift") is None
        press.click(press.button(box, "OK"))
        shop.no_crash()
    shift = shop.loop.run(shop.desk.book.current_shift(tab.controller.name, shop.profile.id, "test"))
    assert shift is not None and shift.closed_at is None  # still open
    shop.no_crash()


@pytest.mark.parametrize("when", ["before the count", "after the count"])
def test_a_close_shift_that_meets_the_ledger_gone_says_the_sentence(shop, when):
    """The desk did not know yet (no feed running): Close shift… finds out when it reads the
    count, or once the staff confirmed it; either way the box says the one sentence, and
    the shift stays open."""
    shop = shop(background=False)
    tab = counter_tab(shop)
    sell(shop, tab, "4")
    if when == "after the count":
        press.click(tab.close_shift_button)
        shop.loop.until(lambda: press.shown("confirm-close-shift") is not None, message="the count to confirm")
    with shop.down(noticed=False):
        if when == "after the count":
            press.click(press.button(press.shown("confirm-close-shift"), "Close shift"))
        else:
            press.click(tab.close_shift_button)
        shop.loop.until(lambda: press.shown("close-shift-told") is not None, timeout=30, message="the box saying why")
        box = press.shown("close-shift-told")
        assert refused(box.text()), box.text()
        press.click(press.button(box, "OK"))
        shop.no_crash()
    shift = shop.loop.run(shop.desk.book.current_shift(tab.controller.name, shop.profile.id, "test"))
    assert shift is not None and shift.closed_at is None  # still open
    shop.no_crash()


def test_rename_counter_is_refused_in_its_dialog(shop):
    """Whether the open shift has sales cannot be read: the counter keeps its name."""
    shop = shop()
    tab = counter_tab(shop)
    name = tab.controller.name
    with shop.down():
        press.click(tab.rename_button)
        shop.loop.until(lambda: press.shown("rename-counter") is not None, message="the dialog")
        dialog = press.shown("rename-counter")
        press.type_into(dialog.name, "Till 9")
        press.click(dialog.rename)
        shop.loop.until(lambda: refused(dialog.message.text()), message="the sentence")
        assert dialog.isVisible()
        press.click(dialog.cancel)
        shop.no_crash()
    assert tab.controller.name == name
    shop.no_crash()


def test_the_counter_shifts_windows_keep_and_refund_are_refused(shop):
    """Finance's Counter shifts window (View → Counter shifts…): Keep and Refund… of a payment
    after void say the one sentence under the list, Refund… without asking first (it could
    not be recorded); nothing decided; the words go once the ledger answers again."""
    shop = shop()
    tab = counter_tab(shop)
    sale = sell(shop, tab, "9")
    task = press.starting("new sale", lambda: press.click(tab.new_sale_button))
    shop.loop.until(lambda: press.shown("confirm-void") is not None, message="the box")
    press.click(press.button(press.shown("confirm-void"), "Void sale"))
    shop.pay(shop.loop.run(task).record)
    shop.loop.until(tab.banner.isVisible, timeout=30, message="the red banner")
    shop.window.activateWindow()  # the void's box closed: the staff is back at the window
    shop.loop.until(shop.window.isActiveWindow, message="the window in front")
    press.click(tab.amount)
    press.key(tab.amount, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    shop.loop.until(lambda: press.shown("counter-shifts-window") is not None, message="the Counter shifts window")
    shifts = press.shown("counter-shifts-window")
    shop.loop.until(
        lambda: shifts.loaded and shifts.sales_model.rowCount() == 1, message="the payment after void listed"
    )
    index = shifts.sales.model().index(0, 0)
    press.click(shifts.sales.viewport(), pos=shifts.sales.visualRect(index).center())
    assert shifts.message.text() == ""
    with shop.down():
        # Refund… first (the line is empty: what it says is its own), then Keep
        for button in (shifts.refund_button, shifts.keep_button):
            task = press.starting("decide", lambda button=button: press.click(button))
            assert shop.loop.run(task, timeout=10) is None  # nothing decided
            assert press.shown("confirm-refund") is None  # and not asked
            assert refused(shifts.message.text()), shifts.message.text()
            assert shifts.message.isVisible()
        shop.no_crash()
    shop.loop.until(
        lambda: shifts.message.text() == "", timeout=15, message="the sentence gone once the ledger answers"
    )
    (after,) = [s for s in sales(shop) if s.key == sale.key]
    assert after.needs_decision
    shop.no_crash()
