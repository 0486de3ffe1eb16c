"""The ledger on its own: migrations, the link life cycle, the state vocabulary, two windows
at once, a file held busy by another program, cancelled reads, and writes that outlive
their caller."""

import asyncio
import sqlite3
import time
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from paydesk.ledger import DuplicateReference, LedgerError, LinkQuery, SqliteLedger, is_final
from paydesk.ledger.schema import LATEST, migrate
from paydesk.service.models import PaymentLink, PaymentRequest, Transaction, TransactionState
from tests.link_ledgers import make_ledger, same_store
from tests.waiting import until_async


def request(ref, amount=25, currency="GBP", email="a@example.com"):
    return PaymentRequest(
        amount=Decimal(amount),
        currency=currency,
        email=email,
        first_name="Ada",
        last_name="Lovelace",
        tx_ref=ref,
        title="Coffee",
        meta={"till": "2"},
        callback_url="https://shop.example/cb",
    )


def looked_up(ref, raw_state, **over):
    fields = dict(
        tx_ref=ref,
        status=TransactionState.read(raw_state),
        status_raw=raw_state,
        amount=Decimal("1000.00"),
        currency="USD",
        charge=Decimal("14.20"),
        email="x@example.com",
        first_name="X",
        last_name="Y",
        reference="PDK-x1",
        raw={"status": raw_state},
    )
    fields.update(over)
    return Transaction(**fields)


@pytest.fixture
async def sqlite_ledger(tmp_path):
    """For what only a SQLite file has: its file, WAL, a lock held by another program, its
    own schema versions (the shared ledger's are tests/ledger/test_pg_engine.py's)."""
    opened = SqliteLedger(tmp_path / "ledger.sqlite3")
    await opened.opened()
    yield opened
    await opened.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def unopened(request, tmp_path):
    """A ledger of each backend, not yet awaited; the test closes it."""
    return make_ledger(request, tmp_path / "l.sqlite3")


async def test_opens_an_empty_file_at_the_latest_schema(sqlite_ledger, tmp_path):
    assert sqlite_ledger.version == LATEST
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == LATEST
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    assert {
        "links_by_created",
        "links_by_amount",
        "links_by_state",
        "links_by_customer",
        "links_fts",
        "links_open",
    } <= names


async def test_migrates_a_v2_file_that_holds_data(tmp_path):
    """Regression: amounts were text (sorted "1000.00" before "25"), "failed/cancelled" and
    other raw words were stored as states, times in several formats."""
    path = tmp_path / "v2.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, target=2)
    rows = [
        ("R-1", "25", "pending", "2026-01-02T10:00:00+00:00"),
        ("R-2", "1000.00", "failed/cancelled", "2026-01-02T10:00:01.500000+00:00"),
        ("R-3", "7", "success", "2026-01-02T11:00:00+01:00"),
        ("R-4", "1,250.00", "on-hold", "2026-01-03T09:00:00.000001+00:00"),
        ("R-5", "3", "creating", "2026-01-03T09:30:00+00:00"),
    ]
    for ref, amount, state, created in rows:
        db.execute(
            "INSERT INTO links (profile_id, mode, tx_ref, amount, currency, email,"
            " first_name, last_name, state, created_at, updated_at, reference, origin)"
            " VALUES ('p', 'test', ?, ?, 'USD', ?, 'Grace', 'Hopper', ?, ?, ?, ?, 'link')",
            (ref, amount, f"{ref.lower()}@example.com", state, created, created, f"PDK-{ref}"),
        )
    db.close()

    ledger = SqliteLedger(path)
    try:
        await ledger.opened()
        assert ledger.version == LATEST
        got = {r.tx_ref: r for r in (await ledger.page(LinkQuery("p", "test"))).records}
        assert got["R-2"].amount == Decimal("1000.00") and got["R-4"].amount == Decimal("1250.00")
        assert got["R-2"].state == "failed" and got["R-2"].final
        assert got["R-4"].state == "unknown" and got["R-4"].state_raw == "on-hold"
        assert not got["R-4"].final and got["R-5"].state == "creating"
        assert got["R-3"].created_at == datetime(2026, 1, 2, 10, 0, tzinfo=UTC)
        by_amount = await ledger.page(LinkQuery("p", "test", sort="amount", descending=False))
        assert [r.tx_ref for r in by_amount.records] == ["R-5", "R-3", "R-1", "R-2", "R-4"]
        assert [r.tx_ref for r in (await ledger.unsettled())] == ["R-5"]
        found = await ledger.page(LinkQuery("p", "test", text="r-4@exam"))
        assert [r.tx_ref for r in found.records] == ["R-4"]  # the search index was built
    finally:
        await ledger.close()
    with sqlite3.connect(path) as db:
        total = db.execute("SELECT sum(amount_minor), typeof(amount_minor) FROM links").fetchone()
    assert total == (228500, "integer")  # sums as a number, in cents


