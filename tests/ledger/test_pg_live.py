"""Live across desks, at the engine level, against a real PostgreSQL: two ``PgEngine``s on
one database are two desks. The event feed (``listen.py``) hands over every event another
desk wrote, once and in order, whatever happens to its connection (cut, the server
restarted, commits landing out of id order); the poller lease (``lease.py``) has one holder,
a new epoch for each new holder, a takeover once the holder stops renewing, and a stale
holder's fenced write refused."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from paydesk.ledger import Fence, StaleLease
from paydesk.ledger.postgres import PgEngine, emit
from paydesk.ledger.postgres.lease import LeaseKeeper, check_fence, read_lease, release, take_or_renew
from paydesk.ledger.postgres.listen import APP_NAME, EventFeed
from tests.waiting import until_async


async def until(predicate, timeout=20.0, message="condition"):  # noqa: ASYNC109 (a poll's deadline: fails saying what)
    return await until_async(predicate, timeout, message, every=0.02)


@pytest.fixture
async def desks(pg_url):
    """Two desks' engines on one shared ledger."""
    engines = [PgEngine(pg_url, desk=name) for name in ("desk-a", "desk-b")]
    for engine in engines:
        await engine.opened()
    yield engines
    for engine in engines:
        await engine.close()


class Heard:
    """What a feed handed over, and every reachability change the engine heard."""

    def __init__(self, engine):
        self.events = []
        self.batches = 0
        self.reachable = []
        engine.on_reachable = self.reachable.append

    def deliver(self, events):
        self.batches += 1
        self.events.extend(events)

    def keys(self):
        return [e.key for e in self.events]


async def write_events(engine, keys, kind="link"):
    await engine.write(lambda c: [emit(c, engine.desk, kind, "m-1", "test", k) for k in keys])


async def test_a_change_made_at_one_desk_reaches_the_other_desks_feed(desks):
    a, b = desks
    await write_events(a, ["before the feed"])
    heard = Heard(b)
    feed = EventFeed(b, heard.deliver)
    await feed.start()
    try:
        await write_events(a, ["L1"])
        await until(lambda: heard.keys() == ["L1"], message="L1 seen at the other desk")
        event = heard.events[0]
        assert (event.desk, event.kind, event.profile_id, event.mode) == ("desk-a", "link", "m-1", "test")
        await write_events(a, [f"K{i}" for i in range(1200)])  # more than one batch
        await until(lambda: len(heard.events) == 1201, message="every event of a big write")
        assert heard.keys()[1:] == [f"K{i}" for i in range(1200)]
        ids = [e.id for e in heard.events]
        assert ids == sorted(set(ids))  # once each, in order
    finally:
        await feed.close()


async def test_commits_landing_out_of_id_order_are_not_missed(desks, pg_url):
    a, b = desks
    heard = Heard(b)
    feed = EventFeed(b, heard.deliver)
    await feed.start()
    slow = psycopg.connect(pg_url, row_factory=psycopg.rows.dict_row)
    try:
        emit(slow, "desk-c", "link", key="slow")  # drew the lower id; commits last
        await write_events(a, ["fast"])
        await until(lambda: "fast" in heard.keys(), message="the later id seen first")
        slow.commit()
        await until(lambda: "slow" in heard.keys(), message="the earlier id, committed later")
        assert sorted(heard.keys()) == ["fast", "slow"]
    finally:
        slow.close()
        await feed.close()


async def test_the_feed_survives_its_connection_cut_and_misses_nothing(desks, pg_server, pg_url):
    a, b = desks
    heard = Heard(b)
    feed = EventFeed(b, heard.deliver)
    await feed.start()
    try:
        await write_events(a, ["one"])
        await until(lambda: heard.keys() == ["one"])
        killed = pg_server.sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            f" WHERE application_name = '{APP_NAME}'"
            f" AND datname = '{pg_url.rsplit('/', 1)[1]}'"
        )
        assert killed == [(True,)]
        await write_events(a, ["two", "three"])  # maybe before the feed is back
        await until(lambda: heard.keys() == ["one", "two", "three"], message="caught up")
        assert feed.connects == 2
    finally:
        await feed.close()


