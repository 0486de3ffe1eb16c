"""Today's list and totals start again at local midnight, even when no sale changes then."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from PySide6.QtCore import QTimer

import paydesk.desk.counter
import paydesk.ui.counter.tab
from paydesk.desk.day import local_midnight


class Tomorrow(date):
    """The clock after midnight: today is tomorrow."""

    @classmethod
    def today(cls):
        return date.today() + timedelta(days=1)


def test_the_list_starts_again_at_midnight_with_no_sale(counter, loop, monkeypatch):
    tab = counter.tab
    sale = counter.sell("5")
    loop.until(lambda: counter.listed_state(sale.tx_ref) == "Open", message="listed")
    loop.until(lambda: "GBP: paid 0.00 · open 5.00" in tab.totals.text(), message="totals")
    # a timer armed for the next local midnight (a real wait of hours: its interval is forced)
    timer = tab.findChild(QTimer, "counter-midnight")
    assert timer is not None and timer.isActive() and timer.isSingleShot()
    left = local_midnight(date.today() + timedelta(days=1)) - datetime.now().astimezone()
    assert abs(timer.remainingTime() - left.total_seconds() * 1000) < 5000
    monkeypatch.setattr(paydesk.desk.counter, "date", Tomorrow)
    monkeypatch.setattr(paydesk.ui.counter.tab, "date", Tomorrow)
    timer.start(1)
    loop.until(lambda: counter.listed_state(sale.tx_ref) is None, message="a new day's list")
    assert tab.model.rowCount() == 0
    loop.until(lambda: "open 5.00" not in tab.totals.text(), message="a new day's totals")
    # armed again, for the midnight after
    loop.until(lambda: timer.isActive() and timer.remainingTime() > 60_000, message="re-armed")


def test_midnight_is_the_days_first_local_moment_on_a_daylight_saving_day(monkeypatch):
    """Europe/London's autumn change (26 October 2025): midnight is 00:00 BST (+01:00), not
    the offset of the afternoon (GMT)."""
    import time

    monkeypatch.setenv("TZ", "Europe/London")
    time.tzset()
    try:

        class Autumn(date):
            @classmethod
            def today(cls):
                return date(2025, 10, 26)

        monkeypatch.setattr(paydesk.ui.counter.tab, "date", Autumn)
        midnight = paydesk.ui.counter.tab._midnight()
        assert midnight.isoformat() == "2025-10-26T00:00:00+01:00"
    finally:
        monkeypatch.undo()
        time.tzset()