async def test_refuses_a_newer_schema(tmp_path):
    path = tmp_path / "new.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    ledger = SqliteLedger(path)
    with pytest.raises(LedgerError, match="newer PayDesk"):
        await ledger.opened()
    with pytest.raises(LedgerError, match="newer PayDesk"):
        await ledger.get("p", "x")
    await ledger.close()


async def test_link_life_cycle(ledger):
    record = await ledger.begin_link("p1", "test", request("R-1"))
    assert record.state == "creating" and record.checkout_url is None
    assert record.amount == Decimal(25) and record.meta == {"till": "2"}
    assert [r.tx_ref for r in await ledger.unsettled()] == ["R-1"]
    with pytest.raises(DuplicateReference):
        await ledger.begin_link("p1", "live", request("R-1"))  # one tx_ref per merchant
    done = await ledger.complete_link("p1", PaymentLink("R-1", "http://h/pay/payment/PDK-abc"))
    assert done.state == "pending" and done.reference == "PDK-abc" and await ledger.unsettled() == []
    assert done.request() == request("R-1")
    after, changed = await ledger.record_lookup("p1", "test", looked_up("R-1", "success", amount=Decimal(25)))
    assert changed and after.state == "success" and after.final and after.checked_at
    assert after.fee == Decimal("14.20")
    assert (await ledger.get("p1", "R-1")).raw == {"status": "success"}
    _, changed = await ledger.record_lookup("p1", "test", looked_up("R-1", "success"))
    assert not changed
    await ledger.begin_link("p1", "test", request("R-2"))
    rejected = await ledger.reject_link("p1", "R-2", "Invalid currency")
    assert rejected.state == "rejected" and rejected.error == "Invalid currency" and rejected.final
    assert [r.tx_ref for r in await ledger.recent("p1", "test")] == ["R-2", "R-1"]
    assert await ledger.recent("p1", "live") == []


@pytest.mark.parametrize(
    "raw,state,final",
    [
        ("failed/cancelled", "failed", True),
        ("Failed", "failed", True),
        ("cancelled", "cancelled", True),
        ("refunded", "refunded", True),
        ("pending", "pending", False),
        ("on-hold", "unknown", False),
    ],
)
async def test_one_state_vocabulary_with_the_service(ledger, raw, state, final):
    """Regression: "failed/cancelled" was stored as it came, never final, polled for ever."""
    await ledger.begin_link("p1", "test", request("S-1"))
    await ledger.complete_link("p1", PaymentLink("S-1", "http://h/pay/payment/PDK-s"))
    record, changed = await ledger.record_lookup("p1", "test", looked_up("S-1", raw))
    assert record.state == state and record.final is final is is_final(state)
    assert changed is (state != "pending")
    assert (record.state_raw is None) is (raw.lower() == state)


async def test_a_transaction_made_elsewhere_is_added_on_lookup(ledger):
    record, changed = await ledger.record_lookup("p1", "test", looked_up("WEB-1", "pending"))
    assert changed and record.origin == "lookup" and record.amount == Decimal("1000.00")
    assert await ledger.recent("p1", "test") == []  # not a link made here
    assert [r.tx_ref for r in await ledger.open_records("p1", "test")] == ["WEB-1"]


