"""The poller lease's priority, against a real PostgreSQL: a notification receiver
(``RECEIVER``) takes the lease from a desk (``DESK``) before it expires, with the next epoch;
the desk's fenced writes are refused from then on and its keeper hears at its next renewal
that it lost the lease; a desk never takes it from a receiver before it expires, and two
receivers share it as two desks do."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from paydesk.ledger import Fence, StaleLease
from paydesk.ledger.postgres import PgEngine
from paydesk.ledger.postgres.lease import (
    DESK,
    RECEIVER,
    LeaseKeeper,
    check_fence,
    read_lease,
    release,
    take_or_renew,
)
from tests.waiting import until_async


async def until(predicate, timeout=20.0, message="condition"):  # noqa: ASYNC109 (a poll's deadline: fails saying what)
    return await until_async(predicate, timeout, message, every=0.02)


@pytest.fixture
async def engines(pg_url):
    """Three engines on one shared ledger: two desks and a receiver."""
    made = [PgEngine(pg_url, desk=name) for name in ("desk-a", "desk-b", "receiver")]
    for engine in made:
        await engine.opened()
    yield made
    for engine in made:
        await engine.close()


def take(engine, name, ttl=10.0, priority=DESK):
    return engine.write(lambda c: take_or_renew(c, engine.desk, name, ttl, priority))


async def test_a_receiver_takes_the_lease_from_a_desk_before_it_expires(engines):
    a, b, r = engines
    held = await take(a, "Counter 1")
    assert (held.mine, held.priority) == (True, DESK)
    assert not (await take(b, "Finance")).mine  # an equal priority waits for the expiry

    taken = await take(r, "Back office", priority=RECEIVER)
    assert (taken.holder, taken.mine, taken.priority, taken.epoch) == ("receiver", True, RECEIVER, held.epoch + 1)
    with pytest.raises(StaleLease):  # the old holder's write as the poller: refused
        await a.write(lambda c: check_fence(c, Fence("desk-a", held.epoch)))
    await r.write(lambda c: check_fence(c, Fence("receiver", taken.epoch)))

    seen = await take(a, "Counter 1")  # the old holder's next renewal: not its lease any more
    assert (seen.holder, seen.holder_name, seen.mine, seen.priority) == ("receiver", "Back office", False, RECEIVER)
    assert not (await take(b, "Finance")).mine
    renewed = await take(r, "Back office", priority=RECEIVER)
    assert renewed.mine and renewed.epoch == taken.epoch  # renewed: the same epoch

    # released (the receiver stopped): a desk takes it at once, at its own priority
    assert await r.write(lambda c: release(c, "receiver"))
    again = await take(b, "Finance")
    assert (again.holder, again.mine, again.priority, again.epoch) == ("desk-b", True, DESK, taken.epoch + 1)
    kinds = await a.read(
        lambda c: [(row["desk"], row["kind"]) for row in c.execute("SELECT desk, kind FROM events ORDER BY id")]
    )
    assert kinds == [("desk-a", "lease"), ("receiver", "lease"), ("receiver", "lease"), ("desk-b", "lease")]


async def test_a_desk_never_takes_the_lease_from_a_receiver_before_it_expires(engines):
    a, _, r = engines
    taken = await take(r, "Back office", ttl=1.0, priority=RECEIVER)
    assert not (await take(a, "Counter 1")).mine
    await asyncio.sleep(1.2)  # the receiver stops renewing (killed): its lease expires
    assert (await a.read(lambda c: read_lease(c, "desk-a"))).holder is None
    held = await take(a, "Counter 1")
    assert (held.mine, held.priority, held.epoch) == (True, DESK, taken.epoch + 1)
    with pytest.raises(StaleLease):
        await r.write(lambda c: check_fence(c, Fence("receiver", taken.epoch)))


async def test_two_receivers_share_the_lease_as_two_desks_do(engines, pg_url):
    _, b, r = engines
    other = PgEngine(pg_url, desk="receiver-2")
    await other.opened()
    try:
        first = await take(r, "Back office", priority=RECEIVER)
        assert not (await take(other, "Spare", priority=RECEIVER)).mine
        assert not (await take(b, "Finance")).mine
        assert (await take(r, "Back office", priority=RECEIVER)).epoch == first.epoch
    finally:
        await other.close()


async def test_a_priority_takeover_waits_for_the_holders_fenced_write_in_flight(engines, pg_url):
    """No write of the old holder lands after the receiver took over: the takeover waits for
    the fenced write's share lock, as a takeover at expiry does."""
    a, _, r = engines
    held = await take(a, "Counter 1")
    slow = psycopg.connect(pg_url, row_factory=psycopg.rows.dict_row)
    try:
        check_fence(slow, Fence("desk-a", held.epoch))  # a fenced write under way
        takeover = asyncio.ensure_future(take(r, "Back office", priority=RECEIVER))
        await asyncio.sleep(0.5)
        assert not takeover.done()
        slow.commit()
        taken = await takeover
        assert taken.mine and taken.epoch == held.epoch + 1
    finally:
        slow.close()


async def test_the_desks_keeper_hears_at_its_next_renewal_that_it_lost_the_lease(engines):
    a, _, r = engines
    changes = []
    desk = LeaseKeeper(a, "Counter 1", ttl=10.0, renew_every=0.3, on_change=changes.append)
    receiver = LeaseKeeper(r, "Back office", ttl=10.0, renew_every=0.3, priority=RECEIVER)
    runs = [asyncio.ensure_future(desk.run())]
    try:
        await until(lambda: desk.fence is not None, message="the desk holds the lease")
        epoch = desk.state.epoch
        runs.append(asyncio.ensure_future(receiver.run()))
        await until(lambda: receiver.fence is not None, message="the receiver took it")
        assert receiver.state.epoch == epoch + 1  # long before the desk's 10 s lease expired
        await until(lambda: desk.fence is None, message="the desk heard it lost the lease")
        assert (desk.state.holder, desk.state.priority) == ("receiver", RECEIVER)
        assert [(s.mine, s.holder) for s in changes] == [(True, "desk-a"), (False, "receiver")]
        await asyncio.sleep(1.0)  # renewals go on: the receiver keeps it
        assert receiver.fence is not None and desk.fence is None
    finally:
        for run in runs:
            run.cancel()
        await asyncio.gather(*runs, return_exceptions=True)
