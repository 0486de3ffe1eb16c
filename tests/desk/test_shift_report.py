"""The shift report's words (Qt-free): what the PDF, the dialog and finance's window print."""

from datetime import UTC, datetime
from decimal import Decimal

from paydesk.desk.formats import time_in
from paydesk.desk.shift_report import heading, lines
from paydesk.desk.texts import local_time
from paydesk.i18n import ENGLISH, set_language
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


def test_a_report_in_french_says_its_words_amounts_counts_and_times_the_french_way():
    """The staff's language chosen French: the labels in French, the amounts, counts and
    times as French writes them (Babel's conventions)."""
    figures = Figures(
        made=1500,
        paid=1200,
        currencies={"EUR": CurrencyFigures(paid=Decimal("1234.5"))},
        first_sale=OPENED,
        last_sale=CLOSED,
    )
    try:
        words = set_language("fr")
        closed = shift(closed_at=CLOSED, closed_by="lee", figures=figures)
        assert heading(closed) == "Rapport de caisse — Till 1"
        said = dict(lines(closed, figures, "Corner shop"))
        assert said["Caisse"] == "Till 1" and said["Profil"] == "Corner shop"
        assert said["Mode"] == "Test (pas d’argent réel)"
        assert said["Ouverture"] == f"{time_in(OPENED, words)} par kim"
        assert said["Clôture"] == f"{time_in(CLOSED, words)} par lee"
        assert said["Ventes réalisées"] == "1\u202f500" and said["Payées"] == "1\u202f200"
        assert said["Encaissé (EUR)"] == "1\u202f234,50\u00a0EUR"
        assert said["Première vente"] == time_in(OPENED, words) and "nov. 2026" in said["Première vente"]
        assert "Sales made" not in said and "Paid" not in said
        assert dict(lines(shift(), Figures()))["Clôture"] == "session en cours"
    finally:
        set_language(ENGLISH)
