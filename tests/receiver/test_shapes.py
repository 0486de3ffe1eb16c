"""Both shapes the service family sends, as the sandbox sends them over real HTTP: the
document's ``{"event", "data"}`` envelope keyed with the mode's secret key (to the link's
callback_url, or the merchant's webhook URL), and the family's bare transaction object
keyed with the business's webhook secret. And a reference no ledger knows: kept as
"unknown reference", looked up, recorded when the service knows it."""

from __future__ import annotations

import asyncio

from paydesk.ledger.inbox import APPLIED, PENDING, UNKNOWN_REFERENCE
from tests import profiles
from tests.helpers import payment
from tests.receiver.conftest import entries, php_body, request, signed


async def _one_decided(desk, until, **query):
    async def found():
        kept = await entries(desk, **query)
        return kept[0] if kept and kept[0].verdict != PENDING else None

    return await until(found, message="a notification kept and decided")


async def test_the_sandboxs_envelope_to_the_callback_url(desk, add_profile, service, receiver, until):
    await add_profile()
    record = await desk.links.create(request("ENV-1", callback_url=receiver.url))
    await asyncio.to_thread(service.control, f"pay/{record.reference}", {"outcome": "success"})
    entry = await _one_decided(desk, until)
    assert (entry.verdict, entry.event, entry.tx_ref, entry.mode) == (APPLIED, "payment.completed", "ENV-1", "test"), (
        entry.detail
    )
    assert entry.body.startswith(b'{"event":"payment.completed"')
    assert "signature" in entry.headers and "authorization" not in entry.headers
    paid = await desk.session.ledger.get(record.profile_id, "ENV-1")
    assert (paid.state, paid.learned_by) == ("success", "notification")


async def test_the_sandboxs_envelope_to_the_merchants_webhook_url(desk, add_profile, service, receiver, sandbox, until):
    await add_profile()
    with sandbox.client() as c:  # the control API of the merchant's webhook URL
        c.put("/_sandbox/webhook", json={"url": receiver.url}).raise_for_status()
    record = await desk.links.create(request("ENV-2"))
    await asyncio.to_thread(service.control, f"pay/{record.reference}", {"outcome": "failed"})
    entry = await _one_decided(desk, until)
    assert (entry.verdict, entry.tx_ref) == (APPLIED, "ENV-2"), entry.detail
    failed = await desk.session.ledger.get(record.profile_id, "ENV-2")
    assert (failed.state, failed.learned_by) == ("failed", "notification")


async def test_the_familys_bare_body_keyed_with_the_webhook_secret(desk, receiver, make_sandbox, until):
    family = make_sandbox("family", family=True, webhook_url=receiver.url)
    profile = await profiles.add_profile(desk.session, family, txref_prefix="FAM", keys=profiles.SECRET_KEYS)
    await desk.keys.set(profile.id, "test", "webhook", family.webhook_secret())
    record = await desk.links.create(request("FAM-1", description="Green", logo="https://cdn.example/l.png"))
    with family.client() as c:
        c.post(f"/_sandbox/pay/{record.reference}", json={"outcome": "success"}).raise_for_status()
    entry = await _one_decided(desk, until)
    assert entry.event is None and b"\\/" in entry.body  # the bare body, as PHP wrote it
    # a webhook secret says no mode: the ledger's record says it
    assert (entry.verdict, entry.tx_ref, entry.mode, entry.profile_id) == (APPLIED, "FAM-1", "test", profile.id), (
        entry.detail
    )
    paid = await desk.session.ledger.get(profile.id, "FAM-1")
    assert (paid.state, paid.learned_by) == ("success", "notification")


async def test_an_unknown_reference_is_kept_and_looked_up(desk, add_profile, receiver, sandbox, until):
    profile = await add_profile()
    with sandbox.client() as c:  # made elsewhere (a website form): PayDesk never saw it
        url = c.post("/api/payment", json=payment("ELSEWHERE-1")).json()["data"]["checkout_url"]
        c.post(f"/_sandbox/pay/{url.rsplit('/', 1)[1]}", json={"outcome": "success"}).raise_for_status()
    key = sandbox.key("test", "secret")
    answer = await signed(receiver.url, php_body("ELSEWHERE-1"), key)
    assert answer.status_code == 200
    entry = await _one_decided(desk, until, text="ELSEWHERE-1")
    assert entry.verdict == UNKNOWN_REFERENCE and "now in the ledger" in entry.detail
    found = await desk.session.ledger.get(profile.id, "ELSEWHERE-1")
    assert (found.state, found.origin, found.learned_by) == ("success", "lookup", "notification")
    # a reference the service does not know either: kept, looked up, nothing recorded
    answer = await signed(receiver.url, php_body("NOWHERE-1"), key)
    entry = await _one_decided(desk, until, text="NOWHERE-1")
    assert entry.verdict == UNKNOWN_REFERENCE and "nothing recorded" in entry.detail
    assert await desk.session.ledger.get(profile.id, "NOWHERE-1") is None


async def test_junk_that_verifies_is_kept_and_ignored(desk, add_profile, receiver, sandbox, until):
    await add_profile()
    for body in (
        b'{"hello": "world"}',
        b"[1, 2, 3]",
        b"not json at all",
        b'{"event":"card.funded","data":{"card_hash":"x"}}',
    ):
        answer = await signed(receiver.url, body, sandbox.key("test", "secret"))
        assert answer.status_code == 200

    async def all_ignored():
        kept = await entries(desk)
        return len(kept) == 4 and all(e.verdict == "ignored" for e in kept)

    await until(all_ignored, message="four ignored notifications")
