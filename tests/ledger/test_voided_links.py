"""A sale voided at the counter, as the rest of the ledger reads it, on both backends: every
record read carries the void (joined from the counter book by (profile_id, tx_ref) in the
record's own query), the Transactions filters tell voided sales from open ones, and the
day's figures count them apart."""

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from paydesk.ledger import LinkQuery
from paydesk.ledger.records import OPEN
from tests.ledger.test_counter_book import linked, sell, settled
from tests.link_ledgers import book_beside


@pytest.fixture
def book(ledger):
    return book_beside(ledger)


async def sales(ledger, book):
    """S-1 voided and still open, S-2 open, S-3 voided then paid, S-4 paid; L-1 a link made
    outside the counter."""
    shift = await book.open_shift("Till 1", "p1", "test", "ann")
    for ref in ("S-1", "S-2", "S-3"):
        await sell(book, ledger, shift, ref)
    await sell(book, ledger, shift, "S-4", state="success")
    await linked(ledger, "L-1")
    await book.void("p1", "S-1", "ann")
    await book.void("p1", "S-3", "ann")
    return await settled(ledger, "S-3", "success")


async def listed(ledger, query):
    out, after = [], None
    while True:
        page = await ledger.page(query, after=after, limit=2)
        out += page.records
        if not page.more:
            return out
        after = page.end


async def test_every_record_read_carries_its_void(ledger, book):
    paid_after = await sales(ledger, book)
    assert paid_after.voided_at is not None  # the record a check wrote, as it returned it
    voided = {r.tx_ref: r.voided_at for r in await listed(ledger, LinkQuery("p1", "test"))}
    assert set(voided) == {"S-1", "S-2", "S-3", "S-4", "L-1"}
    assert {ref for ref, when in voided.items() if when is not None} == {"S-1", "S-3"}
    sale = await book.sale("p1", "S-1")
    assert voided["S-1"] == sale.voided_at and voided["S-1"].tzinfo is not None
    assert (await ledger.get("p1", "S-1")).voided_at == sale.voided_at
    assert (await ledger.get("p1", "S-2")).voided_at is None
    assert sale.record.voided_at == sale.voided_at  # the book's own read of its link
    backwards = await ledger.last_page(LinkQuery("p1", "test"), limit=10)
    assert {r.tx_ref: r.voided_at for r in backwards.records} == voided
    opened = {r.tx_ref: r.voided_at for r in await ledger.open_records("p1", "test", limit=None)}
    assert opened == {"S-1": voided["S-1"], "S-2": None, "L-1": None}  # still watched


@pytest.mark.parametrize(
    ("states", "voided", "expected"),
    [
        ({"pending"}, False, {"S-2", "L-1"}),  # waiting for payment: not the voided one
        (set(OPEN), True, {"S-1"}),  # voided at the counter, and can still be paid
        ({"success"}, False, {"S-4"}),  # paid
        ({"success"}, True, {"S-3"}),  # paid after its void
        ({"success", "pending"}, None, {"S-1", "S-2", "S-3", "S-4", "L-1"}),
        (set(), True, {"S-1", "S-3"}),
        (set(), False, {"S-2", "S-4", "L-1"}),
    ],
)
async def test_the_filters_tell_voided_sales_from_open_ones(ledger, book, states, voided, expected):
    await sales(ledger, book)
    for sort in ("created", "state", "amount"):
        query = LinkQuery("p1", "test", states=frozenset(states), voided=voided, sort=sort)
        assert {r.tx_ref for r in await listed(ledger, query)} == expected, query
        assert await ledger.count(query) == len(expected)
        assert len(await ledger.anchors(query, 1)) == len(expected)
    searched = LinkQuery("p1", "test", states=frozenset(states), voided=voided, text="S-")
    assert {r.tx_ref for r in await listed(ledger, searched)} == expected - {"L-1"}


async def test_the_day_counts_voided_sales_apart(ledger, book):
    await sales(ledger, book)
    now = datetime.now(UTC)
    day = await ledger.day_summary("p1", "test", now - timedelta(hours=1), now + timedelta(hours=1))
    assert day.states == Counter({"pending": 3, "success": 2})
    assert day.voided == Counter({"pending": 1, "success": 1})
    other = await ledger.day_summary("p1", "live", now - timedelta(hours=1), now + timedelta(hours=1))
    assert other.created == 0 and not +other.voided
