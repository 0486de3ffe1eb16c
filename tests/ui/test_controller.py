"""The links controller and the session on their own (no window), against the sandbox, with
failures the sandbox cannot produce: the ledger locked by another program, a key that
vanished, a client replaced or closed in the middle of a call, two first calls at once."""

import asyncio
import sqlite3
import time
from decimal import Decimal

import httpx
import pytest

from paydesk.config.profiles import Profile
from paydesk.scheduler import Scheduler, StopWatching
from paydesk.service.client import ServiceClient
from paydesk.service.errors import ServiceError
from paydesk.service.models import PaymentRequest
from paydesk.ui.links.controller import LinksController
from paydesk.ui.session import InsecureAddressError, NoKeyError, Session
from tests.profiles import TEST_SECRET, use_profile
from tests.waiting import until_async


def add_profile(loop, session, sb, merchant=0, name="Shop"):
    """tests/profiles.py's profile, with the test secret key only."""
    return use_profile(loop, session, sb, merchant=merchant, name=name, txref_prefix="SHOP",
                       keys=TEST_SECRET)


def request(ref, amount=12):
    return PaymentRequest(amount=Decimal(amount), currency="GBP", email="kim@example.com",
                          first_name="Kim", last_name="Lee", tx_ref=ref, title="Tea")


def service_count(sb, tx_ref):
    with sqlite3.connect(sb.server.data_dir / "sandbox.sqlite3") as db:
        return db.execute("SELECT COUNT(*) FROM transactions WHERE tx_ref = ?", (tx_ref,)).fetchone()[0]


