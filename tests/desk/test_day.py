"""Days in local time (desk/day.py): the Transactions tab's date ranges, and the end of
day's figures as words, printed and exported."""

import csv
from collections import Counter
from datetime import date, datetime, time
from decimal import Decimal

from paydesk.desk.day import (
    RANGES,
    counts,
    date_range,
    fees_text,
    heading,
    printed_lines,
    refunds_text,
    summary_rows,
    write_day_csv,
)
from paydesk.i18n import Words
from paydesk.ledger import CurrencyTotal, DaySummary


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
    assert date_range(custom, date(2026, 11, 3), date(2026, 11, 5), today=today) == (
        day(date(2026, 11, 3)),
        day(date(2026, 11, 6)),
    )  # both days whole
    assert date_range(RANGES[0], today, today, today=today) == (None, None)  # any time
    assert date_range("This month", today, today, today=date(2026, 11, 22))[0] == day(date(2026, 11, 1))


def a_day() -> DaySummary:
    day = datetime(2026, 11, 3).astimezone()
    return DaySummary(
        day,
        day,
        Counter(success=2, failed=1, refunded=1, pending=1, creating=1),
        [
            CurrencyTotal(
                "GBP",
                paid=2,
                collected=Decimal("21.00"),
                fees=Decimal("0.69"),
                fees_known=2,
                refunded=1,
                refunded_amount=Decimal(5),
            )
        ],
    )


def test_the_days_figures_in_words():
    summary = a_day()
    assert counts(summary) == [
        ("Links made", 6),
        ("Paid", 2),
        ("Paid after void", 0),
        ("Failed", 1),
        ("Cancelled", 0),
        ("Refunded or reversed", 1),
        ("Still open", 2),
        ("Voided at counter", 0),
        ("Not created", 0),
    ]
    total = summary.totals[0]
    assert fees_text(total) == "0.69 (known for 2 of 3)"  # the refunded one's fee not said yet
    assert refunds_text(total) == "5.00 (1 payment)"
    assert refunds_text(CurrencyTotal("GBP", 1, Decimal(1), Decimal(0))) == "0.00"
    assert heading("Corner Shop", "test", date(2026, 11, 3)).startswith(
        "Corner Shop, TEST mode: links made on Tuesday 03 November 2026, local time "
    )
    rows = summary_rows(summary)
    assert ["summary", "", "Links made", "6", "", ""] in rows
    assert ["collected", "GBP", "paid", "2", "21.00", "0.69 (known for 2 of 3)"] in rows
    assert ["net", "GBP", "collected less fees", "", "20.31", ""] in rows
    printed = printed_lines(date(2026, 11, 3), "the title", summary)
    assert printed[:4] == ["End of day Tuesday 03 November 2026", "the title", "", "Links made: 6"]
    assert printed[-1] == (
        "GBP: 2 paid, collected 21.00, fees 0.69 (known for 2 of 3), refunded or reversed 5.00 (1 payment), net 20.31"
    )


def test_the_days_csv_is_put_in_place_whole(tmp_path):
    path, rows = tmp_path / "day.csv", tmp_path / "day.csv.rows"
    rows.write_text("tx_ref,state\r\nSHOP-1,paid\r\n", encoding="utf-8-sig")
    write_day_csv(path, "the title", a_day(), rows)
    assert not rows.exists() and not (tmp_path / "day.csv.part").exists()
    read = list(csv.reader(path.read_text("utf-8-sig").splitlines()))
    assert read[:2] == [
        ["section", "currency", "what", "count", "amount", "fees"],
        ["title", "", "the title", "", "", ""],
    ]
    assert read[-3:] == [[], ["tx_ref", "state"], ["SHOP-1", "paid"]]


def test_in_french_the_day_reads_in_french_and_its_files_stay_as_they_were(tmp_path):
    """The staff reading French (issue 33): what a person reads is French (the day spelled
    out, amounts and counts written the French way); the day's CSV and the export's rows
    keep their English words, plain decimals and ISO dates, whatever the language."""
    from paydesk.desk.export import HEADER, row_of
    from paydesk.i18n import ENGLISH, set_language
    from paydesk.ledger import LinkRecord

    paid = LinkRecord(
        id=1,
        profile_id="p1",
        mode="test",
        tx_ref="SHOP-1",
        amount=Decimal("1250"),
        currency="GBP",
        email="ada@example.com",
        first_name="Ada",
        last_name="Lovelace",
        state="success",
        created_at=datetime(2026, 11, 3, 9, 30).astimezone(),
        updated_at=datetime(2026, 11, 3, 9, 30).astimezone(),
    )
    summary = a_day()
    set_language("fr")
    try:
        total = summary.totals[0]
        assert fees_text(total) == "0,69 (connus pour 2 sur 3)"
        assert heading("Corner Shop", "test", date(2026, 11, 3)).startswith(
            "Corner Shop, mode TEST\u00a0: liens créés le mardi 3 novembre 2026, heure locale "
        )
        assert heading("Corner Shop", "live", date(2026, 11, 3)).startswith("Corner Shop, mode RÉEL\u00a0:")
        printed = printed_lines(date(2026, 11, 3), "le titre", summary)
        assert printed[0] == "Clôture de la journée du mardi 3 novembre 2026"
        assert printed[3] == "Liens créés\u00a0: 6"
        rows = summary_rows(summary)
        assert ["summary", "", "Links made", "6", "", ""] in rows
        assert ["collected", "GBP", "paid", "2", "21.00", "0.69 (known for 2 of 3)"] in rows
        cells = dict(zip(HEADER, row_of(paid), strict=True))
        assert (cells["state"], cells["amount"], cells["made"]) == ("PAID", "1250.00", "here")
        assert heading("Corner Shop", "test", date(2026, 11, 3), Words(ENGLISH)).startswith(
            "Corner Shop, TEST mode: links made on Tuesday 03 November 2026"
        )  # the CSV's title
        assert heading("Corner Shop", "live", date(2026, 11, 3), Words(ENGLISH)).startswith("Corner Shop, LIVE mode:")
    finally:
        set_language(ENGLISH)
