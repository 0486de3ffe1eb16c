"""Desks of one shop on one shared ledger, live: each built as the app builds it
(``build_desk(..., ledger_url=...)``) on a real PostgreSQL (``pg_url``), talking to one real
sandbox. A link made at one desk is announced at the other; paid there, PAID here; one desk
checks payments (the lease holder) and another takes over when it is killed; a stale
holder's write is refused; while the server is down nothing is created or sent."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.ledger import Fence, LedgerError, LinkRecord, StaleLease
from paydesk.service.models import PaymentRequest
from tests import profiles
from tests.helpers import MemoryKeyring


def request(ref: str, amount: int = 12) -> PaymentRequest:
    return PaymentRequest(
        amount=Decimal(amount),
        currency="GBP",
        email="kim@example.com",
        first_name="Kim",
        last_name="Lee",
        tx_ref=ref,
        title="Tea",
    )


class Heard:
    """What one desk's hub said."""

    def __init__(self, desk):
        self.changed, self.settled, self.status = [], [], []
        desk.hub.record_changed.connect(self.changed.append)
        desk.hub.record_settled.connect(self.settled.append)
        desk.hub.shared_status.connect(self.status.append)

    def state_of(self, tx_ref):
        states = [r.state for r in self.changed if r.tx_ref == tx_ref]
        return states[-1] if states else None


@pytest.fixture
async def shop(pg_url, tmp_path, sandbox):
    """``await shop(name)``: a desk of the shop on the shared ledger, with the sandbox's
    merchant as its profile (the same profile on every desk), opened; closed after. Its
    lease is short (3 s, renewed every 0.5 s) so that a takeover is quick. ``priority=1``:
    built as paydesk-receiver builds its desk (it takes the poller lease from a desk)."""
    desks = []
    merchant = {}
    keyrings = {}  # each desk's own, kept across a restart

    async def open_desk(name: str, *, start: bool = True, priority: int = 0):
        paths = Paths(data=tmp_path / name, sandbox=tmp_path / f"{name}-sandbox").ensure()
        keyring = keyrings.setdefault(name, MemoryKeyring())
        desk = build_desk(paths, KeyStore(keyring), ledger_url=pg_url, lease_priority=priority)
        assert desk.live is not None
        desk.live.keeper.ttl, desk.live.keeper.renew_every = 3.0, 0.5
        await desk.open()
        await desk.naming.rename(name)  # as its person names it (else: the computer's name)
        desks.append(desk)
        # a shared ledger's profile is the shop's merchant, named by its public key: the
        # first desk adds it, every other desk sees it and adds only its keys
        keys = profiles.keys_of(sandbox)
        if "profile" not in merchant:
            await profiles.add_profile(desk.session, sandbox, txref_prefix="SHOP")
            merchant["profile"] = desk.session.profile
        else:
            assert desk.session.settings.profile(merchant["profile"].id) is not None
            await desk.session.save_profile(merchant["profile"], keys)
        desk.heard = Heard(desk)
        if start:
            desk.start_background()
        return desk

    yield open_desk
    for desk in desks:
        await desk.close()


def lookups(service, tx_ref: str) -> int:
    return sum(1 for path in service.calls() if "/transaction" in path and tx_ref in path)


async def holder_of(desks, until):
    await until(
        lambda: sum(d.live.keeper.fence is not None for d in desks) == 1, message="one desk holds the poller lease"
    )
    return next(d for d in desks if d.live.keeper.fence is not None)


async def test_made_here_seen_there_paid_there_paid_here(shop, service, until):
    here = await shop("Counter 1")
    there = await shop("Finance")
    poller = await holder_of([here, there], until)
    record = await here.links.create(request("SHARED-1"))
    await until(lambda: there.heard.state_of("SHARED-1") == "pending", message="the link made here announced there")
    seen = await there.session.ledger.get(record.profile_id, "SHARED-1")
    assert seen is not None and seen.checkout_url == record.checkout_url
    assert [s for s in there.heard.status if s.startswith("Payments checked by")][-1] == (
        f"Payments checked by {poller.live.keeper.name}"
    )

    service.control(f"pay/{record.reference}", {"outcome": "success"})  # paid at the counter
    for desk in (here, there):
        await until(
            lambda d=desk: any(r.tx_ref == "SHARED-1" and r.state == "success" for r in d.heard.settled),
            timeout=30,
            message=f"PAID at {desk.live.keeper.name}",
        )
    assert (await here.session.ledger.get(record.profile_id, "SHARED-1")).state == "success"
    other = there if poller is here else here
    assert other.scheduler.stats["checks"] == 0  # only the lease holder checked it


