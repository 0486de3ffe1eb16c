"""The notification inbox on both backends (a desk's SQLite file, a shop's PostgreSQL): a body
believed once, duplicates kept and never re-read, forgeries never kept (traced apart:
test_refused.py), decisions, lists newest first with their filters, two receivers at once,
and how a record's state was learned."""

import asyncio
import sqlite3
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from paydesk.ledger import LedgerError, LinkQuery, SqliteLedger
from paydesk.ledger.inbox import (
    APPLIED,
    BAD_SIGNATURE,
    DUPLICATE,
    PENDING,
    STALE,
    UNKNOWN_REFERENCE,
    InboxQuery,
    body_hash,
)
from paydesk.ledger.schema import LATEST, migrate
from paydesk.service.models import Transaction, TransactionState
from tests.link_ledgers import inbox_beside, same_store

SIGNED = {"Content-Type": "application/json", "Verif-Hash": "ab12"}


def body(ref, event="payment.completed"):
    return b'{"event":"%s","data":{"tx_ref":"%s","status":"successful"}}' % (event.encode(), ref.encode())


async def received(inbox, ref, *, profile_id="p1", mode="test", event="payment.completed", raw=None):
    entry, reread = await inbox.receive(
        raw if raw is not None else body(ref, event),
        SIGNED,
        "203.0.113.7",
        profile_id=profile_id,
        mode=mode,
        tx_ref=ref,
        event=event,
    )
    return entry, reread


async def forged(inbox, ref):
    """A body no key verifies: refused, and traced apart (never an inbox entry)."""
    return await inbox.refuse(body(ref), "203.0.113.66")


def looked_up(ref, raw_state):
    return Transaction(
        tx_ref=ref,
        status=TransactionState.read(raw_state),
        status_raw=raw_state,
        amount=Decimal("10.00"),
        currency="USD",
        email="x@example.com",
        first_name="X",
        last_name="Y",
        raw={"status": raw_state},
    )


async def test_a_first_verified_body_is_kept_pending_and_to_be_re_read(inbox):
    entry, reread = await received(inbox, "PDK-1")
    assert reread is True
    assert entry.verdict == PENDING and entry.verified
    assert entry.body == body("PDK-1") and entry.body_hash == body_hash(body("PDK-1"))
    assert entry.headers == {"content-type": "application/json", "verif-hash": "ab12"}
    assert entry.remote == "203.0.113.7"
    assert (entry.profile_id, entry.mode, entry.tx_ref, entry.event) == ("p1", "test", "PDK-1", "payment.completed")
    assert entry.received_at.tzinfo is not None
    assert entry.duplicate_of is None and entry.decided_at is None
    assert await inbox.get(entry.id) == entry
    assert await inbox.get(entry.id + 1000) is None


async def test_the_same_body_again_is_a_duplicate_of_the_original(inbox):
    first, _ = await received(inbox, "PDK-1")
    again, reread = await received(inbox, "PDK-1")
    assert reread is False
    assert again.verdict == DUPLICATE and again.duplicate_of == first.id
    assert again.decided_at is not None
    assert (await inbox.get(first.id)).verdict == PENDING  # the original is untouched
    other, reread = await received(inbox, "PDK-2")  # another body: its own original
    assert reread is True and other.verdict == PENDING


async def test_a_forgery_is_never_an_entry_nor_re_read(inbox):
    await forged(inbox, "PDK-1")
    assert await inbox.count(InboxQuery()) == 0 and await inbox.pending() == []
    # the same bytes, verified later, are the original: a forgery is no arrival
    real, reread = await received(inbox, "PDK-1")
    assert reread is True and real.verdict == PENDING
    # and a forgery of a body already believed is no duplicate either
    await forged(inbox, "PDK-1")
    assert [e.id for e in await inbox.page(InboxQuery())] == [real.id]
    assert [e.id for e in await inbox.pending()] == [real.id]


