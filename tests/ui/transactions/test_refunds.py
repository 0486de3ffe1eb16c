"""Refunds and reversals after PAID (issue 15 §3.6), against a real sandbox that refunds
(its control API): Check all open reads recent paid ones again, End of day reads the day's
again before it counts and shows refunds and the net, and the scheduler reads paid links
again by itself. Widgets are pressed through tests/ui/press.py only."""

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.ui import press


def dialog(name):
    return next((w for w in QApplication.topLevelWidgets() if w.objectName() == name and w.isVisible()), None)


def paid(shop, ref, amount=25):
    made = shop.create(ref, amount=amount)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    record = shop.lookup(ref).record
    assert record.state == "success"
    return record


def state_of(shop, ref):
    return shop.loop.run(shop.session.ledger.get(shop.profile.id, ref)).state


def test_check_all_open_sees_a_refund_after_paid(shop):
    """Regression: a paid link refunded at the service stayed PAID, counted as collected."""
    record = paid(shop, "SHOP-REF-1")
    paid(shop, "SHOP-REF-2")
    shop.control(f"transactions/{record.reference}/status", {"status": "refunded"})
    press.click(shop.tab.check_all)
    shop.loop.until(
        lambda: shop.tab.work._task is not None and shop.tab.work._task.done(), timeout=60, message="Check all open"
    )
    assert state_of(shop, "SHOP-REF-1") == "refunded"
    assert state_of(shop, "SHOP-REF-2") == "success"
    report = shop.tab.work.report.text()
    assert "1 refunded" in report and "1 still paid" in report, report
    row = shop.tab.model.row_of((shop.profile.id, "SHOP-REF-1"))
    shop.loop.until(
        lambda: shop.tab.model.text(shop.tab.model.record_at(row), 5) == "REFUNDED",
        message="the row repainted REFUNDED",
    )


def test_end_of_day_reads_the_days_paid_again_and_shows_refunds_and_net(strict_shop):
    shop = strict_shop
    kept = paid(shop, "SHOP-EODR-1", amount=40)
    back = paid(shop, "SHOP-EODR-2", amount=10)
    shop.control(f"transactions/{back.reference}/status", {"status": "reversed"})
    # PayDesk has not looked since: End of day reads them again before it counts
    press.click(shop.tab.end_of_day)
    shop.loop.until(lambda: dialog("end-of-day") is not None, message="the end-of-day window")
    window = dialog("end-of-day")
    shop.loop.until(
        lambda: window.figures["Refunded or reversed"].text() == "1", timeout=30, message="the reversal counted"
    )
    assert window.figures["Paid"].text() == "1"
    totals = window.totals.model()
    shop.loop.until(
        lambda: totals.rowCount() == 1 and totals.index(0, 4).data() == "10.00 (1 payment)",
        message="the totals",
    )
    headers = [totals.headerData(c, Qt.Orientation.Horizontal) for c in range(totals.columnCount())]
    assert headers == ["Currency", "Paid", "Collected", "Fees", "Refunded", "Net"]
    row = [totals.index(0, c).data() for c in range(6)]
    fees = kept.fee + back.fee  # the service's fee on both (0.76 and 0.34)
    assert row[:4] == ["GBP", "1", "40.00", f"{fees:.2f}"]
    assert row[5] == f"{40 - fees:.2f}"  # net: collected less the fees
    assert "Read the day's 2 paid payments again: 1 reversed, 1 still paid" in window.message.text()
    press.click(window.close_button)


def test_the_scheduler_reads_paid_links_again_at_a_slow_pace(strict_shop):
    shop = strict_shop
    scheduler = shop.window.scheduler
    record = paid(shop, "SHOP-SCH-1")
    shop.control(f"transactions/{record.reference}/status", {"status": "refunded"})
    # just read (by the lookup): not due yet, nothing is asked
    before = len(shop.calls())
    assert shop.loop.run(scheduler.sweep_paid()) == 0 and len(shop.calls()) == before
    assert state_of(shop, "SHOP-SCH-1") == "success"
    # an hour later, as far as the pace is concerned
    scheduler.paid.pacing = replace(scheduler.paid.pacing, fresh_every=0.0)
    assert shop.loop.run(scheduler.sweep_paid()) == 1
    assert state_of(shop, "SHOP-SCH-1") == "refunded"
    shop.loop.until(lambda: shop.tab.details.state.text() == "REFUNDED", message="the details shown follow it")
    assert shop.loop.run(scheduler.sweep_paid()) == 0  # refunded is final: never read again
