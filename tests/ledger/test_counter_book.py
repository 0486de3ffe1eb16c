"""The counters' book on both backends (a desk's SQLite file, a shop's PostgreSQL): shifts
opened once and closed once, sale numbers per counter, what a sale is derived from its link's
state and its void, decisions after a void, figures counted in SQL and frozen at close, the
lists newest first, and every table append-only."""

import asyncio
from decimal import Decimal

import pytest

from paydesk.ledger import LedgerError, SqliteLedger
from paydesk.ledger.counter import (
    FAILED,
    KEEP,
    OPEN,
    PAID,
    PAID_AFTER_VOID,
    REFUND,
    VOIDED,
    CurrencyFigures,
    Figures,
    SalePaid,
    SaleQuery,
    ShiftClosed,
)
from paydesk.ledger.schema import LATEST
from paydesk.service.models import PaymentLink, PaymentRequest, Transaction, TransactionState
from tests.link_ledgers import below, book_beside, same_store

TABLES = ("counter_shifts", "counter_shift_closes", "counter_sales", "counter_voids", "counter_decisions")


@pytest.fixture
def book(ledger):
    return book_beside(ledger)


def request(ref, amount="7", currency="GBP"):
    return PaymentRequest(
        amount=Decimal(amount),
        currency=currency,
        email="shop@example.com",
        first_name="Walk-in",
        last_name="customer",
        tx_ref=ref,
        title="Sale",
    )


async def linked(ledger, ref, amount="7", currency="GBP", profile="p1", mode="test"):
    """The sale's link written and sent (pending), as the counter does after add_sale."""
    await ledger.begin_link(profile, mode, request(ref, amount, currency))
    return await ledger.complete_link(profile, PaymentLink(ref, f"http://h/pay/{ref}"))


async def settled(ledger, ref, state, profile="p1", mode="test"):
    tx = Transaction(tx_ref=ref, status=TransactionState.read(state), status_raw=state, raw={"status": state})
    record, _ = await ledger.record_lookup(profile, mode, tx)
    return record


async def sell(book, ledger, shift, ref, amount="7", currency="GBP", state=None):
    await book.add_sale(shift.id, ref, "ann")
    await linked(ledger, ref, amount, currency, shift.profile_id, shift.mode)
    if state is not None:
        await settled(ledger, ref, state, shift.profile_id, shift.mode)
    return await book.sale(shift.profile_id, ref)


async def test_the_book_is_in_the_schema(ledger, book):
    if isinstance(ledger, SqliteLedger):  # the file's v8
        assert ledger.version == LATEST >= 8
        names = await ledger._engine.read(
            lambda db: [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()]
        )
    else:  # the shared ledger's migration 4
        from paydesk.ledger.postgres.schema import KNOWN

        assert ledger._engine.version == KNOWN >= 4
        names = await ledger._engine.read(
            lambda conn: [
                r["tablename"]
                for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
            ]
        )
    assert set(TABLES) <= set(names)


async def test_a_counter_has_one_open_shift_per_profile_and_mode(book):
    assert await book.current_shift("Till 1", "p1", "test") is None
    first = await book.open_shift("Till 1", "p1", "test", "ann")
    assert (first.counter, first.profile_id, first.mode, first.opened_by) == ("Till 1", "p1", "test", "ann")
    assert not first.closed and first.figures is None and first.opened_at.tzinfo is not None
    assert await book.open_shift("Till 1", "p1", "test", "bob") == first
    assert await book.current_shift("Till 1", "p1", "test") == first
    assert await book.shift(first.id) == first
    assert await book.shift(first.id + 100) is None
    live = await book.open_shift("Till 1", "p1", "live", "ann")
    other = await book.open_shift("Till 2", "p1", "test", "ann")
    assert len({first.id, live.id, other.id}) == 3