async def test_the_server_restarted_mid_run_nothing_is_missed(desks, pg_server):
    a, b = desks
    heard = Heard(b)
    feed = EventFeed(b, heard.deliver, backoff_first=0.1, backoff_most=0.5)
    await feed.start()
    try:
        await write_events(a, ["before"])
        await until(lambda: heard.keys() == ["before"])
        with pg_server.down():
            await until(lambda: False in heard.reachable, message="the feed saw the server go")
            assert not b.reachable and b.down_since is not None
        # the server is back: written at once, before the feed has reconnected
        await write_events(a, [f"after{i}" for i in range(50)])
        await until(lambda: len(heard.events) == 51, message="caught up after the restart")
        assert heard.keys() == ["before"] + [f"after{i}" for i in range(50)]
        await until(lambda: b.reachable, message="marked reachable again")
        assert heard.reachable[-1] is True
    finally:
        await feed.close()


async def test_closing_the_feed_ends_its_thread(desks):
    _, b = desks
    feed = EventFeed(b, lambda events: None)
    await feed.start()
    thread = feed._thread
    await feed.close()
    assert thread is not None and not thread.is_alive()


# -- the poller lease ---------------------------------------------------------------------


async def test_one_holder_a_new_epoch_for_each_new_holder_and_a_stale_write_refused(desks):
    a, b = desks
    first = await a.write(lambda c: take_or_renew(c, "desk-a", "Counter 1", 1.0))
    assert (first.holder, first.holder_name, first.mine) == ("desk-a", "Counter 1", True)
    other = await b.write(lambda c: take_or_renew(c, "desk-b", "Finance", 1.0))
    assert (other.holder, other.holder_name, other.mine, other.epoch) == ("desk-a", "Counter 1", False, first.epoch)
    renewed = await a.write(lambda c: take_or_renew(c, "desk-a", "Counter 1", 1.0))
    assert renewed.mine and renewed.epoch == first.epoch  # renewed: the same epoch
    await a.write(lambda c: check_fence(c, Fence("desk-a", first.epoch)))  # holds

    await asyncio.sleep(1.2)  # desk-a stops renewing: its lease expires
    with pytest.raises(StaleLease):
        await a.write(lambda c: check_fence(c, Fence("desk-a", first.epoch)))
    taken = await b.write(lambda c: take_or_renew(c, "desk-b", "Finance", 10.0))
    assert (taken.holder, taken.mine, taken.epoch) == ("desk-b", True, first.epoch + 1)
    with pytest.raises(StaleLease):  # the old holder's write is refused...
        await a.write(lambda c: check_fence(c, Fence("desk-a", first.epoch)))
    with pytest.raises(StaleLease):  # ...even with the new epoch
        await a.write(lambda c: check_fence(c, Fence("desk-a", taken.epoch)))
    await b.write(lambda c: check_fence(c, Fence("desk-b", taken.epoch)))
    seen = await a.read(lambda c: read_lease(c, "desk-a"))
    assert (seen.holder, seen.holder_name, seen.mine) == ("desk-b", "Finance", False)
    # released on close: taken over at once, with the next epoch; announced as events
    assert await b.write(lambda c: release(c, "desk-b"))
    again = await a.write(lambda c: take_or_renew(c, "desk-a", "Counter 1", 10.0))
    assert (again.holder, again.epoch) == ("desk-a", taken.epoch + 1)
    kinds = await a.read(
        lambda c: [(r["desk"], r["kind"]) for r in c.execute("SELECT desk, kind FROM events ORDER BY id")]
    )
    assert kinds == [("desk-a", "lease"), ("desk-b", "lease"), ("desk-b", "lease"), ("desk-a", "lease")]


async def test_a_fenced_write_holds_the_takeover_until_it_ends(desks, pg_url):
    """The fence's share lock: a takeover waits for the old holder's write in flight, so no
    write of the old holder lands after a new one took over."""
    a, b = desks
    first = await a.write(lambda c: take_or_renew(c, "desk-a", "Counter 1", 0.5))
    slow = psycopg.connect(pg_url, row_factory=psycopg.rows.dict_row)
    try:
        check_fence(slow, Fence("desk-a", first.epoch))  # a fenced write under way
        await asyncio.sleep(0.6)  # the lease expires meanwhile
        takeover = asyncio.ensure_future(b.write(lambda c: take_or_renew(c, "desk-b", "Finance", 10.0)))
        await asyncio.sleep(0.5)
        assert not takeover.done()  # waits for the write in flight
        slow.commit()
        taken = await takeover
        assert taken.holder == "desk-b" and taken.epoch == first.epoch + 1
    finally:
        slow.close()


