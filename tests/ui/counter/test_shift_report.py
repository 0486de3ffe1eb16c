"""The shift report on paper: the PDF read back with pdftotext says what the shift counted,
per currency, who opened and closed it, and TEST in test mode; the shift's number is drawn
in the fixed face. (Closing a shift through the Counter tab, and finance's window over two
desks, are in test_close_shift.py and test_counter_shifts.py.)"""

import subprocess
from datetime import UTC, datetime
from decimal import Decimal

from paydesk.desk.shift_report import heading, lines
from paydesk.ledger.counter import CurrencyFigures, Figures, Shift
from paydesk.ui.counter.report import pdf_bytes
from tests.helpers import need_system

OPENED = datetime(2026, 11, 26, 8, 0, tzinfo=UTC)
CLOSED = datetime(2026, 11, 26, 17, 30, tzinfo=UTC)
FIGURES = Figures(made=14, paid=9, open=1, failed=2, voided=1, paid_after_void=1,
                  currencies={"GBP": CurrencyFigures(Decimal("1234"), Decimal("7"),
                                                     Decimal("12"), Decimal("3")),
                              "EUR": CurrencyFigures(paid=Decimal("40"))},
                  first_sale=datetime(2026, 11, 26, 8, 5, tzinfo=UTC),
                  last_sale=datetime(2026, 11, 26, 17, 20, tzinfo=UTC))


def shift(mode="test", **changes):
    values = dict(id=4217, counter="Till 1", profile_id="p-1", mode=mode, opened_at=OPENED,
                  opened_by="ada", closed_at=CLOSED, closed_by="grace", figures=FIGURES)
    values.update(changes)
    return Shift(**values)


def pdf_text(tmp_path, data: bytes) -> str:
    pdftotext = need_system("pdftotext", "poppler-utils")
    path = tmp_path / "shift.pdf"
    path.write_bytes(data)
    return subprocess.run([pdftotext, "-layout", str(path), "-"], capture_output=True,
                          text=True, check=True, timeout=60).stdout


def test_the_lines_say_the_count_and_who(qapp):
    said = dict(lines(shift(), FIGURES, "Corner Shop"))
    assert heading(shift()) == "Shift report — Till 1"
    assert said["Counter"] == "Till 1" and said["Shift"] == "4217"
    assert said["Profile"] == "Corner Shop" and said["Mode"] == "TEST"
    assert said["Opened"].endswith(" by ada") and said["Closed"].endswith(" by grace")
    assert (said["Sales made"], said["Paid"], said["Open"], said["Failed"], said["Voided"],
            said["Paid after void"]) == ("14", "9", "1", "2", "1", "1")
    assert said["GBP paid"] == "GBP 1,234.00" and said["GBP paid after void"] == "GBP 3.00"
    assert said["EUR paid"] == "EUR 40.00" and said["EUR voided"] == "EUR 0.00"
    open_one = dict(lines(shift(closed_at=None, closed_by=None, figures=None), Figures()))
    assert open_one["Closed"] == "not yet: the shift is open"
    assert open_one["Profile"] == "p-1" and open_one["First sale"] == "none"


def test_the_pdf_reads_back_as_the_report(qapp, tmp_path):
    text = pdf_text(tmp_path, pdf_bytes(shift(), FIGURES, "Corner Shop"))
    assert "Shift report — Till 1" in text
    rows = {" ".join(line.split()) for line in text.splitlines()}
    for label, value in lines(shift(), FIGURES, "Corner Shop"):
        assert f"{label} {value}" in rows, (label, value, text)
    assert "TEST" in text


def test_a_live_shifts_pdf_has_no_test_mark(qapp, tmp_path):
    text = pdf_text(tmp_path, pdf_bytes(shift("live"), FIGURES))
    assert "TEST" not in text and "LIVE" in text
