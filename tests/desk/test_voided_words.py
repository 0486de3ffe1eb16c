"""A sale voided at the counter, in the words the desk gives every view (desk/states.py),
the Transactions tab's state filters, an export's row (desk/export.py) and the end of day's
lines (desk/day.py): never WAITING FOR PAYMENT, and never "Still open"."""

from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from paydesk.desk.day import counts, printed_lines, summary_rows
from paydesk.desk.export import HEADER, row_of
from paydesk.desk.receipt import lines
from paydesk.desk.states import STATE_FILTERS, state_words
from paydesk.ledger import DaySummary, LinkRecord

MADE = datetime(2026, 11, 3, 9, 30, tzinfo=UTC)
VOIDED = datetime(2026, 11, 3, 9, 32, 5, 123456, tzinfo=UTC)


def record(state: str, voided: bool, **over) -> LinkRecord:
    fields = dict(
        id=1,
        profile_id="p1",
        mode="test",
        tx_ref="SHOP-1",
        amount=Decimal(7),
        currency="GBP",
        email="till@example.com",
        first_name="Walk-in",
        last_name="customer",
        state=state,
        created_at=MADE,
        updated_at=MADE,
        voided_at=VOIDED if voided else None,
    )
    fields.update(over)
    return LinkRecord(**fields)


@pytest.mark.parametrize(
    ("state", "voided", "words"),
    [
        ("pending", True, "VOIDED AT COUNTER"),
        ("creating", True, "VOIDED AT COUNTER"),
        ("unknown", True, "VOIDED AT COUNTER"),
        ("success", True, "PAID AFTER VOID"),
        ("pending", False, "WAITING FOR PAYMENT"),
        ("success", False, "PAID"),
        # final states say what became of it, voided or not: nobody can pay it any more
        ("cancelled", True, "CANCELLED"),
        ("failed", True, "PAYMENT FAILED"),
        ("refunded", True, "REFUNDED"),
        ("reversed", True, "REVERSED"),
    ],
)
def test_a_voided_sale_reads_as_voided_until_it_is_final(state, voided, words):
    assert state_words(record(state, voided)).words == words


def test_a_receipt_says_paid_whatever_happened_at_the_counter():
    assert dict(lines(record("success", True), "Corner Shop"))["State"] == "PAID"


def test_each_state_filter_lists_the_rows_that_show_its_words():
    rows = [
        record(state, voided)
        for state in (
            "creating",
            "pending",
            "success",
            "failed",
            "cancelled",
            "refunded",
            "reversed",
            "rejected",
            "unknown",
        )
        for voided in (False, True)
    ]
    assert STATE_FILTERS[0] == ("All states", frozenset(), None)
    for words, states, voided in STATE_FILTERS[1:]:
        from paydesk.ledger import LinkQuery

        query = LinkQuery("p1", "test", states=states, voided=voided)
        listed = [r for r in rows if query.admits_state(r)]
        assert listed, words
        assert {state_words(r).words.rstrip("…").capitalize() for r in listed} == {words}, words
    titles = [words for words, _, _ in STATE_FILTERS]
    assert "Voided at counter" in titles and "Paid after void" in titles


def test_an_export_keeps_the_services_word_beside_the_counters():
    assert HEADER[-3:] == ("counter_void", "counter_voided_utc", "by")  # each added last
    cells = dict(zip(HEADER, row_of(record("pending", True)), strict=True))
    assert (cells["state"], cells["service_state"]) == ("VOIDED AT COUNTER", "pending")
    assert (cells["counter_void"], cells["counter_voided_utc"]) == ("voided", "2026-11-03T09:32:05.123456Z")
    paid = dict(zip(HEADER, row_of(record("success", True)), strict=True))
    assert (paid["state"], paid["service_state"], paid["counter_void"]) == (
        "PAID AFTER VOID",
        "success",
        "paid after void",
    )
    refunded = dict(zip(HEADER, row_of(record("refunded", True)), strict=True))
    assert (refunded["state"], refunded["counter_void"]) == ("REFUNDED", "paid after void")
    cancelled = dict(zip(HEADER, row_of(record("cancelled", True)), strict=True))
    assert cancelled["counter_void"] == "voided"
    plain = dict(zip(HEADER, row_of(record("pending", False)), strict=True))
    assert (plain["counter_void"], plain["counter_voided_utc"]) == ("", "")


def test_the_day_counts_voided_sales_on_lines_of_their_own():
    day = datetime(2026, 11, 3).astimezone()
    summary = DaySummary(
        day,
        day,
        Counter(success=3, pending=4, creating=1, cancelled=1),
        [],
        voided=Counter(success=1, pending=2, cancelled=1),
    )
    said = dict(counts(summary))
    assert said["Links made"] == 9
    assert said["Paid"] == 2 and said["Paid after void"] == 1
    assert said["Still open"] == 3 and said["Voided at counter"] == 2
    assert said["Cancelled"] == 1  # final: what became of it
    assert sum(n for label, n in counts(summary) if label != "Links made") == 9
    assert "Voided at counter: 2" in printed_lines(day.date(), "t", summary)
    assert ["summary", "", "Voided at counter", "2", "", ""] in summary_rows(summary)
