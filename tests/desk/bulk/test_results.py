"""A batch's results file (issue 20 §3): the rows as loaded plus what became of each, in CSV
and in XLSX, read back as Excel would: formulas kept as text (an apostrophe in CSV, text
cells in XLSX), references and leading zeros as typed, every state in words; one `email`
column, the customer's address, and whether and when the link was e-mailed in `emailed`
and `emailed_at` (issue 28 §1)."""

from __future__ import annotations

import asyncio
import csv
import io
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from openpyxl import load_workbook

from paydesk.desk.bulk.results import RESULTS, cells, columns, write_results
from paydesk.desk.bulk.sheet import FIELDS
from paydesk.ledger.batch import CREATED, NOT_SENT, PAID, REFUSED, SENT, SKIPPED, WAITING, Batch, BatchRow
from paydesk.ledger.records import LinkRecord

NOW = datetime.now(UTC)
MAILED = datetime(2025, 3, 14, 9, 26, 53, 120000, tzinfo=UTC)
BATCH = Batch(
    id=7,
    profile_id="p",
    mode="test",
    name="Autumn fees: [term 1]",
    file_name="fees.xlsx",
    made_at=NOW,
    made_by="finance",
    rows=5,
    policy="skip",
    prefix="SCH-K7QM4X",
)
FORMULA = '=HYPERLINK("http://evil.example","Pay")'


def record(ref, state, **over) -> LinkRecord:
    return LinkRecord(
        **{
            "id": 1,
            "profile_id": "p",
            "mode": "test",
            "tx_ref": ref,
            "amount": Decimal(25),
            "currency": "GBP",
            "email": "a@example.com",
            "first_name": "Ann",
            "last_name": "Lee",
            "state": state,
            "created_at": NOW,
            "updated_at": NOW,
            **over,
        }
    )


def values(**over) -> dict[str, str]:
    return {
        "amount": "25",
        "currency": "GBP",
        "email": "a@example.com",
        "first_name": "Ann",
        "last_name": "Lee",
        "title": "Fees",
        "meta.pupil_no": "000123",
        **over,
    }


ROWS = [
    BatchRow(
        7,
        2,
        "SCH-K7QM4X-00002",
        values(),
        CREATED,
        record("SCH-K7QM4X-00002", "pending", reference="PDK-1", checkout_url="https://pay.example/c/PDK-1"),
        SENT,
        None,
        MAILED,
    ),
    BatchRow(
        7,
        3,
        "00417",
        values(tx_ref="00417"),
        PAID,
        record("00417", "success", reference="PDK-2", checkout_url="https://pay.example/c/2"),
        NOT_SENT,
        "The server refused the address: 550 No such mailbox",
        MAILED + timedelta(minutes=5),
    ),
    BatchRow(
        7,
        4,
        "SCH-K7QM4X-00004",
        values(first_name=FORMULA),
        REFUSED,
        record("SCH-K7QM4X-00004", "rejected", error="-1 is not a valid amount"),
    ),
    BatchRow(7, 5, "SCH-K7QM4X-00005", values(email="not an address"), SKIPPED),
    BatchRow(7, 6, "SCH-K7QM4X-00006", values(title="+44 fees"), WAITING),
]


def expected(row: dict[str, str]) -> None:
    assert row["row"] == "2" and row["result"] == "created"
    assert row["link_tx_ref"] == "SCH-K7QM4X-00002" and row["service_reference"] == "PDK-1"
    assert row["checkout_url"] == "https://pay.example/c/PDK-1"
    assert row["email"] == "a@example.com"  # the customer's, as loaded
    assert (row["emailed"], row["emailed_at"], row["email_error"]) == ("yes", "2025-03-14T09:26:53+00:00", "")
    assert datetime.fromisoformat(row["emailed_at"]) == MAILED.replace(microsecond=0)
    assert row["meta.pupil_no"] == "000123" and row["service_state"] == "pending"


def test_the_header_is_the_fields_the_extra_fields_then_the_results():
    header = columns(ROWS)
    assert header == ["row", *FIELDS, "meta.pupil_no", *RESULTS]
    assert len(set(header)) == len(header)  # each name once: a reader finds its column
    assert header.count("email") == 1
    assert header[-3:] == ["emailed", "emailed_at", "email_error"]