async def test_a_payment_first_seen_with_no_details_is_filled_in_later(ledger):
    """The family's answer for an unpaid one says no amount, no customer: the details come
    with a later answer, and the search finds the record by them."""
    bare = looked_up(
        "FAM-1",
        "pending",
        amount=None,
        currency=None,
        charge=None,
        email=None,
        first_name=None,
        last_name=None,
        reference=None,
    )
    first, changed = await ledger.record_lookup("p1", "test", bare)
    assert changed and (first.amount, first.currency, first.customer) == (Decimal(0), "", "")
    paid_at = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
    full = looked_up(
        "FAM-1",
        "success",
        amount=Decimal("12.50"),
        currency="GBP",
        email="grace@example.com",
        first_name="Grace",
        last_name="Hopper",
        reference="PDK-fam",
        created_at=paid_at,
        meta={"till": "3"},
    )
    after, changed = await ledger.record_lookup("p1", "test", full)
    assert changed and after.state == "success" and after.fee == Decimal("14.20")
    assert (
        after.amount,
        after.currency,
        after.email,
        after.customer,
        after.reference,
        after.created_at,
        after.meta,
    ) == (Decimal("12.50"), "GBP", "grace@example.com", "Grace Hopper", "PDK-fam", paid_at, {"till": "3"})
    for text in ("hopper", "grace@", "PDK-fam"):
        assert await ledger.count(LinkQuery("p1", "test", text=text)) == 1, text
    # filled in once: a later answer's details do not replace them
    again, _ = await ledger.record_lookup(
        "p1", "test", looked_up("FAM-1", "success", amount=Decimal(99), currency="USD", reference="PDK-fam")
    )
    assert (again.amount, again.currency) == (Decimal("12.50"), "GBP")


async def test_the_services_reference_follows_what_it_says(ledger):
    await ledger.begin_link("p1", "test", request("REF-1"))
    done = await ledger.complete_link("p1", PaymentLink("REF-1", "http://h/pay/payment/PDK-old"))
    assert done.reference == "PDK-old"
    again = await ledger.complete_link("p1", PaymentLink("REF-1", "http://h/pay/payment/PDK-other"))
    assert again.reference == "PDK-old"  # completing again keeps the first
    moved, _ = await ledger.record_lookup("p1", "test", looked_up("REF-1", "pending", reference="PDK-new"))
    assert moved.reference == "PDK-new"
    assert (await ledger.by_reference("p1", "PDK-new")).tx_ref == "REF-1"
    assert await ledger.by_reference("p1", "PDK-old") is None
    assert await ledger.count(LinkQuery("p1", "test", text="PDK-old")) == 0
    assert await ledger.count(LinkQuery("p1", "test", text="pdk-new")) == 1
    kept, _ = await ledger.record_lookup("p1", "test", looked_up("REF-1", "pending", reference=None))
    assert kept.reference == "PDK-new"  # an answer without one changes nothing


async def test_a_lookup_hands_back_the_record_it_wrote(ledger, monkeypatch):
    """A lookup of a record already there reads it once (locked) and writes it once: the
    UPDATE hands back the row it wrote (RETURNING), as the other writes of links do, with
    no second read of the record. Both branches: a state that moves on, and a final state
    kept with what the service now says beside it."""
    await ledger.begin_link("p1", "test", request("RET-1"))
    await ledger.complete_link("p1", PaymentLink("RET-1", "http://h/pay/payment/PDK-ret"))
    said: list[str] = []
    run = ledger._d.run  # every statement of a book goes through its dialect

    def recorded(conn, text, args=(), *, now=None):
        said.append(" ".join(text.split()))
        return run(conn, text, args, now=now)

    monkeypatch.setattr(ledger._d, "run", recorded)
    reads = lambda: [s for s in said if s.startswith("SELECT") and " FROM links " in s]  # noqa: E731
    paid, changed = await ledger.record_lookup("p1", "test", looked_up("RET-1", "success", reference="PDK-new"))
    assert changed and paid.state == "success" and paid.reference == "PDK-new" and paid.raw == {"status": "success"}
    assert len(reads()) == 1, reads()  # the lock, and nothing read back
    said.clear()
    kept, changed = await ledger.record_lookup("p1", "test", looked_up("RET-1", "failed"))
    assert not changed and kept.state == "success" and "'failed'" in kept.error
    assert len(reads()) == 1, reads()
    monkeypatch.undo()
    assert kept == await ledger.get("p1", "RET-1")  # what it handed back is what is stored


