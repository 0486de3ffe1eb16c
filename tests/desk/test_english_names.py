"""English's month and day names in the English window whatever the C library's locale: Qt
sets it from the system (setlocale), and strftime's %b then wrote a French system's "nov."
in an English window. The names come from PayDesk's own table, the numbers from strftime.

This machine has only the C locales (no fr_FR to switch to), so the test holds the outcome
for every month and day rather than switching the locale under it."""

from __future__ import annotations

from datetime import UTC, date, datetime

from paydesk.desk.formats import day_in, english, time_in
from paydesk.desk.texts import local_time
from paydesk.i18n import Words


def test_every_month_and_day_is_named_in_english():
    assert [english(date(2026, m, 1), "%b") for m in range(1, 13)] == [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
    ]  # fmt: skip
    assert english(date(2026, 11, 27), "%A %d %B %Y") == "Friday 27 November 2026"
    assert english(date(2026, 11, 29), "%a %d") == "Sun 29"


def test_the_english_formats_use_them():
    moment = datetime(2026, 2, 3, 12, 0, tzinfo=UTC)
    assert " Feb 2026 " in time_in(moment, Words("en"))
    assert " Feb 2026 " in local_time(moment)
    assert day_in(date(2026, 2, 3), Words("en")) == "Tuesday 03 February 2026"