async def test_the_listener_cut_by_a_server_restart_misses_nothing(shop, pg_server, until):
    here = await shop("Counter 1")
    there = await shop("Finance")
    await holder_of([here, there], until)
    pg_server.restart()  # every connection cut: the feed's, the pools'
    made = []
    for i in range(3):  # the first may meet the pool's dead connection: retried as a person would
        for _ in range(20):
            try:
                made.append(await here.links.create(request(f"AFTER-{i}")))
                break
            except LedgerError:
                await asyncio.sleep(0.25)
    assert [r.tx_ref for r in made] == ["AFTER-0", "AFTER-1", "AFTER-2"]
    await until(
        lambda: all(there.heard.state_of(f"AFTER-{i}") == "pending" for i in range(3)),
        message="every link made after the restart announced at the other desk",
    )


@pytest.mark.slow  # waits out the lease, about 30 s: ./dev test runs it, ./dev check leaves it out
async def test_a_killed_poller_is_replaced_no_link_checked_by_two(shop, service, until):
    first = await shop("Counter 1")
    await holder_of([first], until)
    second = await shop("Finance")
    record = await second.links.create(request("TAKEOVER-1"))
    await until(
        lambda: first.scheduler.stats["checks"] >= 2,
        timeout=30,
        message="the poller checking the link made at the other desk",
    )
    assert second.scheduler.stats["checks"] == 0
    epoch = first.live.keeper.state.epoch

    await first.session.tasks.cancel_all()  # killed: no more renewals, nothing released
    checks_before = first.scheduler.stats["checks"]
    await until(lambda: second.live.keeper.fence is not None, timeout=30, message="the other desk took over")
    assert second.live.keeper.state.epoch == epoch + 1
    await until(
        lambda: second.scheduler.stats["checks"] >= 1, timeout=30, message="the new poller checking the open link"
    )

    service.control(f"pay/{record.reference}", {"outcome": "success"})
    await until(
        lambda: second.heard.state_of("TAKEOVER-1") == "success", timeout=30, message="PAID, checked by the new poller"
    )
    assert first.live.keeper.fence is None
    assert first.scheduler.stats["checks"] == checks_before  # the killed desk checked no more
    # every lookup the service saw was one check of the desk holding the lease then (a check
    # cut off by the kill before it was sent is counted, not seen)
    assert 1 <= lookups(service, "TAKEOVER-1") <= checks_before + second.scheduler.stats["checks"]

    # the old holder's write as the poller is refused
    with pytest.raises(StaleLease):
        await first.session.ledger.record_lookup(
            record.profile_id, record.mode, await _lookup(first, record), fence=Fence(first.live.engine.desk, epoch)
        )


async def _lookup(desk, record):
    profile = desk.session.settings.profile(record.profile_id)
    async with desk.session.lease(profile, record.mode) as client:
        return await client.validate(record.tx_ref)


async def test_while_the_server_is_down_nothing_is_created_or_sent(shop, pg_server, service, until):
    desk = await shop("Counter 1")
    await holder_of([desk], until)
    calls = len(service.calls())
    with pg_server.down():
        await until(lambda: not desk.live.engine.reachable, message="the desk saw it go")
        with pytest.raises(LedgerError, match=r"^Shared ledger unreachable since \d\d:\d\d, retrying$"):
            await desk.links.create(request("DOWN-1"))
        profile = desk.session.profile
        with pytest.raises(LedgerError, match="Shared ledger unreachable since"):
            await desk.cards.create(profile, "test", Decimal(10), "USD", None)
        assert desk.heard.status[-1].startswith("Shared ledger unreachable since")
        assert len(service.calls()) == calls  # nothing reached the service
    await until(lambda: desk.live.engine.reachable, timeout=30, message="back")
    await until(
        lambda: desk.heard.status[-1].startswith("Payments checked by"),
        timeout=30,
        message="the status bar says who checks payments again",
    )
    record = await desk.links.create(request("DOWN-2"))
    assert record.state == "pending"
    assert service.payments("DOWN-1") == 0


async def test_another_desks_create_under_way_is_left_to_it(shop, service, until):
    """The poller does not settle a create another desk may still be waiting on: that desk
    settles its own (the same reference), the poller only one left for two minutes."""
    poller = await shop("Counter 1")
    await holder_of([poller], until)
    maker = await shop("Finance")
    profile = maker.session.profile
    followed = poller.live.events_followed
    record = await maker.session.ledger.begin_link(profile.id, "test", request("INFLIGHT-1"))
    await until(lambda: poller.live.events_followed > followed, message="the intent followed")
    assert poller.heard.state_of("INFLIGHT-1") == "creating"  # shown...
    assert record.key not in {r.key for r in poller.scheduler.watched()}  # ...not settled there
    assert service.payments("INFLIGHT-1") == 0


