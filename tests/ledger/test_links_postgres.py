"""The links ledger shared by the desks of a shop (PostgreSQL): what one desk writes another
reads; a reference number claimed by two desks at once goes to one; ``changes()`` moves for
the other desks' writes only; every write leaves one event row, in its own transaction.
(The rules both backends share are proven on both in test_ledger.py, test_queries.py and
test_refunds.py.)"""

import asyncio
from datetime import UTC, date, datetime
from decimal import Decimal

import psycopg
import pytest

from paydesk.ledger import DuplicateReference, LinkQuery, LinkRecord
from paydesk.service.models import PaymentLink, PaymentRequest, Transaction, TransactionState
from tests.link_ledgers import shared_ledger


def request(ref):
    return PaymentRequest(
        amount=Decimal(25), currency="GBP", email="ada@example.com", first_name="Ada", last_name="Lovelace", tx_ref=ref
    )


def said(ref, word):
    return Transaction(
        tx_ref=ref,
        status=TransactionState.read(word),
        status_raw=word,
        amount=Decimal(25),
        currency="GBP",
        charge=Decimal("0.55"),
        reference=f"PDK-{ref}",
        raw={"status": word},
    )


@pytest.fixture
async def desks(pg_url):
    """Two desks of one shop: two engines (two pools, two writer threads), two desk ids,
    one database."""
    a, b = shared_ledger(pg_url, "desk-a"), shared_ledger(pg_url, "desk-b")
    await asyncio.gather(a.opened(), b.opened())
    yield a, b
    await a.close()
    await b.close()


async def events(ledger):
    rows = await ledger._engine.read(
        lambda conn: conn.execute("SELECT desk, kind, profile_id, mode, key FROM events ORDER BY id").fetchall()
    )
    return [tuple(row.values()) for row in rows]


async def test_a_link_made_at_one_desk_is_seen_at_another(desks):
    a, b = desks
    made = await a.begin_link("m-1", "test", request("A-1"))
    seen = await b.get("m-1", "A-1")
    assert seen == made and seen.state == "creating"
    with pytest.raises(DuplicateReference):  # one tx_ref per merchant, whichever desk
        await b.begin_link("m-1", "live", request("A-1"))
    await a.complete_link("m-1", PaymentLink("A-1", "http://h/pay/payment/PDK-A-1"))
    paid, changed = await b.record_lookup("m-1", "test", said("A-1", "success"))
    assert changed and paid.state == "success"
    assert (await a.get("m-1", "A-1")).state == "success"
    assert [r.tx_ref for r in (await a.page(LinkQuery("m-1", "test", text="lovelace"))).records] == ["A-1"]
    assert (await a.by_reference("m-1", "PDK-A-1")).tx_ref == "A-1"


async def test_a_sequence_claimed_from_two_desks_at_once_goes_to_one(desks, pg_url):
    a, b = desks
    day = date(2026, 11, 23)
    for value in range(1, 21):  # both ask at the same moment, each on its own connection
        won = await asyncio.gather(a.claim_sequence(day, value), b.claim_sequence(day, value))
        assert sorted(won) == [False, True], value
    assert await a.peek_sequence(day) == await b.peek_sequence(day) == 21
    # a claim another connection has made and not yet committed: both desks wait for it,
    # then find its number taken; of the next number, one desk has it
    other = psycopg.connect(pg_url)
    try:
        other.execute("UPDATE sequences SET value = 21 WHERE day = %s", (day,))
        claims = [asyncio.create_task(ledger.claim_sequence(day, value)) for value in (21, 22) for ledger in (a, b)]
        await asyncio.sleep(0.2)  # (they are waiting; nothing asserted on time)
        other.commit()
    finally:
        other.close()
    results = await asyncio.gather(*claims)
    assert results[:2] == [False, False] and sorted(results[2:]) == [False, True]


