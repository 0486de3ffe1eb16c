"""The Transactions tab's date ranges, in local days (ui/transactions/filters.py)."""

from datetime import date, datetime, time

from paydesk.ui.transactions.filters import RANGES, date_range


def test_every_date_range_in_local_days():
    def day(d):
        return datetime.combine(d, time.min).astimezone()

    today = date(2027, 1, 1)  # yesterday is in last year, this month is one day long
    expect = {
        "Today": (day(date(2027, 1, 1)), day(date(2027, 1, 2))),
        "Yesterday": (day(date(2026, 12, 31)), day(date(2027, 1, 1))),
        "Last 7 days": (day(date(2026, 12, 26)), day(date(2027, 1, 2))),
        "This month": (day(date(2027, 1, 1)), day(date(2027, 1, 2))),
    }
    for name, bounds in expect.items():
        assert date_range(name, today, today, today=today) == bounds, name
    custom = next(r for r in RANGES if r.startswith("Custom"))
    assert date_range(custom, date(2026, 11, 3), date(2026, 11, 5), today=today) == \
        (day(date(2026, 11, 3)), day(date(2026, 11, 6)))  # both days whole
    assert date_range(RANGES[0], today, today, today=today) == (None, None)  # any time
    assert date_range("This month", today, today, today=date(2026, 11, 22))[0] == \
        day(date(2026, 11, 1))