async def test_a_desk_restarted_settles_its_own_unfinished_create(shop, service, until):
    poller = await shop("Counter 1")
    await holder_of([poller], until)
    maker = await shop("Finance")
    profile = maker.session.profile
    tx_ref = await maker.links.next_reference(profile)  # carries this installation's id
    await maker.session.ledger.begin_link(profile.id, "test", request(tx_ref))
    await maker.close()  # ended before the service was asked
    again = await shop("Finance")  # the same folder: the same installation
    await until(
        lambda: again.heard.state_of(tx_ref) == "pending", timeout=30, message="its own create settled at restart"
    )
    assert service.payments(tx_ref) == 1
    assert poller.scheduler.stats["settles"] == 0


def pending(profile_id: str, refs) -> list[LinkRecord]:
    """Open links of an old desk's ledger, to import."""
    now = datetime.now(UTC)
    return [
        LinkRecord(
            0,
            profile_id,
            "test",
            ref,
            Decimal(5),
            "GBP",
            "x@example.com",
            "X",
            "Y",
            "pending",
            now,
            now,
            checkout_url=f"https://pay.example/{ref}",
        )
        for ref in refs
    ]


async def test_an_import_at_another_desk_is_watched_by_the_poller_and_read_by_the_views(shop, until):
    first = await shop("Counter 1")
    await holder_of([first], until)
    second = await shop("Finance")
    refreshed = []
    first.hub.session_changed.connect(lambda: refreshed.append(1))
    profile_id = second.session.profile.id
    assert await second.session.ledger.import_records(pending(profile_id, ["OLD-1", "OLD-2"])) == 2
    await until(
        lambda: {"OLD-1", "OLD-2"} <= {r.tx_ref for r in first.scheduler.watched()},
        timeout=30,
        message="the poller watching the imported open records",
    )
    assert refreshed  # the views read again


async def test_a_takeover_watches_every_open_record_even_past_a_thousand(shop, until):
    first = await shop("Counter 1")
    await holder_of([first], until)
    second = await shop("Finance")
    refs = [f"MANY-{i}" for i in range(1100)]
    assert await second.session.ledger.import_records(pending(second.session.profile.id, refs)) == 1100
    await until(
        lambda: len({r.tx_ref for r in first.scheduler.watched()} & set(refs)) == 1100,
        timeout=60,
        message="every open record watched",
    )


async def test_an_event_that_cannot_be_followed_waits_for_the_ledger_quietly(shop, pg_server, until, caplog):
    """While the ledger is down, an event kept for later is not read again (and logged)
    every second: it waits until the ledger is back, then is followed."""
    from paydesk.ledger.postgres.listen import LedgerEvent

    desk = await shop("Counter 1")
    await holder_of([desk], until)
    caplog.set_level("INFO", logger="paydesk.live")
    with pg_server.down():
        await until(lambda: not desk.live.engine.reachable, message="the desk saw it go")
        # what the feed hands over (it cannot read any now): another desk's change
        desk.live._deliver(
            [LedgerEvent(10**9, datetime.now(UTC), "another desk", "link", desk.session.profile.id, "test", "QUIET-1")]
        )
        await asyncio.sleep(2.5)  # a wait, not a measure: time to retry a few times
        waits = [r for r in caplog.records if "following a change of another desk waits" in r.message]
        assert len(waits) == 1
    followed = desk.live.events_followed
    await until(lambda: desk.live.events_followed > followed, timeout=30, message="followed once the ledger is back")


async def test_two_paydesks_on_one_data_folder_are_two_desks(shop, until):
    """One installation run twice: each hears the other's changes, and only one of them
    checks payments."""
    first = await shop("Counter 1")
    again = await shop("Counter 1")  # the same folder, the same installation id
    assert first.session.installation_id == again.session.installation_id
    assert first.live.engine.desk != again.live.engine.desk
    assert first.live.engine.desk.startswith(f"{first.session.installation_id}:")
    await holder_of([first, again], until)
    await first.links.create(request("TWICE-1"))
    await until(lambda: again.heard.state_of("TWICE-1") == "pending", message="heard by the other")