def test_emailed_says_yes_failed_or_no_and_when():
    header = columns(ROWS)
    said = {r.number: dict(zip(header, cells(r, header))) for r in ROWS}
    assert [said[n]["email"] for n in (2, 3, 4)] == ["a@example.com"] * 3
    assert [said[n]["emailed"] for n in (2, 3, 4, 5, 6)] == ["yes", "failed", "no", "no", "no"]
    assert said[3]["emailed_at"] == "2025-03-14T09:31:53+00:00"  # when the try failed
    assert said[3]["email_error"] == "The server refused the address: 550 No such mailbox"
    assert said[4]["emailed_at"] == said[4]["email_error"] == ""
    # a time read back in another zone is said in UTC, as the file's other times
    paris = BatchRow(7, 2, "R", values(), CREATED, None, SENT, None, MAILED.astimezone(timezone(timedelta(hours=1))))
    assert dict(zip(header, cells(paris, header)))["emailed_at"] == "2025-03-14T09:26:53+00:00"


def test_results_as_csv_keep_text_as_text(tmp_path):
    target = write_results(tmp_path / "results.csv", BATCH, ROWS)
    assert target.read_bytes().startswith(b"\xef\xbb\xbf")  # a BOM: Excel reads UTF-8
    with open(target, encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    expected(rows[0])
    assert rows[1]["tx_ref"] == "00417" and rows[1]["result"] == "paid"
    assert rows[1]["email"] == "a@example.com" and rows[1]["emailed"] == "failed"
    assert "550" in rows[1]["email_error"]
    assert rows[3]["email"] == "not an address" and rows[3]["emailed"] == "no"
    assert rows[2]["first_name"] == "'" + FORMULA and rows[2]["result"] == "refused by the service"
    assert rows[2]["error"] == "'-1 is not a valid amount"
    assert rows[3]["result"] == "skipped: the row had problems" and rows[3]["link_tx_ref"] == ""
    assert rows[4]["title"] == "'+44 fees" and rows[4]["result"] == "not sent"
    assert not list(tmp_path.glob("*.part"))


def test_results_as_xlsx_are_text_cells(tmp_path):
    target = write_results(tmp_path / "results.xlsx", BATCH, ROWS)
    sheet = load_workbook(target).worksheets[0]
    assert sheet.title == "Autumn fees term 1"
    header = [c.value for c in sheet[1]]
    rows = [dict(zip(header, (c.value or "" for c in line))) for line in sheet.iter_rows(min_row=2)]
    expected(rows[0])
    cells = {h: c for h, c in zip(header, sheet[4])}  # the refused row
    assert cells["first_name"].value == FORMULA and cells["first_name"].data_type == "s"
    assert cells["amount"].value == "25" and cells["amount"].data_type == "s"
    assert rows[1]["meta.pupil_no"] == "000123" and rows[1]["tx_ref"] == "00417"


def test_a_failed_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "results.csv"
    target.write_text("before")
    with pytest.raises(AttributeError):
        write_results(target, BATCH, [*ROWS, None])
    assert target.read_text() == "before" and not list(tmp_path.glob("*.part"))


async def test_a_batch_saved_from_the_book(desk, add_profile, tmp_path):
    from paydesk.desk.bulk.results import save_results
    from paydesk.service.models import PaymentRequest

    profile = await add_profile()
    rows = [(n, "", values(last_name=f"Lee {n}"), n == 3) for n in (2, 3, 4)]
    batch = await desk.batches.add_batch(profile.id, "test", "Fees", "fees.csv", "skip", "me", rows, txref_prefix="SCH")
    made = await desk.links.create(
        PaymentRequest(
            amount=Decimal(25),
            currency="GBP",
            email="a@example.com",
            first_name="Ann",
            last_name="Lee 2",
            tx_ref=batch.ref(2),
            title="Fees",
        )
    )
    await desk.batches.note_email(batch.id, 2, True)
    assert await save_results(desk.batches, batch, tmp_path / "out.csv") == 3
    text = (await asyncio.to_thread((tmp_path / "out.csv").read_bytes)).decode("utf-8-sig")
    out = list(csv.DictReader(io.StringIO(text, newline="")))
    assert [r["result"] for r in out] == ["created", "skipped: the row had problems", "not sent"]
    assert out[0]["checkout_url"] == made.checkout_url and out[0]["link_tx_ref"] == batch.ref(2)
    assert out[0]["service_reference"] == made.reference and out[2]["link_tx_ref"] == batch.ref(4)
    assert [r["email"] for r in out] == ["a@example.com"] * 3
    assert [r["emailed"] for r in out] == ["yes", "no", "no"]
    emailed_at = datetime.fromisoformat(out[0]["emailed_at"])
    assert emailed_at.utcoffset() == timedelta(0)
    assert abs(datetime.now(UTC) - emailed_at) < timedelta(minutes=1)
