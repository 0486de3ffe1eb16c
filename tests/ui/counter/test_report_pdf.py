"""The shift report on paper: the PDF read back with pdftotext says every line of the report
(what the shift counted, per currency, who opened and closed it, its number), and TEST
across it in test mode. (Closing a shift through the Counter tab is test_close_shift.py;
finance's window over two desks is test_counter_shifts.py.)"""

import subprocess
from datetime import UTC, datetime
from decimal import Decimal

from paydesk.desk.shift_report import lines
from paydesk.ledger.counter import CurrencyFigures, Figures, Shift
from paydesk.ui.counter import report_paper
from paydesk.ui.counter.report_paper import pdf_bytes, report_lines
from tests.helpers import need_system

OPENED = datetime(2026, 11, 26, 8, 0, tzinfo=UTC)
CLOSED = datetime(2026, 11, 26, 17, 30, tzinfo=UTC)
FIGURES = Figures(
    made=14,
    paid=9,
    open=1,
    failed=2,
    voided=1,
    paid_after_void=1,
    currencies={
        "GBP": CurrencyFigures(Decimal("1234"), Decimal("7"), Decimal("12"), Decimal("3")),
        "EUR": CurrencyFigures(paid=Decimal("40")),
    },
    first_sale=datetime(2026, 11, 26, 8, 5, tzinfo=UTC),
    last_sale=datetime(2026, 11, 26, 17, 20, tzinfo=UTC),
)


def shift(mode="test", **changes):
    values = dict(
        id=4217,
        counter="Till 1",
        profile_id="p-1",
        mode=mode,
        opened_at=OPENED,
        opened_by="ada",
        closed_at=CLOSED,
        closed_by="grace",
        figures=FIGURES,
    )
    values.update(changes)
    return Shift(**values)


def pdf_text(tmp_path, data: bytes) -> str:
    pdftotext = need_system("pdftotext", "poppler-utils")
    path = tmp_path / "shift.pdf"
    path.write_bytes(data)
    return subprocess.run(
        [pdftotext, "-layout", str(path), "-"], capture_output=True, text=True, check=True, timeout=60
    ).stdout


def test_the_report_carries_the_shifts_number_after_the_counter():
    said = report_lines(shift(), FIGURES, "Corner Shop")
    assert said[:3] == [("Counter", "Till 1"), ("Shift", "4217"), ("Profile", "Corner Shop")]
    assert said[1:] == [("Shift", "4217")] + lines(shift(), FIGURES, "Corner Shop")[1:]


def test_the_pdf_reads_back_as_the_report(qapp, tmp_path):
    text = pdf_text(tmp_path, pdf_bytes(shift(), FIGURES, "Corner Shop"))
    assert "Shift report — Till 1 — TEST" in text
    rows = {" ".join(line.split()) for line in text.splitlines()}
    for label, value in report_lines(shift(), FIGURES, "Corner Shop"):
        assert f"{label} {value}" in rows, (label, value, text)
    assert "TEST" in text


def test_a_live_shifts_pdf_has_no_test_mark(qapp, tmp_path):
    text = pdf_text(tmp_path, pdf_bytes(shift("live"), FIGURES))
    assert "TEST" not in text and "Mode Live" in " ".join(text.split())


def test_a_closed_shifts_pdf_is_saved_off_the_gui_thread_and_never_over_another(loop, tmp_path):
    """Close shift's own PDF: rendered in a worker thread (what a test can see of it: it
    reads back as the report), named "Shift 4217 — Till 1 — <local close time>.pdf" in
    Documents/Shift reports, and a second one of that name is "… (2).pdf"."""
    assert report_paper.folder().parent == report_paper.documents()
    assert report_paper.folder().name == "Shift reports"
    when = CLOSED.astimezone().strftime("%Y-%m-%d %H-%M")
    odd = shift(counter="Till/1: back")
    assert report_paper.report_name(odd) == f"Shift 4217 — Till-1- back — {when}.pdf"
    first = loop.run(report_paper.save_closed(shift(), FIGURES, "Corner Shop", tmp_path / "r"))
    assert first == tmp_path / "r" / f"Shift 4217 — Till 1 — {when}.pdf"
    second = loop.run(report_paper.save_closed(shift(), FIGURES, "Corner Shop", tmp_path / "r"))
    assert second == tmp_path / "r" / f"Shift 4217 — Till 1 — {when} (2).pdf"
    assert first.read_bytes()[:5] == b"%PDF-" and first.stat().st_size > 0
    text = pdf_text(tmp_path, second.read_bytes())
    rows = {" ".join(line.split()) for line in text.splitlines()}
    for label, value in report_lines(shift(), FIGURES, "Corner Shop"):
        assert f"{label} {value}" in rows, (label, value, text)