async def test_a_ledger_upgraded_by_a_newer_paydesk_is_said_and_nothing_is_written(
    shop, pg_url, tmp_path, service, until
):
    """A newer PayDesk's schema: the status bar says to update, this desk never takes the
    lease, and a create or card operation is refused before anything is sent."""
    import psycopg

    from paydesk.ledger.postgres.engine import SchemaTooNew
    from paydesk.ledger.postgres.schema import KNOWN

    first = await shop("Counter 1", start=False)  # the shop's merchant, added by this version
    profile = first.session.profile
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (%s, now())", (KNOWN + 1,))
    paths = Paths(data=tmp_path / "Counter 1", sandbox=tmp_path / "Counter 1-sandbox")
    desk = build_desk(paths, KeyStore(MemoryKeyring()), ledger_url=pg_url)
    try:
        await desk.open()
        heard = Heard(desk)
        desk.start_background()
        said = str(SchemaTooNew())
        assert said == ("This shop's ledger was upgraded by a newer PayDesk: update PayDesk on this computer")
        await until(lambda: heard.status and heard.status[-1] == said, message="the status says so")
        calls = len(service.calls())
        with pytest.raises(SchemaTooNew):
            await desk.links.create(request("NEWER-1"))
        with pytest.raises(SchemaTooNew):
            await desk.cards.create(profile, "test", Decimal(10), "USD", None)
        assert len(service.calls()) == calls
        assert desk.live.keeper.state.holder is None
        assert not any(t.get_name() == "poller lease" for t in asyncio.all_tasks())
    finally:
        await desk.close()


async def test_what_another_desk_commits_between_open_and_start_is_heard(shop, until):
    """The feed starts where the desk first read (``Desk.open``), not where it connects."""
    there = await shop("Finance", start=False)  # no poller: its create is its only event
    here = await shop("Counter 1", start=False)  # opened: profiles and views read
    await there.links.create(request("MEANWHILE-1"))
    here.start_background()  # the only events of another desk are that create's
    await until(
        lambda: here.live.events_followed >= 1,
        timeout=30,
        message="the change made before the feed connected, followed",
    )


@pytest.mark.slow  # waits on the lease, about 6 s: ./dev test runs it, ./dev check leaves it out
async def test_a_receiver_takes_the_lease_from_the_desk_checking_payments(shop, service, until):
    """Two desks, one checking payments; then a desk built as paydesk-receiver builds its
    own (lease priority 1) takes the lease at once, without waiting for it to expire: the
    old holder hears it lost the lease, stops checking, and every status bar names the
    receiver; the receiver checks the shop's open links from then on."""
    here = await shop("Counter 1")
    there = await shop("Finance")
    old = await holder_of([here, there], until)
    record = await here.links.create(request("RECEIVED-1"))
    await until(
        lambda: record.key in {r.key for r in old.scheduler.watched()}, message="the old holder watches the open link"
    )
    epoch = old.live.keeper.state.epoch

    receiver = await shop("Back office", priority=1)
    await until(
        lambda: receiver.live.keeper.fence is not None,  # the holder renews: no expiry
        message="the receiver took the lease before it expired",
    )
    assert receiver.live.keeper.state.epoch == epoch + 1
    await until(lambda: old.live.keeper.fence is None, message="the old holder heard it lost it")
    said = "Payments checked by the notification receiver on Back office"
    for desk in (here, there, receiver):
        await until(
            lambda d=desk: d.heard.status and d.heard.status[-1] == said,
            message=f"{desk.live.keeper.name}'s status bar names the receiver",
        )
    await until(
        lambda: record.key in {r.key for r in receiver.scheduler.watched()},
        message="the receiver watches the shop's open link",
    )
    assert record.key not in {r.key for r in old.scheduler.watched()}
    with pytest.raises(StaleLease):  # the old holder's write as the poller is refused
        await old.session.ledger.record_lookup(
            record.profile_id, record.mode, await _lookup(old, record), fence=Fence(old.live.engine.desk, epoch)
        )

    checks = old.scheduler.stats["checks"]
    service.control(f"pay/{record.reference}", {"outcome": "success"})
    await until(
        lambda: receiver.scheduler.stats["checks"] >= 1, timeout=30, message="the receiver checking the open link"
    )
    for desk in (here, there):
        await until(
            lambda d=desk: d.heard.state_of("RECEIVED-1") == "success",
            timeout=30,
            message=f"PAID at {desk.live.keeper.name}",
        )
    assert old.scheduler.stats["checks"] == checks  # the old holder checked no more
    assert not [d for d in (here, there) if d.live.keeper.fence is not None]  # desks wait


async def test_every_desk_of_the_shop_shares_one_inbox(shop):
    from paydesk.ledger.postgres.inbox import PostgresInbox

    a, b = await shop("a", start=False), await shop("b", start=False)
    assert isinstance(a.inbox, PostgresInbox)
    entry, reread = await a.inbox.receive(b'{"x":1}', {}, "127.0.0.1")
    assert reread and await b.inbox.get(entry.id) == entry
    _, reread = await b.inbox.receive(b'{"x":1}', {}, "127.0.0.1")
    assert not reread  # the body was believed once, on the shop's ledger