async def test_numbers_run_per_counter_across_its_shifts(book, ledger):
    shift = await book.open_shift("Till 1", "p1", "test", "ann")
    assert await book.next_number("Till 1") == 1
    assert await book.next_number("Till 1") == 1  # asking uses nothing up
    one = await book.add_sale(shift.id, "S-1", "ann")
    two = await book.add_sale(shift.id, "S-2", "ann")
    assert (one.number, two.number) == (1, 2)
    assert (one.counter, one.shift_id, one.profile_id, one.mode, one.made_by) == (
        "Till 1",
        shift.id,
        "p1",
        "test",
        "ann",
    )
    assert one.kind == FAILED and one.record is None  # no link yet: "not sent"
    await book.close_shift(shift.id, "ann")
    later = await book.open_shift("Till 1", "p1", "test", "ann")
    assert later.id != shift.id
    assert (await book.add_sale(later.id, "S-3", "ann")).number == 3
    other = await book.open_shift("Till 2", "p1", "test", "ann")
    assert (await book.add_sale(other.id, "S-4", "ann")).number == 1
    with pytest.raises(LedgerError):
        await book.add_sale(later.id, "S-1", "ann")  # one sale per reference


async def test_the_kind_follows_the_link(book, ledger):
    shift = await book.open_shift("Till 1", "p1", "test", "ann")
    await book.add_sale(shift.id, "S-1", "ann")
    assert (await book.sale("p1", "S-1")).kind == FAILED
    await ledger.begin_link("p1", "test", request("S-1"))
    sale = await book.sale("p1", "S-1")
    assert sale.kind == OPEN and sale.record.state == "creating"
    await ledger.complete_link("p1", PaymentLink("S-1", "http://h/pay/S-1"))
    assert (await book.sale("p1", "S-1")).kind == OPEN
    await settled(ledger, "S-1", "success")
    sale = await book.sale("p1", "S-1")
    assert sale.kind == PAID and sale.record.state == "success"
    assert sale.record.amount == Decimal("7") and sale.key == ("p1", "S-1")
    await settled(ledger, "S-1", "refunded")
    assert (await book.sale("p1", "S-1")).kind == PAID  # paid at the counter, given back later
    failed = await sell(book, ledger, shift, "S-2", state="failed")
    assert failed.kind == FAILED
    await book.add_sale(shift.id, "S-3", "ann")
    await ledger.begin_link("p1", "test", request("S-3"))
    await ledger.reject_link("p1", "S-3", "refused")
    assert (await book.sale("p1", "S-3")).kind == FAILED
    assert await book.sale("p1", "nope") is None


async def test_void_then_paid_needs_a_decision_which_stands(book, ledger):
    shift = await book.open_shift("Till 1", "p1", "test", "ann")
    await sell(book, ledger, shift, "S-1")
    voided = await book.void("p1", "S-1", "bob")
    assert voided.kind == VOIDED and voided.voided and voided.voided_by == "bob"
    assert await book.void("p1", "S-1", "ann") == voided  # voided once
    with pytest.raises(LedgerError):
        await book.decide("p1", "S-1", KEEP, "ann")  # not paid: nothing to decide
    await settled(ledger, "S-1", "success")
    late = await book.sale("p1", "S-1")
    assert late.kind == PAID_AFTER_VOID and late.needs_decision
    assert [s.tx_ref for s in await book.sales(SaleQuery(undecided=True))] == ["S-1"]
    kept = await book.decide("p1", "S-1", KEEP, "cat")
    assert (kept.decision, kept.decided_by, kept.needs_decision) == (KEEP, "cat", False)
    assert kept.kind == PAID_AFTER_VOID and kept.decided_at is not None
    assert (await book.decide("p1", "S-1", REFUND, "dan")).decision == KEEP  # it stands
    assert await book.sales(SaleQuery(undecided=True)) == []
    with pytest.raises(ValueError):
        await book.decide("p1", "S-1", "shrug", "ann")
    with pytest.raises(LedgerError):
        await book.void("p1", "not-a-sale", "ann")
    with pytest.raises(LedgerError):
        await book.decide("p1", "not-a-sale", KEEP, "ann")


