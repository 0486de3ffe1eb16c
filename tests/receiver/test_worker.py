"""The re-read survives what goes wrong: a service that fails is asked again, with a pause
growing between tries, until it answers; the notification stays pending meanwhile."""

from __future__ import annotations

import asyncio

from paydesk.ledger.inbox import APPLIED, PENDING
from tests.receiver.conftest import php_body, request, signed


async def test_a_failing_service_is_asked_again_until_it_answers(desk, add_profile, service,
                                                                 receiver, sandbox, until):
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