async def test_decide_writes_the_verdict_once(inbox):
    entry, _ = await received(inbox, "PDK-1", mode=None)
    done = await inbox.decide(entry.id, APPLIED, "the service says PAID", mode="live", tx_ref="PDK-1b")
    assert (done.verdict, done.detail, done.mode, done.tx_ref) == (APPLIED, "the service says PAID", "live", "PDK-1b")
    assert done.profile_id == "p1"  # not given: kept
    assert done.decided_at is not None
    again = await inbox.decide(entry.id, STALE, "later", mode="test")
    assert again == done  # a decided entry keeps its verdict (and all the rest)
    duplicate, _ = await received(inbox, "PDK-1", mode=None)
    assert (await inbox.decide(duplicate.id, APPLIED, "no")).verdict == DUPLICATE
    with pytest.raises(LedgerError):
        await inbox.decide(entry.id + 1000, APPLIED, "none such")
    with pytest.raises(ValueError):
        await inbox.decide(entry.id, PENDING, "not a decision")


async def test_pending_lists_the_originals_not_re_read_oldest_first(inbox):
    a, _ = await received(inbox, "PDK-a")
    b, _ = await received(inbox, "PDK-b")
    await received(inbox, "PDK-a")  # a duplicate: not pending
    await forged(inbox, "PDK-x")
    c, _ = await received(inbox, "PDK-c")
    await inbox.decide(b.id, UNKNOWN_REFERENCE, "no record has it")
    assert [e.id for e in await inbox.pending()] == [a.id, c.id]
    assert [e.id for e in await inbox.pending(limit=1)] == [a.id]


async def _some(inbox):
    """Eight entries of two merchants, both modes, three events and every kind of arrival."""
    made = []
    for ref, profile, mode, event in (
        ("PDK-1", "p1", "test", "payment.completed"),
        ("PDK-2", "p1", "live", "payment.failed"),
        ("ABC_3", "p2", "test", "payment.completed"),
        ("PDK-4", "p2", "live", "card.created"),
    ):
        made.append((await received(inbox, ref, profile_id=profile, mode=mode, event=event))[0])
    made.append((await received(inbox, "PDK-1"))[0])  # duplicate
    await forged(inbox, "PDK-9")  # refused: not among them
    made.append((await received(inbox, "PDK-9", profile_id="p1", mode="live"))[0])
    made.append((await received(inbox, "A%C_5", profile_id="p2"))[0])
    made.append((await received(inbox, "pdk-8", profile_id="p1", mode="live"))[0])
    await inbox.decide(made[1].id, APPLIED, "the service says failed")
    return made


async def _ids(inbox, query, limit=100):
    return [e.id for e in await inbox.page(query, limit=limit)]


async def test_page_lists_newest_first_with_every_filter(inbox):
    made = await _some(inbox)
    ids = [e.id for e in made]
    newest_first = ids[::-1]
    assert await _ids(inbox, InboxQuery()) == newest_first
    assert await _ids(inbox, InboxQuery(verdict=PENDING)) == [ids[7], ids[6], ids[5], ids[3], ids[2], ids[0]]
    assert await _ids(inbox, InboxQuery(verdict=DUPLICATE)) == [ids[4]]
    assert await _ids(inbox, InboxQuery(verdict=BAD_SIGNATURE)) == []
    assert await _ids(inbox, InboxQuery(verdict=APPLIED)) == [ids[1]]
    assert await _ids(inbox, InboxQuery(profile_id="p2")) == [ids[6], ids[3], ids[2]]
    assert await _ids(inbox, InboxQuery(mode="live")) == [ids[7], ids[5], ids[3], ids[1]]
    assert await _ids(inbox, InboxQuery(profile_id="p1", mode="test")) == [ids[4], ids[0]]
    # text: a part of the reference or the event, case ignored, taken literally
    assert await _ids(inbox, InboxQuery(text="pdk-")) == [ids[7], ids[5], ids[4], ids[3], ids[1], ids[0]]
    assert await _ids(inbox, InboxQuery(text="CARD.")) == [ids[3]]
    assert await _ids(inbox, InboxQuery(text="failed")) == [ids[1]]
    assert await _ids(inbox, InboxQuery(text="A%C")) == [ids[6]]
    assert await _ids(inbox, InboxQuery(text="C_")) == [ids[6], ids[2]]
    assert await _ids(inbox, InboxQuery(text="x_y")) == []
    since = made[6].received_at
    assert await _ids(inbox, InboxQuery(since=since)) == [ids[7], ids[6]]
    assert await _ids(inbox, InboxQuery(verdict=PENDING, profile_id="p1", mode="live", text="8", since=since)) == [
        ids[7]
    ]
    with pytest.raises(ValueError):
        await inbox.page(InboxQuery(verdict="nonsense"))


