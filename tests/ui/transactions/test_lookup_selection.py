"""The list's selection and the details pane agree after a look-up (issue 28, item 17a): a
look-up that finds nothing leaves no row selected (the pane is blank, and Ctrl+P or Ctrl+R
would otherwise act on a row the user has moved away from); one that finds a record the
list does not show (filtered out) shows it with no other row selected."""

from __future__ import annotations

from tests.ui import press
from tests.ui.test_links import choose_row


def selected_rows(tab) -> list[int]:
    return [index.row() for index in tab.table.selectionModel().selectedRows()]


def pick(shop, made):
    """Click the record's row in the list; its details open."""
    tab = shop.tab
    shop.loop.until(lambda: tab.model.row_of(made.key) is not None, message="the row")
    choose_row(tab.table, tab.model.row_of(made.key))
    shop.loop.until(
        lambda: tab.details.record is not None and tab.details.record.key == made.key, message="its details"
    )


def test_a_look_up_that_finds_nothing_leaves_no_row_selected(strict_shop):
    shop, tab = strict_shop, strict_shop.tab
    made = shop.create("SHOP-SEL-1")
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    shop.lookup("SHOP-SEL-1")
    pick(shop, made)
    assert selected_rows(tab) == [tab.model.row_of(made.key)]
    assert tab.details.state.text() == "PAID"
    found = shop.lookup("SHOP-NOBODY-1")
    assert found.record is None
    assert tab.lookup_message.text().startswith("No payment with this reference")
    assert selected_rows(tab) == []  # no row highlighted ...
    assert tab.details.state.text() == "" and tab.details.record is None  # ... none shown
    assert not tab.details.buttons["receipt-print"].isEnabled()
    assert not tab.menu_actions["receipt-print"].isEnabled()  # Ctrl+P prints nothing
    assert not tab.menu_actions["check"].isEnabled()  # Ctrl+R checks nothing


def test_a_look_up_of_a_record_the_list_does_not_show_selects_no_other(strict_shop):
    shop, tab = strict_shop, strict_shop.tab
    paid = shop.create("SHOP-SEL-2")
    shop.control(f"pay/{paid.reference}", {"outcome": "success"})
    shop.lookup("SHOP-SEL-2")
    waiting = shop.create("SHOP-SEL-3")
    press.choose(tab.filters.state, "Paid")
    shop.loop.until(
        lambda: tab.model.query.states == frozenset({"success"}) and tab.model.row_of(waiting.key) is None,
        message="the paid ones",
    )
    pick(shop, paid)
    shop.lookup("SHOP-SEL-3")  # waiting for payment: not listed under Paid
    assert tab.details.record.key == waiting.key
    assert tab.details.state.text() == "WAITING FOR PAYMENT"
    assert selected_rows(tab) == []
