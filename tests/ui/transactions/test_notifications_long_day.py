"""A long day of notifications with the Notifications window open (or opened once and closed:
it is kept): its list stays the same size in memory, and still shows them all (the same
fault as today's sales at the counter, found by the soak; no memory amounts are asserted)."""

import pytest
from PySide6.QtCore import Qt

from paydesk.ui.notifications.model import HELD
from tests.ui import press
from tests.ui.transactions.test_notifications import open_notifications, receive

pytestmark = pytest.mark.dialects("strict")


def test_a_long_day_of_notifications_keeps_the_list_bounded(strict_shop):
    """Regression: every notification kept while the window existed went on top of its list
    and stayed there. Past ``HELD`` rows the oldest are let go and read again when
    scrolled to."""
    shop = strict_shop
    window = open_notifications(shop)
    refs = [f"SHOP-DAY-{n:04d}" for n in range(HELD + 40)]
    for ref in refs:
        receive(shop, ref, said=True)
    model = window.model
    shop.loop.until(
        lambda: model.entry_at(0) is not None and model.entry_at(0).tx_ref == refs[-1], message="the newest on top"
    )
    assert model.rowCount() <= HELD, f"{model.rowCount()} notifications held in the list"

    table = window.table
    press.click(table.viewport(), pos=table.visualRect(model.index(0, 0)).center())
    for _ in range(20):
        press.key(table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        shop.loop.until(lambda: not model._fetching, message="the next page")
        if model.entry_at(model.rowCount() - 1).tx_ref == refs[0]:
            break
    listed = [model.entry_at(row).tx_ref for row in range(model.rowCount())]
    assert listed == list(reversed(refs))