async def test_pages_follow_each_other_by_keyset(inbox):
    made = await _some(inbox)
    for query, limit in ((InboxQuery(), 3), (InboxQuery(verdict=PENDING), 2), (InboxQuery(text="pdk"), 4)):
        whole = await _ids(inbox, query)
        walked, before = [], None
        while True:
            page = await inbox.page(query, before=before, limit=limit)
            if not page:
                break
            assert len(page) <= limit
            walked += [e.id for e in page]
            before = page[-1].id
        assert walked == whole
        assert await inbox.count(query) == len(whole)
    assert [e.id for e in await inbox.page(InboxQuery(), before=made[2].id)] == [made[1].id, made[0].id]


async def test_count_follows_the_filters(inbox):
    assert await inbox.count(InboxQuery()) == 0
    await _some(inbox)
    assert await inbox.count(InboxQuery()) == 8
    assert await inbox.count(InboxQuery(verdict=PENDING)) == 6
    assert await inbox.count(InboxQuery(profile_id="p1", mode="live")) == 3
    assert await inbox.count(InboxQuery(text="PDK")) == 6


async def test_last_received_ignores_duplicates_and_bad_signatures(inbox):
    assert await inbox.last_received() is None
    await forged(inbox, "PDK-x")
    assert await inbox.last_received() is None
    first, _ = await received(inbox, "PDK-1", profile_id="p1")
    assert await inbox.last_received() == first.received_at
    second, _ = await received(inbox, "PDK-2", profile_id="p2")
    await received(inbox, "PDK-1", profile_id="p1")  # duplicate
    await forged(inbox, "PDK-3")
    assert await inbox.last_received() == second.received_at
    assert await inbox.last_received("p1") == first.received_at
    assert await inbox.last_received("p2") == second.received_at
    assert await inbox.last_received("p3") is None
    await inbox.decide(second.id, APPLIED, "paid")  # decided: still the newest arrival
    assert await inbox.last_received() == second.received_at


async def test_last_received_of_a_profile_and_mode(inbox):
    """What spaces a link's checks (desk/notified.py): a notification of its own mode."""
    test, _ = await received(inbox, "PDK-1", profile_id="p1", mode="test")
    assert await inbox.last_received("p1", mode="test") == test.received_at
    assert await inbox.last_received("p1", mode="live") is None
    live, _ = await received(inbox, "PDK-2", profile_id="p1", mode="live")
    assert await inbox.last_received("p1", mode="live") == live.received_at
    assert await inbox.last_received("p1", mode="test") == test.received_at
    assert await inbox.last_received("p2", mode="test") is None


@pytest.mark.parametrize(
    "raw",
    [
        b'{"tx_ref":"PDK-1","link":"https:\\/\\/pay.example\\/x","name":"Jos\\u00e9"}',
        b'\xff\xfe{"not": "utf-8 \xe9"}\x00\r\n  ',
        b"",
    ],
)
async def test_bodies_are_kept_byte_for_byte(inbox, raw):
    entry, _ = await received(inbox, "PDK-1", raw=raw)
    assert entry.body == raw
    assert (await inbox.get(entry.id)).body == raw
    assert (await inbox.page(InboxQuery()))[0].body == raw
    assert (await inbox.pending())[0].body == raw
    assert entry.body_hash == body_hash(raw)