async def test_a_record_not_there_cannot_be_completed_rejected_or_noted(ledger):
    for write in (
        ledger.complete_link("p1", PaymentLink("NONE", "http://h/pay/payment/PDK-n")),
        ledger.reject_link("p1", "NONE", "no"),
        ledger.note_error("p1", "NONE", "x"),
    ):
        with pytest.raises(LedgerError, match="NONE is not in the ledger"):
            await write
    await ledger.touch("p1", "NONE")  # nothing to touch: nothing happens
    assert await ledger.get("p1", "NONE") is None


async def test_two_windows_on_one_ledger(ledger):
    """Two PayDesk windows write at once: nothing lost, sequences never handed out twice,
    a lookup's read and write are one transaction (one row, one "changed"). On PostgreSQL:
    two desks (two engines, two desk ids) on one database."""
    first, second = ledger, same_store(ledger)
    day = date(2026, 11, 22)

    async def window(ledger, name):
        claimed = []
        for i in range(100):
            await ledger.begin_link("p1", "test", request(f"{name}-{i}"))
            n = await ledger.peek_sequence(day)
            while not await ledger.claim_sequence(day, n):
                n = await ledger.peek_sequence(day)
            claimed.append(n)
        return claimed

    try:
        a, b = await asyncio.gather(window(first, "A"), window(second, "B"))
        assert sorted(a + b) == list(range(1, 201))
        assert await first.count(LinkQuery("p1", "test")) == 200 == await second.count(LinkQuery("p1", "test"))
        results = await asyncio.gather(
            *(
                ledger.record_lookup("p1", "test", looked_up("WEB", "pending"))
                for ledger in (first, second)
                for _ in range(5)
            )
        )
        assert sum(changed for _, changed in results) == 1
        assert await first.count(LinkQuery("p1", "test", text="WEB")) == 1
    finally:
        await second.close()


async def test_a_start_uses_no_reference_number(ledger):
    day = date(2026, 11, 22)
    assert await ledger.peek_sequence(day) == await ledger.peek_sequence(day) == 1
    assert await ledger.claim_sequence(day, 1) and not await ledger.claim_sequence(day, 1)
    assert await ledger.peek_sequence(day) == 2


async def test_taking_a_number_uses_it_up_in_one_write(ledger):
    """A counter's sale takes its reference's number in one write (``take_sequence``):
    it goes on from a number a proposed reference claimed, and each day counts its own."""
    day = date(2026, 11, 22)
    assert await ledger.take_sequence(day) == 1
    assert await ledger.peek_sequence(day) == 2
    assert await ledger.claim_sequence(day, 2)
    assert await ledger.take_sequence(day) == 3
    assert await ledger.take_sequence(date(2026, 11, 23)) == 1


async def test_two_windows_taking_numbers_at_once_never_share_one(ledger):
    """On PostgreSQL: two desks (two engines) on one database."""
    first, second = ledger, same_store(ledger)
    day = date(2026, 11, 22)

    async def window(ledger):
        return [await ledger.take_sequence(day) for _ in range(50)]

    try:
        a, b = await asyncio.gather(window(first), window(second))
        assert sorted(a + b) == list(range(1, 101))
    finally:
        await second.close()


async def test_a_busy_ledger_delays_saving_without_freezing_or_failing(sqlite_ledger, tmp_path):
    """Regression: a lock held past 5 s froze the window and raised LedgerBusy in a slot."""
    ledger = sqlite_ledger
    heard = []
    ledger.on_busy(heard.append)
    other = sqlite3.connect(tmp_path / "ledger.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    stalls = []

    async def ticker():
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.01)
            now = time.monotonic()
            stalls.append(now - last)
            last = now

    tick = asyncio.create_task(ticker())
    saving = asyncio.create_task(ledger.begin_link("p1", "test", request("BUSY-1")))
    await until_async(lambda: heard == [True], 5, "the ledger to say it is busy", every=0.02)
    assert ledger.busy and not saving.done()
    assert await ledger.get("p1", "BUSY-1") is None  # reads go on meanwhile
    await asyncio.sleep(1.5)
    assert not saving.done()
    other.execute("COMMIT")
    other.close()
    record = await asyncio.wait_for(saving, 5)
    assert record.state == "creating" and await ledger.get("p1", "BUSY-1") is not None
    await asyncio.sleep(0.05)
    assert heard == [True, False] and not ledger.busy
    tick.cancel()
    assert len(stalls) > 20  # the loop went on ticking all the while saving waited


