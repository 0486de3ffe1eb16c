"""The links controller and the session on their own (no window, no Qt), against the
sandbox, with failures the sandbox cannot produce: the ledger locked by another program, a
key that vanished, a client replaced or closed in the middle of a call, two first calls at
once; and what the desk's own scheduler does with a lost create and a deleted profile."""

import asyncio
import sqlite3
from decimal import Decimal

import httpx
import pytest

from paydesk.config.profiles import Profile
from paydesk.desk import leases
from paydesk.desk.build import build_desk
from paydesk.desk.leases import InsecureAddressError, NoKeyError
from paydesk.desk.links import LinksController
from paydesk.desk.pacing import Pacing
from paydesk.desk.scheduler import Scheduler, StopWatching
from paydesk.service.client import ServiceClient
from paydesk.service.errors import ServiceError
from paydesk.service.models import PaymentRequest
from tests.waiting import until_async


def request(ref, amount=12):
    return PaymentRequest(
        amount=Decimal(amount),
        currency="GBP",
        email="kim@example.com",
        first_name="Kim",
        last_name="Lee",
        tx_ref=ref,
        title="Tea",
    )


@pytest.fixture
def short_create_deadline(monkeypatch):
    """A person waits 30 s for "Create link" before PayDesk leaves it to the background;
    these tests wait 3 s (the same rule, sooner)."""
    monkeypatch.setattr(leases, "CREATE_DEADLINE", 3.0)


