"""The card audit log as CSV (desk/export.py): the columns the log shows, newest first, only
what the query selects, and a detail a spreadsheet would run as a formula kept as text."""

import asyncio
import csv
import io
from decimal import Decimal

import pytest

from paydesk.desk.export import AUDIT_HEADER, audit_cells, export_audit, spreadsheet_safe
from paydesk.desk.staff import Staff
from paydesk.ledger.cards import AuditDraft, AuditQuery
from tests.card_ledgers import BACKENDS, open_wallet


@pytest.fixture(params=BACKENDS)
async def cards(request, tmp_path):
    """The audit log of the file's ledger, and of the shop's shared one."""
    async with open_wallet(request.param, request, tmp_path) as wallet:
        yield wallet.cards


def entry(action: str, result: str, detail: str = "", amount: Decimal | None = Decimal(5)) -> AuditDraft:
    return AuditDraft(
        user="kim",
        profile_id="p1",
        profile_name="Shop",
        mode="test",
        action=action,
        result=result,
        card_hash="ch_0001",
        masked="412345******0001",
        amount=amount,
        currency="GBP",
        detail=detail,
    )


def test_text_a_spreadsheet_would_run_stays_text():
    for evil in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"):
        assert spreadsheet_safe(evil) == "'" + evil
    assert spreadsheet_safe("fine = fine") == "fine = fine" and spreadsheet_safe("") == ""


async def test_the_audit_log_exported_newest_first(cards, tmp_path):
    await cards.append_audit(entry("create", "done", amount=None))
    await cards.append_audit(entry("fund", "refused", detail='=HYPERLINK("x")'))
    last = await cards.append_audit(entry("fund", "done"))
    path = await export_audit(cards, AuditQuery("p1", "test"), tmp_path / "audit.csv", staff=Staff())
    text = (await asyncio.to_thread(path.read_bytes)).decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert tuple(rows[0]) == AUDIT_HEADER
    assert [(r[5], r[8]) for r in rows[1:]] == [("fund", "done"), ("fund", "refused"), ("create", "done")]
    assert rows[1] == audit_cells(last)
    assert rows[1][6:8] == ["5.00", "GBP"] and rows[3][6:8] == ["", ""]  # no amount: nothing said
    assert rows[2][9] == '\'=HYPERLINK("x")'
    refused = await export_audit(
        cards, AuditQuery("p1", "test", result="refused"), tmp_path / "refused.csv", staff=Staff()
    )
    assert len(refused.read_text("utf-8").splitlines()) == 2  # the header and the one refused


async def test_the_audit_log_exported_in_french_reads_as_in_english(cards, tmp_path):
    """Machine-readable whatever the staff's language (issue 33 §2): the same file, its
    column names, ISO times and amounts included."""
    from datetime import datetime

    from paydesk.i18n import ENGLISH, set_language

    await cards.append_audit(entry("create", "done", amount=Decimal("1234.5")))
    await cards.append_audit(entry("fund", "refused", detail="Insufficient balance"))
    files = {}
    try:
        for language in (ENGLISH, "fr"):
            set_language(language)
            path = await export_audit(
                cards, AuditQuery("p1", "test"), tmp_path / f"audit-{language}.csv", staff=Staff()
            )
            files[language] = await asyncio.to_thread(path.read_bytes)
    finally:
        set_language(ENGLISH)
    assert files["fr"] == files[ENGLISH]
    rows = list(csv.reader(io.StringIO(files["fr"].decode("utf-8"), newline="")))
    assert tuple(rows[0]) == AUDIT_HEADER
    for row in rows[1:]:
        assert datetime.fromisoformat(row[0]).tzinfo is not None  # ISO 8601, with its offset
    assert [row[6:8] for row in rows[1:]] == [["5.00", "GBP"], ["1234.50", "GBP"]]  # plain decimals