@pytest.mark.slow  # waits out the fence, about 10 s: ./dev test runs it, ./dev check leaves it out
async def test_a_holder_cut_off_inside_a_fenced_write_does_not_block_the_takeover(desks):
    """A holder gone silent with its fenced write's transaction open (its share lock on the
    lease row held): the server ends that transaction, and another desk takes over."""
    a, b = desks
    first = await a.write(lambda c: take_or_renew(c, "desk-a", "Counter 1", 0.5))
    stuck = psycopg.connect(**a.conninfo(), row_factory=psycopg.rows.dict_row)
    try:
        check_fence(stuck, Fence("desk-a", first.epoch))  # never committed: desk-a is gone
        keeper = LeaseKeeper(b, "Finance", ttl=10.0, renew_every=0.3)
        run = asyncio.ensure_future(keeper.run())
        try:
            await until(lambda: keeper.fence is not None, timeout=30.0, message="desk-b took over")
            assert keeper.state.epoch == first.epoch + 1
        finally:
            run.cancel()
            await asyncio.gather(run, return_exceptions=True)
    finally:
        stuck.close()


async def test_a_killed_holder_is_replaced_and_a_closed_one_at_once(desks):
    a, b = desks
    changes = {"a": [], "b": []}
    keepers = {
        "a": LeaseKeeper(a, "Counter 1", ttl=1.5, renew_every=0.3, on_change=changes["a"].append),
        "b": LeaseKeeper(b, "Finance", ttl=1.5, renew_every=0.3, on_change=changes["b"].append),
    }
    runs = {"a": asyncio.ensure_future(keepers["a"].run())}
    await until(lambda: keepers["a"].fence is not None, message="desk-a holds the lease")
    runs["b"] = asyncio.ensure_future(keepers["b"].run())
    await until(lambda: keepers["b"].state.holder == "desk-a", message="desk-b sees desk-a")
    assert keepers["b"].fence is None
    epoch = keepers["a"].state.epoch

    runs["a"].cancel()  # desk-a killed: it renews no more, releases nothing
    await asyncio.gather(runs["a"], return_exceptions=True)
    await until(lambda: keepers["b"].fence is not None, message="desk-b took over")
    assert keepers["b"].state.epoch == epoch + 1
    assert keepers["a"].fence is None  # desk-a knows its lease may have ended
    with pytest.raises(StaleLease):
        await a.write(lambda c: check_fence(c, Fence("desk-a", epoch)))

    runs["a"] = asyncio.ensure_future(keepers["a"].run())  # desk-a back: desk-b keeps it
    await until(lambda: keepers["a"].state.holder == "desk-b")
    runs["b"].cancel()
    await asyncio.gather(runs["b"], return_exceptions=True)
    await keepers["b"].release()  # closed: released, desk-a takes over at its next renewal
    assert (await a.read(lambda c: read_lease(c, "desk-a"))).holder is None
    await until(lambda: keepers["a"].fence is not None, message="desk-a took over")
    assert keepers["a"].state.epoch == epoch + 2
    assert [s.mine for s in changes["b"]] == [False, True, False]
    runs["a"].cancel()
    await asyncio.gather(runs["a"], return_exceptions=True)


async def test_the_ledgers_poller_writes_carry_the_fence(desks):
    """``PostgresLedger.touch``/``record_lookup`` with a fence write only while it holds."""
    from decimal import Decimal

    from paydesk.ledger.postgres.links import PostgresLedger
    from paydesk.service.models import PaymentRequest

    a, b = desks
    ledger = PostgresLedger(a)
    record = await ledger.begin_link(
        "m-1",
        "test",
        PaymentRequest(
            amount=Decimal(5),
            currency="GBP",
            email="kim@example.com",
            first_name="Kim",
            last_name="Lee",
            tx_ref="FENCED-1",
        ),
    )
    held = await a.write(lambda c: take_or_renew(c, "desk-a", "Counter 1", 10.0))
    await ledger.touch("m-1", "FENCED-1", fence=Fence("desk-a", held.epoch))
    checked = (await ledger.get("m-1", "FENCED-1")).checked_at
    assert checked is not None
    await a.write(lambda c: release(c, "desk-a"))
    await b.write(lambda c: take_or_renew(c, "desk-b", "Finance", 10.0))
    with pytest.raises(StaleLease):
        await ledger.touch("m-1", "FENCED-1", fence=Fence("desk-a", held.epoch))
    assert (await ledger.get("m-1", "FENCED-1")).checked_at == checked  # nothing written
    await ledger.touch("m-1", "FENCED-1")  # not the poller's (a person's check): written
    assert record.tx_ref == "FENCED-1"