async def test_a_notification_kept_or_decided_elsewhere_is_heard_here(shop, until):
    from paydesk.ledger.inbox import APPLIED

    a, b = await shop("a"), await shop("b")
    heard = []
    b.hub.notification_changed.connect(heard.append)
    entry, _ = await a.inbox.receive(b'{"y":2}', {}, "127.0.0.1", profile_id="p1", mode="test", tx_ref="SHOP-1")
    await until(lambda: [e.id for e in heard] == [entry.id])
    assert heard[0] == entry
    decided = await a.inbox.decide(entry.id, APPLIED, "the service says PAID")
    await until(lambda: len(heard) == 2)
    assert heard[1] == decided


async def test_a_lease_taken_as_the_ledger_goes_watches_once_it_is_back(shop, pg_server, until):
    """The lease holder reads every open record when it takes the lease; if the ledger goes
    out of reach just then, the read is tried again once it is back, never a crashed task
    (it crashed under load: the poller's lease_changed raised LedgerUnreachable)."""
    from paydesk.ledger.postgres.engine import LedgerUnreachable

    desk = await shop("Counter 1")
    await holder_of([desk], until)
    record = await desk.links.create(request("GONE-1"))
    desk.scheduler.forget(record.profile_id)  # as a desk that has not watched it yet
    assert not desk.scheduler.watched()
    with pg_server.down():
        await until(lambda: not desk.live.engine.reachable, message="the desk saw it go")
        with pytest.raises(LedgerUnreachable):
            await desk.live.poller.watch_all()  # what the taking of the lease reads
        taking = asyncio.ensure_future(desk.live.poller.lease_changed(True))
        await asyncio.sleep(1.5)  # a wait, not a measure: a retry or two while it is down
        assert not taking.done()
    await until(lambda: taking.done(), timeout=40, message="read once the ledger is back")
    assert taking.exception() is None
    if desk.live.poller.holder:  # it may have lost the lease meanwhile: then nothing to read
        assert record.key in {r.key for r in desk.scheduler.watched()}


@pytest.mark.parametrize("notifications", ["none", "lately"])
@pytest.mark.slow  # the scheduler's first checks, about 6 s each: ./dev test runs it, ./dev check leaves it out
async def test_a_counters_link_paid_without_a_notification_is_seen_there_with_a_receiver(
    shop, service, until, notifications
):
    """paydesk-receiver as its command builds its desk (lease priority 1, ``desk.receiver``
    set) holds the lease, so it alone checks the shop's open links, and cannot see what a
    counter shows. A link on the counter's screen paid whose notification never comes is
    still seen PAID there within seconds: a receiver running does not space its checks, and
    a link in its first minutes keeps its pace even when the merchant's notifications of
    that mode came lately."""
    from paydesk.receiver.serve import Receiver

    counter = await shop("Counter 1")
    back = await shop("Back office", start=False, priority=1)
    receiver = Receiver(back, "127.0.0.1", 0)
    await receiver.start()
    back.receiver = receiver  # as receiver/cli.py does
    back.start_background()
    await until(lambda: back.live.keeper.fence is not None, message="the receiver's lease")
    profile = counter.session.profile
    if notifications == "lately":  # the service reaches the receiver for this merchant
        await back.inbox.receive(b'{"event":"payment.completed"}', {}, "127.0.0.1", profile_id=profile.id, mode="test")
        long_ago = datetime(2026, 1, 1, tzinfo=UTC)
        older = LinkRecord(
            id=0,
            profile_id=profile.id,
            mode="test",
            tx_ref="OLD",
            amount=Decimal(1),
            currency="GBP",
            email="",
            first_name="",
            last_name="",
            state="pending",
            created_at=long_ago,
            updated_at=long_ago,
        )
        await until(lambda: back.scheduler.notified(older), message="notified, for older links")

    ref = f"PACE-{notifications}"
    record = await counter.links.create(request(ref))
    counter.scheduler.focus("counter", record)  # on the counter's screen: a customer waits
    await until(
        lambda: record.key in {r.key for r in back.scheduler.watched()},
        message="the receiver watches the counter's link",
    )
    service.control(f"pay/{record.reference}", {"outcome": "success"})  # and no notification
    await until(lambda: counter.heard.state_of(ref) == "success", timeout=20, message="PAID seen at the counter")
    assert back.scheduler.stats["spaced for notifications"] == 0