@pytest.mark.parametrize("state", ["success", "refunded", "reversed"])
async def test_a_paid_sale_is_not_voided(book, ledger, state):
    """The staff's screen may lag the ledger: a void of a sale the ledger holds paid is
    refused in its transaction, and nothing is written (no false "paid after void")."""
    shift = await book.open_shift("Till 1", "p1", "test", "ann")
    await sell(book, ledger, shift, "S-1", state=state)
    with pytest.raises(SalePaid) as refused:
        await book.void("p1", "S-1", "bob")
    assert isinstance(refused.value, LedgerError)
    assert refused.value.sale.kind == PAID and refused.value.sale.tx_ref == "S-1"
    sale = await book.sale("p1", "S-1")
    assert sale.kind == PAID and not sale.voided and sale.voided_by is None
    assert await book.sales(SaleQuery(kinds=(VOIDED, PAID_AFTER_VOID))) == []


async def test_finances_list_leaves_decided_payments_out_in_sql(book, ledger):
    """Open sales and undecided payments after void, newest first, paged in SQL: a page is
    never emptied by settled rows dropped afterwards, so the next page is found."""
    shift = await book.open_shift("Till 1", "p1", "test", "ann")
    await sell(book, ledger, shift, "OPEN-1")  # the oldest: still open
    for n in range(3):  # newer: paid after void, then decided
        await sell(book, ledger, shift, f"KEPT-{n}")
        await book.void("p1", f"KEPT-{n}", "bob")
        await settled(ledger, f"KEPT-{n}", "success")
        await book.decide("p1", f"KEPT-{n}", KEEP, "cat")
    await sell(book, ledger, shift, "LATE")
    await book.void("p1", "LATE", "bob")
    await settled(ledger, "LATE", "success")  # undecided
    query = SaleQuery(profile_id="p1", mode="test", kinds=(OPEN, PAID_AFTER_VOID), hide_decided=True)
    first = await book.sales(query, limit=1)
    assert [s.tx_ref for s in first] == ["LATE"]
    assert [s.tx_ref for s in await book.sales(query, before=first[-1].id, limit=1)] == ["OPEN-1"]
    assert [s.tx_ref for s in await book.sales(query)] == ["LATE", "OPEN-1"]
    assert len(await book.sales(SaleQuery(kinds=(OPEN, PAID_AFTER_VOID)))) == 5


async def test_figures_are_counted_per_kind_and_currency(book, ledger):
    shift = await book.open_shift("Till 1", "p1", "test", "ann")
    assert await book.figures(SaleQuery(shift_id=shift.id)) == Figures()
    first = await sell(book, ledger, shift, "S-1", "7", "GBP", "success")
    await sell(book, ledger, shift, "S-2", "2", "GBP", "success")
    await sell(book, ledger, shift, "S-3", "1000", "NGN")  # open
    await sell(book, ledger, shift, "S-4", "3", "GBP", "failed")
    await sell(book, ledger, shift, "S-5", "4", "GBP")
    await book.void("p1", "S-5", "ann")
    await sell(book, ledger, shift, "S-6", "5", "GBP")
    await book.void("p1", "S-6", "ann")
    last = await sell(book, ledger, shift, "S-6b", "6", "GBP")
    await book.void("p1", "S-6b", "ann")
    await settled(ledger, "S-6b", "success")
    await book.add_sale(shift.id, "S-7", "ann")  # never sent
    counted = await book.figures(SaleQuery(shift_id=shift.id))
    assert (counted.made, counted.paid, counted.open, counted.failed, counted.voided, counted.paid_after_void) == (
        8,
        2,
        1,
        2,
        2,
        1,
    )
    assert counted.currencies == {
        "GBP": CurrencyFigures(paid=Decimal("9"), open=Decimal(0), voided=Decimal("9"), paid_after_void=Decimal("6")),
        "NGN": CurrencyFigures(open=Decimal("1000")),
    }
    assert counted.first_sale == first.made_at
    assert counted.last_sale >= last.made_at
    assert Figures.from_json(counted.to_json()) == counted
    # a query narrows the count as it narrows the list
    assert (await book.figures(SaleQuery(shift_id=shift.id, kinds=(PAID,)))).made == 2
    assert (await book.figures(SaleQuery(counter="Till 2"))).made == 0
    assert (await book.figures(SaleQuery(profile_id="p1", mode="live"))).made == 0