async def test_a_busy_ledger_delays_a_create_and_loses_nothing(session, add_profile, service, until):
    """Regression: a lock held past 5 s raised LedgerBusy inside a Qt slot (crash dialog)."""
    await add_profile()
    controller = LinksController(session, session.ledger)
    busy = []
    session.hub.ledger_busy.connect(busy.append)
    await session.ledger.opened()
    other = sqlite3.connect(session.paths.data / "ledger.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # a second PayDesk, or a backup tool, holds the ledger
    create = asyncio.ensure_future(controller.create(request("BUSY-1")))
    await until(lambda: busy == [True], message="saving to say it is delayed")
    await asyncio.sleep(0.2)
    assert not create.done() and service.payments("BUSY-1") == 0  # nothing sent yet
    other.execute("COMMIT")
    other.close()
    await until(create.done, message="the create")
    assert create.result().state == "pending" and busy == [True, False]
    assert service.payments("BUSY-1") == 1


async def test_a_vanished_key_is_a_typed_error_and_said(session, add_profile, memory_keyring):
    profile = await add_profile()
    controller = LinksController(session, session.ledger)
    record = await controller.create(request("KEY-1"))
    # the key is removed from the keyring behind PayDesk's back, and PayDesk starts again
    memory_keyring.store.clear()
    fresh = build_desk(session.paths, type(session.keys)(memory_keyring)).session
    await fresh.load()
    try:
        with pytest.raises(NoKeyError, match="No test secret key for Shop"):
            await LinksController(fresh, fresh.ledger).check(record)
        assert fresh.health.get(profile.id, "test").text().startswith("No test secret key")
    finally:
        await fresh.close()


async def test_two_first_calls_share_one_client(session, add_profile, monkeypatch):
    """Regression: two concurrent first calls each made a client; one leaked, never closed."""
    profile = await add_profile()
    made = []
    original = ServiceClient.__init__

    def counting(self, *args, **kwargs):  # a spy: the real constructor runs
        made.append(self)
        original(self, *args, **kwargs)

    async def one():
        async with session.lease(profile, "test") as client:
            await asyncio.sleep(0.05)
            return client

    monkeypatch.setattr(ServiceClient, "__init__", counting)
    first, second = await asyncio.gather(one(), one())
    monkeypatch.undo()
    assert first is second and len(made) == 1


@pytest.mark.sockets
async def test_a_replaced_client_is_closed_after_its_call(session, add_profile, sandbox, service):
    profile = await add_profile()
    controller = LinksController(session, session.ledger)
    record = await controller.create(request("SLOW-1"))
    service.faults(latency_ms=800)
    async with session.lease(profile, "test") as old:
        pass
    checking = asyncio.ensure_future(controller.check(record))
    await asyncio.sleep(0.2)
    await session.save_profile(profile, {("test", "secret"): sandbox.key("test")})
    assert not old._http.is_closed  # its call is still running
    checked = await checking
    await asyncio.sleep(0.05)
    assert checked.state == "pending" and old._http.is_closed


@pytest.mark.sockets
async def test_a_client_closed_mid_call_does_not_stop_the_scheduler(session, add_profile, service):
    """Regression: a client closed while it waited to retry ended the link scheduler."""
    profile = await add_profile()
    controller = LinksController(session, session.ledger)
    record = await controller.create(request("CLOSED-1"))
    service.faults(error_rate=1.0)  # every check fails and is retried by the client
    scheduler = Scheduler(
        controller.check, controller.settle, pacing=Pacing(first_every=0.05, retry_first=0.1, slowest=0.3)
    )
    task = asyncio.ensure_future(scheduler.run())
    try:
        scheduler.watch(record)
        await asyncio.sleep(0.3)
        async with session.lease(profile, "test") as client:
            await client.aclose()  # closed under the scheduler's feet
        await asyncio.sleep(0.3)
        session._retire(profile.id)  # the session makes a new one on the next call
        service.faults()
        service.control(f"pay/{record.reference}", {"outcome": "success"})
        await until_async(lambda: not scheduler.watched(), 10, "the scheduler to check the link to the end", every=0.05)
    finally:
        task.cancel()
    stats = scheduler.stats
    assert stats["failures"] >= 1 and stats["scheduler errors"] == 0
    assert (await session.ledger.get(profile.id, "CLOSED-1")).state == "success"


async def test_a_deleted_profiles_link_is_never_checked_with_another_key(session, add_profile, monkeypatch):
    """Regression: a link of a deleted profile was checked with the active profile's key
    (another merchant's secret key was sent for it)."""
    first = await add_profile(merchant=0, name="First")
    second = await add_profile(merchant=1, name="Second")
    controller = LinksController(session, session.ledger)
    await session.switch_profile(first.id)
    record = await controller.create(request("FIRST-1"))
    await session.delete_profile(first.id)
    assert session.profile.id == second.id
    asked = []
    original = ServiceClient.validate

    async def spy(self, tx_ref):  # records which key asked for what; the real call runs
        asked.append((self._key, tx_ref))
        return await original(self, tx_ref)

    monkeypatch.setattr(ServiceClient, "validate", spy)
    with pytest.raises(StopWatching):
        await controller.check(record)
    assert asked == []


async def test_keys_go_only_over_https_or_to_this_computer(session, sandbox):
    remote = Profile(id=Profile.new_id(), name="Remote", base_url="http://pay.example.com/pay")
    await session.save_profile(remote, {("test", "secret"): "sec-test-" + "A" * 32})
    with pytest.raises(InsecureAddressError, match="only over https"):
        async with session.lease(remote, "test"):
            pass
    assert isinstance(InsecureAddressError("x"), ServiceError)
    local = Profile(id=Profile.new_id(), name="Local", base_url=sandbox.base_url.replace("127.0.0.1", "localhost"))
    await session.save_profile(local, {("test", "secret"): sandbox.key("test")})
    async with session.lease(local, "test") as client:
        assert client.base_url.startswith("http://localhost:")


@pytest.mark.sockets
async def test_a_lost_create_is_settled_in_the_background(session, add_profile, service, short_create_deadline):
    """Regression: a create whose answer was lost was settled only at the next start."""
    profile = await add_profile()
    controller = LinksController(session, session.ledger)
    service.faults(drop_after_commit_rate=1.0)
    with pytest.raises(ServiceError):
        await asyncio.wait_for(controller.create(request("LOST-1")), 120)
    assert (await session.ledger.get(profile.id, "LOST-1")).state == "creating"
    service.faults()
    scheduler = Scheduler(controller.check, controller.settle, pacing=Pacing(settle_first=0.1))
    task = asyncio.ensure_future(scheduler.run())
    try:
        for unsettled in await session.ledger.unsettled():
            scheduler.watch(unsettled)

        async def settled():
            return (await session.ledger.get(profile.id, "LOST-1")).state != "creating"

        await until_async(settled, 15, "the lost link to be settled", every=0.05)
    finally:
        task.cancel()
    settled = await session.ledger.get(profile.id, "LOST-1")
    assert settled.state == "pending" and settled.checkout_url
    assert service.payments("LOST-1") == 1
    async with httpx.AsyncClient() as http:
        assert (await http.get(settled.checkout_url)).status_code == 200


# -- the desk as build_desk wires it: its own scheduler, started by start_background ------


@pytest.mark.sockets
async def test_the_desks_scheduler_settles_a_lost_create_with_the_same_reference(
    desk, add_profile, service, until, short_create_deadline
):
    """What a window (or a headless receiver) does: create, lose the answer, and let the
    desk's background settle it: the same tx_ref, one payment at the service, never two."""
    profile = await add_profile()
    changed = []
    desk.hub.record_changed.connect(lambda r: changed.append((r.tx_ref, r.state)))
    desk.start_background()
    service.faults(drop_after_commit_rate=1.0)
    with pytest.raises(ServiceError):
        await asyncio.wait_for(desk.links.create(request("LOST-2")), 120)
    assert (await desk.session.ledger.get(profile.id, "LOST-2")).state == "creating"
    assert "LOST-2" in [r.tx_ref for r in desk.scheduler.watched()]  # heard on the hub
    service.faults()
    await until(lambda: ("LOST-2", "pending") in changed, timeout=60, message="the desk's scheduler to settle it")
    settled = await desk.session.ledger.get(profile.id, "LOST-2")
    assert settled.state == "pending" and settled.tx_ref == "LOST-2" and settled.checkout_url
    assert service.payments("LOST-2") == 1
    assert [s for t, s in changed if t == "LOST-2"][0] == "creating"  # written before it was sent


async def test_a_deleted_profiles_links_stop_being_checked_by_the_desk(desk, add_profile, service, until):
    """Deleting a profile ends the watching of its links (hub: profile_deleted); one seen
    again later is dropped at its first turn, and no key asks the service about it."""
    first = await add_profile(merchant=0, name="First")
    await add_profile(merchant=1, name="Second")
    await desk.session.switch_profile(first.id)
    record = await desk.links.create(request("FIRST-2"))
    desk.start_background()
    await until(lambda: record.key in [r.key for r in desk.scheduler.watched()], message="the link watched")
    asked_before = service.calls(merchant=0)
    await desk.session.delete_profile(first.id)
    assert desk.scheduler.watched() == []
    desk.scheduler.check_now(record)  # seen again (a view still showed it): checked at once
    await until(
        lambda: desk.scheduler.stats["checks"] >= 1 and not desk.scheduler.watched(), message="the scheduler to drop it"
    )
    await asyncio.sleep(0.2)
    assert service.calls(merchant=0) == asked_before  # not with its own (deleted) key
    assert not [p for p in service.calls(merchant=1) if "FIRST-2" in p]  # nor another's
    assert desk.scheduler.stats["scheduler errors"] == 0


async def test_a_claimed_reference_is_used_up_and_created_as_it_is(session, add_profile, service):
    """The counter draws its reference before it writes the sale (claim_reference), then
    creates the link with it (create(claimed=True)): the same reference, one number used."""
    profile = await add_profile()
    controller = LinksController(session, session.ledger)
    proposed = await controller.next_reference(profile)
    claimed = await controller.claim_reference(profile)
    assert claimed == proposed
    following = await controller.next_reference(profile)
    assert following != claimed  # its number is used up
    assert await controller.claim_reference(profile) == following
    record = await controller.create(request(claimed), claimed=True)
    assert record.tx_ref == claimed and service.payments(claimed) == 1