async def test_two_receivers_at_once_keep_one_original(ledger, inbox):
    """Two handles on the same store (a second window on the file, or a second desk with an
    engine of its own on the database) receive the same body at the same moment."""
    other_ledger = same_store(ledger)
    await other_ledger.opened()
    try:
        other = inbox_beside(other_ledger)
        for n in range(5):
            raw = body(f"PDK-{n}")
            results = await asyncio.gather(
                *[
                    box.receive(raw, SIGNED, "198.51.100.1", profile_id="p1", mode="test", tx_ref=f"PDK-{n}")
                    for box in (inbox, other, inbox, other)
                ]
            )
            originals = [entry for entry, reread in results if reread]
            assert len(originals) == 1
            assert originals[0].verdict == PENDING
            duplicates = [entry for entry, reread in results if not reread]
            assert [e.verdict for e in duplicates] == [DUPLICATE] * 3
            assert {e.duplicate_of for e in duplicates} == {originals[0].id}
        assert len(await inbox.pending()) == 5
    finally:
        await other_ledger.close()


async def test_learned_by_moves_with_the_state_and_only_then(ledger):
    made, _ = await ledger.record_lookup("p1", "test", looked_up("PDK-1", "pending"))
    assert made.learned_by == "check"  # added by a check
    paid, changed = await ledger.record_lookup("p1", "test", looked_up("PDK-1", "success"), learned_by="notification")
    assert changed and paid.learned_by == "notification"
    # a later check that changes nothing keeps how the state was learned
    again, changed = await ledger.record_lookup("p1", "test", looked_up("PDK-1", "success"))
    assert not changed and again.learned_by == "notification"
    # a final state kept against what the service now says: not learned either
    kept, changed = await ledger.record_lookup("p1", "test", looked_up("PDK-1", "failed"))
    assert not changed and kept.learned_by == "notification"
    refunded, changed = await ledger.record_lookup("p1", "test", looked_up("PDK-1", "refunded"))
    assert changed and refunded.learned_by == "check"
    # every reader fills it in
    assert (await ledger.get("p1", "PDK-1")).learned_by == "check"
    page = await ledger.page(LinkQuery(profile_id="p1", mode="test"))
    assert [r.learned_by for r in page.records] == ["check"]
    by_notification, _ = await ledger.record_lookup(
        "p1", "test", looked_up("PDK-2", "pending"), learned_by="notification"
    )
    assert by_notification.learned_by == "notification"
    assert [r.learned_by for r in await ledger.open_records("p1")] == ["notification"]


async def test_a_link_made_here_has_learned_nothing_yet(ledger):
    from paydesk.service.models import PaymentRequest

    made = await ledger.begin_link(
        "p1",
        "test",
        PaymentRequest(
            amount=Decimal(5), currency="GBP", email="a@example.com", first_name="A", last_name="B", tx_ref="PDK-L"
        ),
    )
    assert made.learned_by is None
    same, changed = await ledger.record_lookup("p1", "test", looked_up("PDK-L", "pending"))
    assert changed and same.learned_by == "check"  # creating -> pending: learned by a check


async def test_the_migration_from_v6_keeps_the_links(tmp_path):
    path = tmp_path / "ledger.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    assert migrate(db, target=6) == 6
    db.execute(
        "INSERT INTO links (profile_id, mode, tx_ref, amount_minor, currency, email,"
        " first_name, last_name, state, created_at, updated_at) VALUES ('p1', 'test',"
        " 'OLD-1', 1000, 'USD', 'o@example.com', 'O', 'L', 'success',"
        " '2026-01-02T03:04:05.000000Z', '2026-01-02T03:04:05.000000Z')"
    )
    db.close()
    ledger = SqliteLedger(path)
    await ledger.opened()
    try:
        assert ledger.version == LATEST >= 7
        old = await ledger.get("p1", "OLD-1")
        assert old is not None and old.state == "success" and old.learned_by is None
        assert old.amount == Decimal("10.00")
        inbox = inbox_beside(ledger)
        entry, reread = await received(inbox, "OLD-1")
        assert reread and entry.received_at > datetime(2026, 1, 1, tzinfo=UTC)
    finally:
        await ledger.close()