async def test_closing_freezes_the_figures_and_the_next_shift_starts_at_zero(book, ledger):
    shift = await book.open_shift("Till 1", "p1", "test", "ann")
    await sell(book, ledger, shift, "S-1", "7", "GBP", "success")
    await sell(book, ledger, shift, "S-2", "2", "GBP")  # still open at close
    closed = await book.close_shift(shift.id, "bob")
    assert closed.closed and closed.closed_by == "bob" and closed.closed_at is not None
    frozen = closed.figures
    assert (frozen.made, frozen.paid, frozen.open) == (2, 1, 1)
    assert frozen.currencies["GBP"].paid == Decimal("7")
    assert await book.current_shift("Till 1", "p1", "test") is None
    with pytest.raises(ShiftClosed):
        await book.close_shift(shift.id, "ann")
    with pytest.raises(ShiftClosed):
        await book.add_sale(shift.id, "S-3", "ann")
    with pytest.raises(LedgerError):
        await book.close_shift(shift.id + 100, "ann")
    await settled(ledger, "S-2", "success")  # a payment after the close
    assert (await book.shift(shift.id)).figures == frozen  # the frozen count stands
    assert (await book.figures(SaleQuery(shift_id=shift.id))).paid == 2  # the sales move on
    following = await book.open_shift("Till 1", "p1", "test", "ann")
    assert following.id != shift.id and not following.closed
    assert await book.figures(SaleQuery(shift_id=following.id)) == Figures()
    assert (await book.close_shift(following.id, "ann")).figures == Figures()


async def test_sales_are_listed_newest_first_by_seeking(book, ledger):
    till1 = await book.open_shift("Till 1", "p1", "test", "ann")
    till2 = await book.open_shift("Till 2", "p1", "test", "ann")
    live = await book.open_shift("Till 1", "p2", "live", "ann")
    for n in range(5):
        await sell(book, ledger, till1, f"A-{n}", state="success" if n % 2 else None)
    await sell(book, ledger, till2, "B-0")
    await sell(book, ledger, live, "C-0")
    every = await book.sales(SaleQuery())
    assert [s.tx_ref for s in every] == ["C-0", "B-0", "A-4", "A-3", "A-2", "A-1", "A-0"]
    mine = SaleQuery(profile_id="p1", mode="test", counter="Till 1")
    page = await book.sales(mine, limit=2)
    assert [s.tx_ref for s in page] == ["A-4", "A-3"]
    rest = await book.sales(mine, before=page[-1].id, limit=10)
    assert [s.tx_ref for s in rest] == ["A-2", "A-1", "A-0"]
    assert [s.tx_ref for s in await book.sales(SaleQuery(kinds=(PAID,)))] == ["A-3", "A-1"]
    assert [s.tx_ref for s in await book.sales(SaleQuery(shift_id=till2.id))] == ["B-0"]
    assert [s.tx_ref for s in await book.sales(SaleQuery(since=every[0].made_at))] == ["C-0"]
    assert all(s.record is not None for s in every)
    with pytest.raises(ValueError):
        await book.sales(SaleQuery(kinds=("lost",)))


async def test_shifts_are_listed_newest_first(book):
    a = await book.open_shift("Till 1", "p1", "test", "ann")
    await book.close_shift(a.id, "ann")
    b = await book.open_shift("Till 1", "p1", "test", "ann")
    c = await book.open_shift("Till 2", "p1", "test", "ann")
    d = await book.open_shift("Till 1", "p1", "live", "ann")
    assert [s.id for s in await book.shifts()] == [d.id, c.id, b.id, a.id]
    assert [s.id for s in await book.shifts("p1", "test")] == [c.id, b.id, a.id]
    assert [s.id for s in await book.shifts("p1", "test", "Till 1")] == [b.id, a.id]
    assert [s.id for s in await book.shifts(before=c.id, limit=1)] == [b.id]
    assert (await book.shifts(counter="Till 1", mode="test"))[-1].closed