def test_a_busy_ledger_delays_a_create_and_loses_nothing(session, loop, sandbox):
    """Regression: a lock held past 5 s raised LedgerBusy inside a Qt slot (crash dialog)."""
    add_profile(loop, session, sandbox)
    controller = LinksController(session, session.ledger)
    busy = []
    session.ledgerBusy.connect(busy.append)
    loop.run(session.ledger.opened())
    other = sqlite3.connect(session.paths.data / "ledger.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # a second PayDesk, or a backup tool, holds the ledger
    create = loop.spawn(controller.create(request("BUSY-1")))
    loop.until(lambda: busy == [True], message="saving to say it is delayed")
    time.sleep(0.2)
    assert not create.done() and service_count(sandbox, "BUSY-1") == 0  # nothing sent yet
    other.execute("COMMIT")
    other.close()
    loop.until(create.done, message="the create")
    assert create.result().state == "pending" and busy == [True, False]
    assert service_count(sandbox, "BUSY-1") == 1


def test_a_vanished_key_is_a_typed_error_and_said(session, loop, sandbox, memory_keyring):
    profile = add_profile(loop, session, sandbox)
    controller = LinksController(session, session.ledger)
    record = loop.run(controller.create(request("KEY-1")))
    # the key is removed from the keyring behind PayDesk's back, and PayDesk starts again
    memory_keyring.store.clear()
    fresh = Session(session.paths, type(session.keys)(memory_keyring))
    loop.run(fresh.load())
    try:
        with pytest.raises(NoKeyError, match="No test secret key for Shop"):
            loop.run(LinksController(fresh, fresh.ledger).check(record))
        assert fresh.health.get(profile.id, "test").text().startswith("No test secret key")
    finally:
        loop.run(fresh.close())


def test_two_first_calls_share_one_client(session, loop, sandbox):
    """Regression: two concurrent first calls each made a client; one leaked, never closed."""
    profile = add_profile(loop, session, sandbox)
    made = []
    original = ServiceClient.__init__

    def counting(self, *args, **kwargs):  # a spy: the real constructor runs
        made.append(self)
        original(self, *args, **kwargs)

    async def both():
        async def one():
            async with session.lease(profile, "test") as client:
                await asyncio.sleep(0.05)
                return client

        return await asyncio.gather(one(), one())

    ServiceClient.__init__ = counting
    try:
        first, second = loop.run(both())
    finally:
        ServiceClient.__init__ = original
    assert first is second and len(made) == 1


def test_a_replaced_client_is_closed_after_its_call(session, loop, sandbox):
    profile = add_profile(loop, session, sandbox)
    controller = LinksController(session, session.ledger)
    record = loop.run(controller.create(request("SLOW-1")))
    sandbox.faults(latency_ms=800)

    async def check_while_the_profile_is_saved():
        async with session.lease(profile, "test") as old:
            pass
        checking = asyncio.ensure_future(controller.check(record))
        await asyncio.sleep(0.2)
        await session.save_profile(profile, {("test", "secret"): sandbox.key("test")})
        assert not old._http.is_closed  # its call is still running
        checked = await checking
        await asyncio.sleep(0.05)
        return old, checked

    old, checked = loop.run(check_while_the_profile_is_saved())
    assert checked.state == "pending" and old._http.is_closed


def test_a_client_closed_mid_call_does_not_stop_the_scheduler(session, loop, sandbox):
    """Regression: a client closed while it waited to retry ended the link scheduler."""
    profile = add_profile(loop, session, sandbox)
    controller = LinksController(session, session.ledger)
    record = loop.run(controller.create(request("CLOSED-1")))
    sandbox.faults(error_rate=1.0)  # every check fails and is retried by the client

    async def run():
        scheduler = Scheduler(controller.check, controller.settle, first_every=0.05,
                              retry_first=0.1, slowest=0.3)
        task = asyncio.ensure_future(scheduler.run())
        scheduler.watch(record)
        await asyncio.sleep(0.3)
        async with session.lease(profile, "test") as client:
            await client.aclose()  # closed under the scheduler's feet
        await asyncio.sleep(0.3)
        session._retire(profile.id)  # the session makes a new one on the next call
        sandbox.faults()
        with sandbox.client() as c:
            c.post(f"/_sandbox/pay/{record.reference}", json={"outcome": "success"}).raise_for_status()
        await until_async(lambda: not scheduler.watched(), 10,
                          "the scheduler to check the link to the end", every=0.05)
        task.cancel()
        return scheduler.stats

    stats = loop.run(run())
    assert stats["failures"] >= 1 and stats["scheduler errors"] == 0
    assert loop.run(session.ledger.get(profile.id, "CLOSED-1")).state == "success"


def test_a_deleted_profiles_link_is_never_checked_with_another_key(session, loop, sandbox):
    """Regression: a link of a deleted profile was checked with the active profile's key
    (another merchant's secret key was sent for it)."""
    first = add_profile(loop, session, sandbox, merchant=0, name="First")
    second = add_profile(loop, session, sandbox, merchant=1, name="Second")
    controller = LinksController(session, session.ledger)
    loop.run(session.switch_profile(first.id))
    record = loop.run(controller.create(request("FIRST-1")))
    loop.run(session.delete_profile(first.id))
    assert session.profile.id == second.id
    asked = []
    original = ServiceClient.validate

    async def spy(self, tx_ref):  # records which key asked for what; the real call runs
        asked.append((self._key, tx_ref))
        return await original(self, tx_ref)

    ServiceClient.validate = spy
    try:
        with pytest.raises(StopWatching):
            loop.run(controller.check(record))
    finally:
        ServiceClient.validate = original
    assert asked == []


def test_keys_go_only_over_https_or_to_this_computer(session, loop, sandbox):
    remote = Profile(id=Profile.new_id(), name="Remote", base_url="http://pay.example.com/pay")
    loop.run(session.save_profile(remote, {("test", "secret"): "sec-test-" + "A" * 32}))

    async def use():
        async with session.lease(remote, "test"):
            pass

    with pytest.raises(InsecureAddressError, match="only over https"):
        loop.run(use())
    assert isinstance(InsecureAddressError("x"), ServiceError)
    local = Profile(id=Profile.new_id(), name="Local", base_url=sandbox.base_url.replace(
        "127.0.0.1", "localhost"))
    loop.run(session.save_profile(local, {("test", "secret"): sandbox.key("test")}))

    async def works():
        async with session.lease(local, "test") as client:
            return client.base_url

    assert loop.run(works()).startswith("http://localhost:")


def test_a_lost_create_is_settled_in_the_background(session, loop, sandbox):
    """Regression: a create whose answer was lost was settled only at the next start."""
    profile = add_profile(loop, session, sandbox)
    controller = LinksController(session, session.ledger)
    sandbox.faults(drop_after_commit_rate=1.0)
    with pytest.raises(ServiceError):
        loop.run(controller.create(request("LOST-1")), timeout=120)
    assert loop.run(session.ledger.get(profile.id, "LOST-1")).state == "creating"
    sandbox.faults()

    async def settle_in_background():
        scheduler = Scheduler(controller.check, controller.settle, settle_first=0.1)
        task = asyncio.ensure_future(scheduler.run())
        for unsettled in await session.ledger.unsettled():
            scheduler.watch(unsettled)

        async def settled():
            return (await session.ledger.get(profile.id, "LOST-1")).state != "creating"

        await until_async(settled, 15, "the lost link to be settled", every=0.05)
        task.cancel()

    loop.run(settle_in_background())
    settled = loop.run(session.ledger.get(profile.id, "LOST-1"))
    assert settled.state == "pending" and settled.checkout_url
    assert service_count(sandbox, "LOST-1") == 1
    assert httpx.get(settled.checkout_url).status_code == 200