async def test_changes_move_for_the_other_desks_writes_only(desks):
    a, b = desks
    seen_a, seen_b = await a.changes(), await b.changes()
    await a.begin_link("m-1", "test", request("C-1"))
    assert await a.changes() == seen_a  # its own write: announced by its controllers
    assert await b.changes() > seen_b
    seen_b = await b.changes()
    await b.note_error("m-1", "C-1", "timed out")
    assert await a.changes() > seen_a
    assert await b.changes() == seen_b
    # far more of its own since another desk's last: still only the others' count
    seen_a = await a.changes()
    for _ in range(2):
        await a._engine.write(
            lambda conn: conn.execute(
                "INSERT INTO events (desk, kind) SELECT 'desk-a', 'link' FROM generate_series(1, 3000)"
            )
        )
        assert await a.changes() == seen_a
    await b.note_error("m-1", "C-1", "refused")
    assert await a.changes() == await newest_of(a, "desk-b") > seen_a


async def newest_of(ledger, desk):
    row = await ledger._engine.read(
        lambda conn: conn.execute("SELECT max(id) AS id FROM events WHERE desk = %s", (desk,)).fetchone()
    )
    return row["id"]


async def test_every_write_leaves_one_event_in_its_own_transaction(desks):
    a, b = desks
    await a.begin_link("m-1", "test", request("E-1"))
    await a.complete_link("m-1", PaymentLink("E-1", "http://h/pay/payment/PDK-E-1"))
    await a.note_error("m-1", "E-1", "timed out")
    await b.record_lookup("m-1", "test", said("E-1", "pending"))
    await b.touch("m-1", "E-1")  # checked, nothing new: no news for the other desks
    await b.record_lookup("m-1", "test", said("E-1", "pending"))  # the same again: none
    await a.begin_link("m-1", "live", request("E-2"))
    await a.reject_link("m-1", "E-2", "Invalid currency")
    await b.record_lookup("m-2", "test", said("WEB-1", "success"))  # made elsewhere
    assert await a.claim_sequence(date(2026, 11, 23), 1)
    now = datetime.now(UTC)
    imported = [
        LinkRecord(0, "m-3", mode, f"I-{i}", Decimal(5), "GBP", "x@example.com", "X", "Y", "pending", now, now)
        for i, mode in enumerate(("test", "test", "live"))
    ]
    assert await b.import_records(imported) == 3
    # what changed nothing leaves nothing: a refused begin, a number already taken, an
    # import of what is there, a touch of nothing
    with pytest.raises(DuplicateReference):
        await a.begin_link("m-1", "test", request("E-1"))
    assert not await b.claim_sequence(date(2026, 11, 23), 1)
    assert await a.import_records(imported) == 0
    await a.touch("m-1", "NOTHING")
    assert await events(a) == [
        ("desk-a", "link", "m-1", "test", "E-1"),
        ("desk-a", "link", "m-1", "test", "E-1"),
        ("desk-a", "link", "m-1", "test", "E-1"),
        ("desk-b", "link", "m-1", "test", "E-1"),
        ("desk-a", "link", "m-1", "live", "E-2"),
        ("desk-a", "link", "m-1", "live", "E-2"),
        ("desk-b", "link", "m-2", "test", "WEB-1"),
        ("desk-a", "sequence", "", "", "2026-11-23"),
        ("desk-b", "import", "m-3", "live", ""),
        ("desk-b", "import", "m-3", "test", ""),
    ]


async def test_each_event_rings_the_doorbell_with_its_id(desks, pg_url):
    a, _ = desks
    with psycopg.connect(pg_url, autocommit=True) as listener:
        listener.execute("LISTEN paydesk_events")
        await a.begin_link("m-1", "test", request("N-1"))
        rung = [n.payload for n in listener.notifies(timeout=5, stop_after=1)]
    assert await events(a) == [("desk-a", "link", "m-1", "test", "N-1")]
    (only,) = await a._engine.read(lambda conn: conn.execute("SELECT id FROM events").fetchall())
    assert rung == [str(only["id"])]  # the id only: a doorbell