async def test_every_table_is_append_only(book, ledger):
    shift = await book.open_shift("Till 1", "p1", "test", "ann")
    await sell(book, ledger, shift, "S-1", state=None)
    await book.void("p1", "S-1", "ann")
    await settled(ledger, "S-1", "success")
    await book.decide("p1", "S-1", KEEP, "ann")
    await book.close_shift(shift.id, "ann")
    refused = (Exception,)
    for table in TABLES:
        column = (
            "shift_id"
            if table == "counter_shift_closes"
            else ("id" if table in ("counter_shifts", "counter_sales") else "tx_ref")
        )
        value = str(shift.id) if column != "tx_ref" else "'S-1'"
        for sql in (f"UPDATE {table} SET {column} = {column}", f"DELETE FROM {table} WHERE {column} = {value}"):
            with pytest.raises(refused, match="append-only"):
                await below(ledger, sql)
        if not isinstance(ledger, SqliteLedger):
            with pytest.raises(refused, match="append-only"):
                await below(ledger, f"TRUNCATE {table} CASCADE")
    again = await book.sale("p1", "S-1")
    assert again.decision == KEEP and again.voided
    assert (await book.shift(shift.id)).closed


async def test_two_handles_on_one_store_open_one_shift_and_number_apart(ledger, book):
    other_ledger = same_store(ledger)
    await other_ledger.opened()
    try:
        other = book_beside(other_ledger)
        shifts = await asyncio.gather(
            *[(book if n % 2 else other).open_shift("Till 1", "p1", "test", f"u{n}") for n in range(6)]
        )
        assert len({s.id for s in shifts}) == 1
        sales = await asyncio.gather(
            *[(book if n % 2 else other).add_sale(shifts[0].id, f"S-{n}", "ann") for n in range(12)]
        )
        assert sorted(s.number for s in sales) == list(range(1, 13))
        # a close racing a sale: the sale lands in the frozen count, or is refused
        results = await asyncio.gather(
            other.close_shift(shifts[0].id, "ann"), book.add_sale(shifts[0].id, "S-late", "ann"), return_exceptions=True
        )
        closed = results[0]
        made = 13 if not isinstance(results[1], BaseException) else 12
        if made == 12:
            assert isinstance(results[1], ShiftClosed)
        assert closed.figures.made == made
    finally:
        await other_ledger.close()


async def test_every_write_on_the_shared_ledger_is_an_event(ledger, book):
    if isinstance(ledger, SqliteLedger):
        pytest.skip("events are the shared ledger's")

    async def news():
        rows = await ledger._engine.read(
            lambda conn: conn.execute(
                "SELECT kind, profile_id, mode, key FROM events WHERE kind IN ('sale', 'shift') ORDER BY id"
            ).fetchall()
        )
        return [(r["kind"], r["profile_id"], r["mode"], r["key"]) for r in rows]

    shift = await book.open_shift("Till 1", "p1", "test", "ann")
    await book.open_shift("Till 1", "p1", "test", "ann")  # the same shift: nothing written
    await book.add_sale(shift.id, "S-1", "ann")
    await linked(ledger, "S-1")
    await book.void("p1", "S-1", "ann")
    await book.void("p1", "S-1", "ann")  # voided before: nothing written
    await settled(ledger, "S-1", "success")
    await book.decide("p1", "S-1", REFUND, "ann")
    await book.close_shift(shift.id, "ann")
    key = str(shift.id)
    assert await news() == [
        ("shift", "p1", "test", key),
        ("sale", "p1", "test", "S-1"),
        ("sale", "p1", "test", "S-1"),
        ("sale", "p1", "test", "S-1"),
        ("shift", "p1", "test", key),
    ]


