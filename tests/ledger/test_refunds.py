"""Refunds and reversals in the ledger (issue 15 §3.6): a paid record may still be refunded
or reversed, and is then no longer counted as collected; no other final state moves; the
paid ones are found again a page at a time for 30 days; the day's figures say what was
given back and what is left."""

import sqlite3
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from paydesk.ledger import SqliteLedger
from paydesk.ledger.records import may_follow
from paydesk.service.models import PaymentLink, PaymentRequest, Transaction, TransactionState
from tests.link_ledgers import set_paid_at


def request(ref, amount=25):
    return PaymentRequest(
        amount=Decimal(amount),
        currency="GBP",
        email="a@example.com",
        first_name="Ada",
        last_name="Lovelace",
        tx_ref=ref,
    )


def said(ref, word, amount=25, charge="0.55"):
    return Transaction(
        tx_ref=ref,
        status=TransactionState.read(word),
        status_raw=word,
        amount=Decimal(amount),
        currency="GBP",
        charge=Decimal(charge) if charge else None,
        raw={"status": word},
    )


async def link(ledger, ref, word=None, amount=25, mode="test", profile="p1"):
    await ledger.begin_link(profile, mode, request(ref, amount))
    record = await ledger.complete_link(profile, PaymentLink(ref, f"http://h/pay/payment/PDK-{ref}"))
    if word:
        record, _ = await ledger.record_lookup(profile, mode, said(ref, word, amount))
    return record


@pytest.mark.parametrize("back", ["refunded", "reversed"])
async def test_a_paid_record_refunded_at_the_service_is_no_longer_paid(ledger, back):
    """Regression: a paid link refunded at the service stayed PAID, counted as collected."""
    await link(ledger, "R-1", "success")
    after, changed = await ledger.record_lookup("p1", "test", said("R-1", back))
    assert changed and after.state == back and after.final
    day = datetime.now(UTC) - timedelta(hours=1)
    summary = await ledger.day_summary("p1", "test", day, day + timedelta(hours=2))
    assert summary.states[back] == 1 and summary.states["success"] == 0
    (gbp,) = summary.totals
    assert (gbp.paid, gbp.collected, gbp.refunded, gbp.refunded_amount) == (0, Decimal(0), 1, Decimal(25))


@pytest.mark.parametrize(
    "before,after,moves",
    [
        ("success", "refunded", True),
        ("success", "reversed", True),
        ("pending", "refunded", True),  # paid and refunded between two checks
        ("pending", "success", True),
        ("unknown", "success", True),
        ("success", "pending", False),
        ("success", "failed", False),
        ("failed", "success", False),
        ("cancelled", "refunded", False),
        ("refunded", "success", False),
        ("reversed", "refunded", False),
    ],
)
async def test_a_final_state_moves_only_from_paid_to_given_back(ledger, before, after, moves):
    assert may_follow(before, after) is moves
    await link(ledger, "F-1", before)
    record, changed = await ledger.record_lookup("p1", "test", said("F-1", after))
    assert changed is moves
    assert record.state == (after if moves else before)
    if not moves:  # what the service said is noted beside it, and the check is counted
        assert after in record.error and record.checked_at


async def test_paid_records_are_found_a_page_at_a_time_by_when_they_were_paid(ledger):
    for i in range(7):
        await link(ledger, f"P-{i}", "success", amount=10 + i)
    await link(ledger, "OPEN", None)
    await link(ledger, "LIVE", "success", mode="live")
    await link(ledger, "OTHER", "success", profile="p2")
    await link(ledger, "GONE", "success")
    await ledger.record_lookup("p1", "test", said("GONE", "refunded"))
    # one paid long ago: no longer read again
    await set_paid_at(ledger, "P-0", datetime(2020, 1, 1, tzinfo=UTC))
    since = datetime.now(UTC) - timedelta(days=30)
    seen, after = [], None
    while True:
        page = await ledger.paid_since(since, "p1", "test", after=after, limit=4)
        seen += [r.tx_ref for r in page.records]
        if not page.more:
            break
        after = page.end
    assert seen == [f"P-{i}" for i in range(1, 7)]
    assert await ledger.count_paid_since(since, "p1", "test") == 6
    everyone = await ledger.paid_since(since, limit=100)
    assert {r.tx_ref for r in everyone.records} == {f"P-{i}" for i in range(1, 7)} | {"LIVE", "OTHER"}
    # only those not read for a while
    await ledger.record_lookup("p1", "test", said("P-3", "success", amount=13))
    stale = await ledger.paid_since(
        since, "p1", "test", limit=100, checked_before=datetime.now(UTC) - timedelta(seconds=0.5)
    )
    assert "P-3" not in [r.tx_ref for r in stale.records]


async def test_sqlite_finds_paid_records_along_their_own_index(tmp_path):
    ledger = SqliteLedger(tmp_path / "ledger.sqlite3")
    await ledger.opened()
    await ledger.close()
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as db:
        plan = " ".join(
            r[3]
            for r in db.execute(
                "EXPLAIN QUERY PLAN SELECT id FROM links INDEXED BY links_paid WHERE state = 'success'"
                " AND updated_at >= ? ORDER BY updated_at, id",
                ("2026",),
            )
        )
    assert "links_paid" in plan and "SCAN links" not in plan.replace("USING INDEX", "")


async def test_the_days_figures_say_refunds_and_the_net(ledger):
    for ref, amount, word in (
        ("D-1", 10, "success"),
        ("D-2", 20, "success"),
        ("D-3", 30, "success"),
        ("D-4", 40, "pending"),
    ):
        await link(ledger, ref, word, amount)
    await ledger.record_lookup("p1", "test", said("D-3", "refunded", 30))
    day = datetime.now(UTC) - timedelta(hours=1)
    summary = await ledger.day_summary("p1", "test", day, day + timedelta(hours=2))
    (gbp,) = summary.totals
    assert (gbp.paid, gbp.collected) == (2, Decimal(30))
    assert (gbp.refunded, gbp.refunded_amount) == (1, Decimal(30))
    assert gbp.fees == Decimal("1.65") and gbp.fees_known == gbp.fees_of == 3
    assert gbp.net == Decimal("28.35")  # collected less every fee charged
