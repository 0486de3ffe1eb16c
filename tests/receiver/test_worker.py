"""The re-read survives what goes wrong: a service that fails is asked again, with a pause
growing between tries, until it answers; the notification stays pending meanwhile. A re-read
that gave up is taken up again by the rescan of what is still pending, or at once when the
same notification is sent again."""

from __future__ import annotations

import asyncio
import logging

import pytest

from paydesk.ledger.inbox import APPLIED, DUPLICATE, PENDING
from paydesk.receiver import worker
from paydesk.receiver.serve import Receiver
from tests.receiver.conftest import php_body, request, signed


async def test_a_failing_service_is_asked_again_until_it_answers(desk, add_profile, service, receiver, sandbox, until):
    await add_profile()
    record = await desk.links.create(request("RETRY-1"))
    await asyncio.to_thread(service.control, f"pay/{record.reference}", {"outcome": "success"})
    service.faults(error_rate=1.0)  # every /api/ call fails
    answer = await signed(receiver.url, php_body("RETRY-1"), sandbox.key("test", "secret"))
    assert answer.status_code == 200  # answered at once: the re-read is after
    entry_id = answer.json()["id"]

    async def failed_twice():
        with sandbox.client() as c:
            calls = c.get("/_sandbox/requests").json()["data"]
        return len([call for call in calls if "RETRY-1" in call["path"]]) >= 2

    await until(failed_twice, message="two failed look-ups")
    assert (await desk.inbox.get(entry_id)).verdict == PENDING
    assert (await desk.session.ledger.get(record.profile_id, "RETRY-1")).state == "pending"
    service.faults()  # the service is back

    async def decided():
        entry = await desk.inbox.get(entry_id)
        return entry if entry.verdict != PENDING else None

    entry = await until(decided, 30, "the notification decided")
    assert entry.verdict == APPLIED
    assert (await desk.session.ledger.get(record.profile_id, "RETRY-1")).state == "success"


@pytest.fixture
async def giving_up(desk, monkeypatch, caplog):
    """``await giving_up(rescan_every)``: the desk's receiver, started, whose re-read gives
    up after 2 quick tries (8 over about a minute, as it runs); closed after."""
    monkeypatch.setattr(worker, "FIRST_PAUSE", 0.05)
    caplog.set_level(logging.INFO, "paydesk.receiver")
    made = []

    async def start(rescan_every: float) -> Receiver:
        monkeypatch.setattr(worker, "ATTEMPTS", 2)
        monkeypatch.setattr(worker, "RESCAN_EVERY", rescan_every, raising=False)
        receiver = Receiver(desk, "127.0.0.1", 0)
        await receiver.start()
        desk.receiver = receiver
        made.append(receiver)
        return receiver

    yield start
    for receiver in made:
        await receiver.close()
    desk.receiver = None


async def _given_up(sandbox, desk, tx_ref, receiver, caplog):
    """Paid at the service, which then fails every call; the notification sent, answered,
    and its re-read given up (as it says in the log)."""
    record = await desk.links.create(request(tx_ref))
    await asyncio.to_thread(sandbox.control, f"pay/{record.reference}", {"outcome": "success"})
    sandbox.faults(error_rate=1.0)
    body = php_body(tx_ref)
    answer = await signed(receiver.url, body, sandbox.key("test", "secret"))
    assert answer.status_code == 200
    entry_id = answer.json()["id"]
    said = f"notification {entry_id} ({tx_ref}): not looked up after 2 tries"
    for _ in range(300):
        if said in caplog.text:
            break
        await asyncio.sleep(0.05)
    assert said in caplog.text
    assert (await desk.inbox.get(entry_id)).verdict == PENDING
    return record, body, entry_id


async def test_a_reread_that_gave_up_is_taken_up_by_the_rescan(desk, add_profile, sandbox, giving_up, until, caplog):
    await add_profile()
    receiver = await giving_up(rescan_every=1.0)
    record, _, entry_id = await _given_up(sandbox, desk, "RESCAN-1", receiver, caplog)
    sandbox.faults()  # the service is back; nobody sends anything again

    async def decided():
        entry = await desk.inbox.get(entry_id)
        return entry if entry.verdict != PENDING else None

    entry = await until(decided, 15, "the notification decided by a rescan")
    assert entry.verdict == APPLIED
    assert (await desk.session.ledger.get(record.profile_id, "RESCAN-1")).state == "success"


async def test_the_same_notification_again_takes_up_a_reread_that_gave_up(
    desk, add_profile, sandbox, giving_up, until, caplog
):
    await add_profile()
    receiver = await giving_up(rescan_every=3600.0)  # no rescan within the test
    key = sandbox.key("test", "secret")
    record, body, entry_id = await _given_up(sandbox, desk, "AGAIN-1", receiver, caplog)
    sandbox.faults()
    again = await signed(receiver.url, body, key)  # the sender tries again
    assert again.status_code == 200 and again.json()["verdict"] == DUPLICATE

    async def decided():
        entry = await desk.inbox.get(entry_id)
        return entry if entry.verdict != PENDING else None

    entry = await until(decided, 15, "the original decided")
    assert entry.verdict == APPLIED
    assert (await desk.session.ledger.get(record.profile_id, "AGAIN-1")).state == "success"