KIND_LISTS = [
    (OPEN,),
    (VOIDED,),
    (PAID_AFTER_VOID,),
    (OPEN, PAID_AFTER_VOID),
    (OPEN, VOIDED, PAID_AFTER_VOID),
    (PAID,),
    (FAILED,),
    (PAID, OPEN),
    (),
]


async def test_the_lists_by_kind_hold_exactly_those_sales(book, ledger):
    shift = await book.open_shift("Till 1", "p1", "test", "ann")
    elsewhere = await book.open_shift("Till 1", "p2", "test", "ann")
    await sell(book, ledger, shift, "open")
    await sell(book, ledger, shift, "paid", state="success")
    await sell(book, ledger, shift, "failed", state="failed")
    await book.add_sale(shift.id, "unsent", "ann")
    await sell(book, ledger, shift, "void-open")  # voided, its link still open
    await book.void("p1", "void-open", "ann")
    await sell(book, ledger, shift, "void-failed", state="failed")
    await book.void("p1", "void-failed", "ann")
    for ref in ("late", "late-kept"):
        await sell(book, ledger, shift, ref)
        await book.void("p1", ref, "ann")
        await settled(ledger, ref, "success")
    await book.decide("p1", "late-kept", KEEP, "ann")
    await sell(book, ledger, elsewhere, "p2-open")
    await sell(book, ledger, elsewhere, "p2-void")
    await book.void("p2", "p2-void", "ann")
    every = await book.sales(SaleQuery())
    assert len(every) == len({s.id for s in every}) == 10
    for profile in (None, "p1"):
        mine = [s for s in every if profile is None or s.profile_id == profile]
        for kinds in KIND_LISTS:
            for undecided in (False, True):
                query = SaleQuery(
                    profile_id=profile, mode="test" if profile else None, kinds=kinds, undecided=undecided
                )
                expected = [s for s in mine if (not kinds or s.kind in kinds) and (not undecided or s.needs_decision)]
                found = await book.sales(query)
                assert [s.tx_ref for s in found] == [s.tx_ref for s in expected], query
                assert (await book.figures(query)).made == len(expected), query
                if len(expected) > 1:  # paged the same, through the same seek
                    first = await book.sales(query, limit=1)
                    rest = await book.sales(query, before=first[0].id)
                    assert first + rest == found, query


async def test_the_file_answers_every_list_by_seeking(ledger, book):
    """Today's list, the red banner's, finance's open sales, a shift's: never a walk over
    every sale (SCAN), whatever the file's size."""
    if not isinstance(ledger, SqliteLedger):
        pytest.skip("SQLite's plans (PostgreSQL's planner has statistics)")
    from datetime import UTC, datetime

    from paydesk.ledger.counter_sql import figures_sql, sales_sql
    from paydesk.ledger.records import stamp
    from paydesk.ledger.sqlite.search import SELECT

    today = datetime.now(UTC).replace(hour=0)
    queries = [
        SaleQuery("p1", "test", counter="Till 1", since=today),
        SaleQuery("p1", "test", undecided=True),
        SaleQuery("p1", "test", kinds=(OPEN,)),
        SaleQuery("p1", "test", kinds=(OPEN, PAID_AFTER_VOID)),
        SaleQuery(shift_id=3),
        SaleQuery("p1", "test", counter="Till 1"),
        SaleQuery("p1", "test"),
    ]
    for query in queries:
        for sql, args in (
            sales_sql(query, 50, 100, mark="?", when=stamp, link_columns=SELECT),
            figures_sql(query, mark="?", when=stamp),
        ):
            steps = await ledger._engine.read(
                lambda db, sql=sql, args=args: [r["detail"] for r in db.execute("EXPLAIN QUERY PLAN " + sql, args)]
            )
            scans = [s for s in steps if s.startswith("SCAN") and s != "SCAN f"]
            assert not scans, (query, steps)