# -- the shared ledger: every inbox write is an event the other desks hear of -------------


@pytest.fixture
async def shared(pg_url):
    from tests.link_ledgers import shared_ledger

    ledger = shared_ledger(pg_url, "desk-a")
    await ledger.opened()
    yield ledger, inbox_beside(ledger)
    await ledger.close()


async def _inbox_events(ledger):
    rows = await ledger._engine.read(
        lambda conn: conn.execute(
            "SELECT desk, kind, profile_id, mode, key FROM events WHERE kind = 'inbox' ORDER BY id"
        ).fetchall()
    )
    return [(r["desk"], r["profile_id"], r["mode"], r["key"]) for r in rows]


async def test_each_inbox_write_on_the_shared_ledger_is_an_event(shared):
    from paydesk.ledger.postgres.events import KINDS

    assert "inbox" in KINDS
    ledger, inbox = shared
    first, _ = await received(inbox, "PDK-1")
    duplicate, _ = await received(inbox, "PDK-1")
    await forged(inbox, "PDK-2")  # a "refused" event instead (test_refused.py)
    await inbox.decide(first.id, APPLIED, "the service says PAID", mode="live")
    assert await _inbox_events(ledger) == [
        ("desk-a", "p1", "test", str(first.id)),
        ("desk-a", "p1", "test", str(duplicate.id)),
        ("desk-a", "p1", "live", str(first.id)),
    ]
    # a decision that changes nothing (already decided) is no news
    await inbox.decide(first.id, STALE, "again")
    assert len(await _inbox_events(ledger)) == 3


async def test_another_desk_reads_what_one_received(shared):
    ledger, inbox = shared
    other_ledger = same_store(ledger)
    await other_ledger.opened()
    try:
        other = inbox_beside(other_ledger)
        entry, _ = await received(inbox, "PDK-1", raw=b'{"a":"\\/\xff"}')
        seen = await other.get(entry.id)
        assert seen == entry and seen.body == b'{"a":"\\/\xff"}'
        assert [e.id for e in await other.pending()] == [entry.id]
        await other.decide(entry.id, APPLIED, "paid")
        assert (await inbox.get(entry.id)).verdict == APPLIED
        assert [d for d, *_ in await _inbox_events(ledger)] == ["desk-a", "desk-b"]
    finally:
        await other_ledger.close()


async def test_the_importer_carries_learned_by_across(shared, tmp_path):
    from paydesk.ledger.postgres.importer import import_ledger

    ledger, _ = shared
    path = tmp_path / "ledger.sqlite3"
    mine = SqliteLedger(path)
    await mine.opened()
    try:
        await mine.record_lookup("p1", "test", looked_up("PDK-1", "success"), learned_by="notification")
        await mine.record_lookup("p1", "test", looked_up("PDK-2", "pending"))
    finally:
        await mine.close()
    # a file of schema 6 (before learned_by) still imports: its records learned nothing
    old = tmp_path / "old.sqlite3"
    db = sqlite3.connect(old, isolation_level=None)
    migrate(db, target=6)
    db.execute(
        "INSERT INTO links (profile_id, mode, tx_ref, amount_minor, currency, email,"
        " first_name, last_name, state, created_at, updated_at) VALUES ('p1', 'test',"
        " 'OLD-1', 1000, 'USD', 'o@example.com', 'O', 'L', 'success',"
        " '2026-01-02T03:04:05.000000Z', '2026-01-02T03:04:05.000000Z')"
    )
    db.close()
    engine = ledger._engine
    await import_ledger(engine, path, {"p1": "m1"}, installation="desk-x")
    await import_ledger(engine, old, {"p1": "m1"}, installation="desk-y")
    assert (await ledger.get("m1", "PDK-1")).learned_by == "notification"
    assert (await ledger.get("m1", "PDK-2")).learned_by == "check"
    assert (await ledger.get("m1", "OLD-1")).learned_by is None