async def test_a_cancelled_read_is_interrupted(sqlite_ledger):
    """A query superseded by a newer one stops at once and frees its reader."""
    ledger = sqlite_ledger
    slow = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000) SELECT count(*) FROM n"
    engine = ledger._engine  # the engine's own behaviour, below the repository
    tasks = [
        asyncio.create_task(engine.read(lambda db: db.execute(slow).fetchone())) for _ in range(2)
    ]  # both readers busy
    await asyncio.sleep(0.3)
    for task in tasks:
        task.cancel()
    for task in tasks:
        with pytest.raises(asyncio.CancelledError):
            await task
    await asyncio.wait_for(ledger.get("p1", "nothing"), 5)  # a reader is free again


async def test_a_write_outlives_a_caller_that_stopped_waiting(ledger):
    task = asyncio.create_task(ledger.begin_link("p1", "test", request("KEEP-1")))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(100):
        if await ledger.get("p1", "KEEP-1"):
            break
        await asyncio.sleep(0.02)
    assert (await ledger.get("p1", "KEEP-1")).state == "creating"


async def test_closing_finishes_queued_writes(unopened):
    ledger = unopened
    writes = [asyncio.create_task(ledger.begin_link("p1", "test", request(f"Q-{i}"))) for i in range(20)]
    await asyncio.sleep(0)
    await ledger.close()
    # each write landed before close() returned; its caller hears of it a few turns of the
    # loop later (the answer crosses from the writer's thread), which may be after close()'s
    # own caller on a loaded machine (a fresh clone's run saw it on PostgreSQL)
    done, waiting = await asyncio.wait(writes, timeout=5)
    assert not waiting and all(w.exception() is None for w in done)
    again = same_store(ledger)
    assert await again.count(LinkQuery("p1", "test")) == 20
    await again.close()


async def test_a_days_summary(ledger):
    day_start = datetime(2026, 11, 22, 0, 0, tzinfo=UTC)
    plan = [
        ("D-1", "success", 10, "GBP"),
        ("D-2", "success", 15, "GBP"),
        ("D-3", "failed", 7, "GBP"),
        ("D-4", "success", 20, "USD"),
        ("D-5", "pending", 9, "USD"),
    ]
    for ref, state, amount, currency in plan:
        await ledger.begin_link("p1", "test", request(ref, amount, currency))
        await ledger.complete_link("p1", PaymentLink(ref, f"http://h/pay/payment/PDK-{ref}"))
        await ledger.record_lookup(
            "p1", "test", looked_up(ref, state, amount=Decimal(amount), currency=currency, charge=Decimal("0.34"))
        )
    from datetime import timedelta

    now = datetime.now(UTC)
    summary = await ledger.day_summary("p1", "test", now - timedelta(hours=1), now + timedelta(hours=1))
    assert summary.created == 5 and summary.states["success"] == 3 and summary.states["pending"] == 1
    totals = {t.currency: (t.paid, t.collected, t.fees) for t in summary.totals}
    assert totals == {"GBP": (2, Decimal("25.00"), Decimal("0.68")), "USD": (1, Decimal("20.00"), Decimal("0.34"))}
    empty = await ledger.day_summary("p1", "test", day_start - timedelta(days=400), day_start - timedelta(days=399))
    assert empty.created == 0 and empty.totals == []


async def test_opening_waits_for_another_window_holding_the_file(tmp_path):
    """Regression (CI): two windows starting at once: the second's open failed with
    "database is locked" while the first was setting up the same file."""
    path = tmp_path / "l.sqlite3"
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another program in the middle of its own set-up
    other.execute("CREATE TABLE holding (x)")
    ledger = SqliteLedger(path)
    try:
        await asyncio.sleep(1.0)  # four times the busy timeout
        other.execute("ROLLBACK")
        await asyncio.wait_for(ledger.begin_link("p1", "test", request("OPENED-1")), 10)
        assert (await ledger.get("p1", "OPENED-1")).state == "creating"
    finally:
        other.close()
        await ledger.close()
