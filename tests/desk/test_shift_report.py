"""The shift report's words (Qt-free): what the PDF, the dialog and finance's window print."""

from datetime import UTC, datetime
from decimal import Decimal

from paydesk.desk.shift_report import heading, lines
from paydesk.desk.texts import local_time
from paydesk.ledger.counter import CurrencyFigures, Figures, Shift

OPENED = datetime(2026, 11, 26, 8, 0, tzinfo=UTC)
CLOSED = datetime(2026, 11, 26, 17, 30, tzinfo=UTC)


def shift(**over):
    base = dict(id=7, counter="Till 1", profile_id="p1", mode="test", opened_at=OPENED, opened_by="kim")
    base.update(over)
    return Shift(**base)


def test_a_closed_shifts_report_says_everything_counted():
    figures = Figures(
        made=5,
        paid=2,
        open=0,
        failed=1,
        voided=1,
        paid_after_void=1,
        currencies={"GBP": CurrencyFigures(paid=Decimal(1234), voided=Decimal(7), paid_after_void=Decimal(3))},
        first_sale=OPENED,
        last_sale=CLOSED,
    )
    closed = shift(closed_at=CLOSED, closed_by="lee", figures=figures)
    assert heading(closed) == "Shift report — Till 1"
    said = dict(lines(closed, figures, "Corner shop"))
    assert said["Counter"] == "Till 1" and said["Profile"] == "Corner shop"
    assert said["Mode"] == "Test (no real money)"
    assert said["Opened"] == f"{local_time(OPENED)} by kim"
    assert said["Closed"] == f"{local_time(CLOSED)} by lee"
    assert [said[k] for k in ("Sales made", "Paid", "Failed", "Voided", "Paid after void")] == ["5", "2", "1", "1", "1"]
    assert said["GBP paid"] == "GBP 1,234.00" and said["GBP voided"] == "GBP 7.00"
    assert said["GBP paid after void"] == "GBP 3.00" and said["GBP open"] == "GBP 0.00"
    assert said["First sale"] == local_time(OPENED) and said["Last sale"] == local_time(CLOSED)


def test_an_open_empty_shift_says_zero():
    said = dict(lines(shift(), Figures()))
    assert said["Closed"] == "still open" and said["Profile"] == "p1"
    assert said["Sales made"] == "0" and said["First sale"] == "none"
    assert not [label for label in said if label.startswith("GBP")]
