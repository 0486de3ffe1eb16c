"""The printable QR sheet of a batch (issue 20 §3): the PDF read back with pdftotext (names,
amounts, references whole and without ligatures, the page count, TEST in test mode) and its
codes read back with zbar off the page as printed (pdftoppm), each the row's checkout URL.
The rows are the book's data classes filled in here: what is tested is the drawing."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from decimal import Decimal

from paydesk.ledger.batch import CREATED, BatchRow
from paydesk.ledger.records import LinkRecord
from paydesk.ui.bulk.qr_sheet import PER_PAGE, label_of, pdf_of
from tests.helpers import decode_qr_file, need_system


def row(number: int, *, paid: bool = False) -> BatchRow:
    now = datetime.now(UTC)
    ref = f"SCH-offi{number:05d}"  # "ff" and "fi": ligatures if drawn in the body's face
    record = LinkRecord(
        id=number,
        profile_id="p",
        mode="test",
        tx_ref=ref,
        amount=Decimal(1000 + number),
        currency="GBP",
        email=f"p{number}@example.com",
        first_name="Parent",
        last_name=f"Number{number}",
        state="pending",
        created_at=now,
        updated_at=now,
        checkout_url=f"https://pay.example/c/PDK-{number:08x}",
    )
    return BatchRow(batch_id=1, number=number, tx_ref=ref, values={}, state=CREATED, record=None if paid else record)


def pdf_text(path) -> str:
    pdftotext = need_system("pdftotext", "poppler-utils")
    return subprocess.run(
        [pdftotext, "-layout", str(path), "-"], capture_output=True, text=True, check=True, timeout=60
    ).stdout


def test_a_sheet_of_codes_with_name_amount_and_reference(loop, tmp_path):
    rows = [row(n) for n in range(2, 2 + PER_PAGE + 1)] + [row(99, paid=True)]
    labels = [label for label in map(label_of, rows) if label is not None]
    assert len(labels) == PER_PAGE + 1  # the row without a link has no code
    pages = []
    data = loop.run(
        pdf_of(labels, "Hillside School — Autumn fees", test=True, on_page=lambda done, of: pages.append((done, of)))
    )
    assert pages == [(1, 2), (2, 2)]
    target = tmp_path / "sheet.pdf"
    target.write_bytes(data)
    text = pdf_text(target)
    words = text.split()
    assert "Page 1 of 2" in text and "Page 2 of 2" in text and "TEST" in words
    for label in labels:
        assert label.reference in words, label.reference
    for n in range(2, 2 + PER_PAGE + 1):
        assert f"Number{n}" in words and f"{1000 + n:,}.00" in words
    assert not any(ch in text for ch in "\ufb00\ufb01\ufb02\ufb03\ufb04")

    pdftoppm = need_system("pdftoppm", "poppler-utils")
    subprocess.run(
        [pdftoppm, "-r", "150", "-png", "-f", "1", "-l", "1", str(target), str(tmp_path / "page")],
        check=True,
        timeout=120,
    )
    [image] = tmp_path.glob("page*.png")
    assert sorted(decode_qr_file(image)) == sorted(label.url for label in labels[:PER_PAGE])


def test_a_live_sheet_says_no_test(loop, tmp_path):
    live = [label_of(row(2))]
    target = tmp_path / "live.pdf"
    target.write_bytes(loop.run(pdf_of(live, "Hillside School — Autumn fees", test=False)))
    text = pdf_text(target)
    assert "TEST" not in text.split() and "Page 1 of 1" in text


def test_a_sheet_in_the_customers_language(loop, tmp_path):
    """Issue 33: the sheet is the customers', in the profile's customer language."""
    from paydesk.i18n import customer

    labels = [label_of(row(n), customer("fr")) for n in (2, 3)]
    target = tmp_path / "feuille.pdf"
    target.write_bytes(loop.run(pdf_of(labels, "Hillside School — Autumn fees", test=True, language="fr")))
    text = " ".join(pdf_text(target).replace("\u202f", " ").replace("\u00a0", " ").split())
    assert "Page 1 sur 1" in text and "Mode TEST : ces codes ne prennent pas d’argent réel" in text
    assert "1 002,00 GBP" in text and "1 003,00 GBP" in text
