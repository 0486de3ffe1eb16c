"""A long day at the counter: today's list of sales stays the same size in memory however many
sales the day has, and still shows them all (found by the soak, tests/benchmarks/bench_soak.py;
no memory amounts are asserted)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from paydesk.ui.counter.sales import HELD, REFERENCE
from tests.ui import press


def test_a_long_day_keeps_todays_list_bounded_and_every_sale_reachable(counter, loop):
    """Regression: every sale made while the Counter tab was open went on top of today's list
    and stayed there, a sale and its link held in memory per sale all day. Past ``HELD`` rows
    the oldest ones are let go; scrolling down reads them again, as it reads any page."""
    tab = counter.tab
    controller = tab.controller

    async def sell(n):  # sales as another till on the same ledger makes them, told by the hub
        profile, made = controller.session.profile, []
        for _ in range(n):
            tx_ref = await controller.links.claim_reference(profile)
            shift = await controller.shift()
            made.append(await controller.book.add_sale(shift.id, tx_ref, controller.user))
            controller.hub.sale_changed.emit(made[-1])
        return made

    made = loop.run(sell(HELD + 60), timeout=240)
    model = tab.model
    loop.until(lambda: model.index(0, REFERENCE).data() == made[-1].tx_ref, message="the newest sale on top")
    shown = [model.index(row, REFERENCE).data() for row in range(5)]
    assert shown == [sale.tx_ref for sale in reversed(made[-5:])]
    assert model.rowCount() <= HELD, f"{model.rowCount()} sales held in today's list"

    # scrolled to the end, a page at a time, as staff look for the day's first sale
    table = tab.sales
    press.click(table.viewport(), pos=table.visualRect(model.index(0, 0)).center())
    for _ in range(20):
        press.key(table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        loop.until(lambda: not model._fetching, message="the next page")
        if model.index(model.rowCount() - 1, REFERENCE).data() == made[0].tx_ref:
            break
    listed = [model.index(row, REFERENCE).data() for row in range(model.rowCount())]
    assert listed[-len(made) :] == [sale.tx_ref for sale in reversed(made)]
