"""A notification is believed only when a key PayDesk holds signed its raw bytes: forged,
truncated, re-serialised and other merchants' signatures are refused and nothing is
recorded; the key that verifies decides the mode; a replay changes nothing; a final state
never moves back."""

from __future__ import annotations

import asyncio
import json

from paydesk.ledger.inbox import (
    APPLIED,
    BAD_SIGNATURE,
    DUPLICATE,
    NO_SIGNATURE,
    PENDING,
    STALE,
    UNKNOWN_REFERENCE,
    InboxQuery,
)
from paydesk.receiver.signature import sign
from tests.receiver.conftest import entries, php_body, post, request, signed


async def _paid_quietly(desk, service, tx_ref, mode="test"):
    """A link in the ledger, paid at the service, no notification sent: the ledger still
    says pending, so only a believed notification (and its re-read) can move it."""
    record = await desk.links.create(request(tx_ref))
    await asyncio.to_thread(service.sb.control, f"pay/{record.reference}", {"outcome": "success"}, 0, mode)
    return record


async def _decided(desk, until, entry_id):
    async def done():
        entry = await desk.inbox.get(entry_id)
        return entry if entry is not None and entry.verdict != PENDING else None

    return await until(done, message=f"notification {entry_id} decided")


async def test_forged_truncated_reserialised_and_other_merchants_signatures_record_nothing(
    desk, add_profile, service, receiver, sandbox, until
):
    await add_profile()
    record = await _paid_quietly(desk, service, "SIG-1")
    before = await desk.session.ledger.get(record.profile_id, "SIG-1")
    key = sandbox.key("test", "secret")
    body = php_body("SIG-1")
    reserialised = json.dumps(json.loads(body)).encode()  # the same JSON, other bytes
    assert reserialised != body
    attempts = {
        "forged": (body, sign(body, "sk_test_" + "0" * 32)),
        "signed with a public key": (body, sign(body, sandbox.key("test", "public"))),
        "truncated signature": (body, sign(body, key)[:-2]),
        "truncated body": (body[:-5], sign(body, key)),
        "re-serialised body": (reserialised, sign(body, key)),
        "re-serialised and signed as such by another": (reserialised, sign(reserialised, "not the key")),
        "other merchant": (body, sign(body, sandbox.key("test", "secret", merchant=1))),
        "other merchant's live key": (body, sign(body, sandbox.key("live", "secret", 1))),
        "empty signature": (body, ""),
        "no signature": (body, None),
    }
    for what, (sent, signature) in attempts.items():
        answer = await post(receiver.url, sent, signature)
        assert answer.status_code == 401, what
    await asyncio.sleep(0.3)  # anything queued would have run by now
    assert await entries(desk) == []  # refused: never kept, only traced
    traced = await desk.inbox.refused_page()
    assert len(traced) == len(attempts)
    assert [t.reason for t in traced] == [NO_SIGNATURE, NO_SIGNATURE, *[BAD_SIGNATURE] * 8]
    after = await desk.session.ledger.get(record.profile_id, "SIG-1")
    assert after == before and after.state == "pending" and after.learned_by is None
    # the same body, signed with the key: believed, looked up, recorded
    answer = await signed(receiver.url, body, key)
    assert answer.status_code == 200
    entry = await _decided(desk, until, answer.json()["id"])
    assert (entry.verdict, entry.mode, entry.tx_ref) == (APPLIED, "test", "SIG-1")
    paid = await desk.session.ledger.get(record.profile_id, "SIG-1")
    assert paid.state == "success" and paid.learned_by == "notification"


async def test_the_key_that_verifies_decides_the_mode(desk, add_profile, service, receiver, sandbox, until):
    await add_profile()
    await desk.session.set_mode("live")
    live = await _paid_quietly(desk, service, "LIVE-1", mode="live")
    await desk.session.set_mode("test")
    test = await _paid_quietly(desk, service, "TEST-1")
    # the live record named in a body signed with the TEST key: looked up in test mode only
    answer = await signed(receiver.url, php_body("LIVE-1"), sandbox.key("test", "secret"))
    entry = await _decided(desk, until, answer.json()["id"])
    assert (entry.verdict, entry.mode) == (UNKNOWN_REFERENCE, "test"), entry.detail
    assert (await desk.session.ledger.get(live.profile_id, "LIVE-1")).state == "pending"
    # signed with the live key: the live record, and nothing of test mode
    answer = await signed(receiver.url, php_body("LIVE-1", "whatever"), sandbox.key("live", "secret"))
    entry = await _decided(desk, until, answer.json()["id"])
    assert (entry.verdict, entry.mode) == (APPLIED, "live")
    record = await desk.session.ledger.get(live.profile_id, "LIVE-1")
    assert (record.mode, record.state, record.learned_by) == ("live", "success", "notification")
    assert (await desk.session.ledger.get(test.profile_id, "TEST-1")).state == "pending"
    assert await desk.inbox.count(InboxQuery(mode="live")) == 1


async def test_a_replay_is_a_duplicate_and_changes_nothing(desk, add_profile, service, receiver, sandbox, until):
    await add_profile()
    record = await _paid_quietly(desk, service, "REPLAY-1")
    body, key = php_body("REPLAY-1"), sandbox.key("test", "secret")
    first = await signed(receiver.url, body, key)
    original = await _decided(desk, until, first.json()["id"])
    assert original.verdict == APPLIED
    settled = await desk.session.ledger.get(record.profile_id, "REPLAY-1")
    for _ in range(3):
        again = await signed(receiver.url, body, key)
        assert again.status_code == 200 and again.json()["verdict"] == DUPLICATE
    await asyncio.sleep(0.3)
    duplicates = await entries(desk, verdict=DUPLICATE)
    assert len(duplicates) == 3 and {e.duplicate_of for e in duplicates} == {original.id}
    assert await desk.session.ledger.get(record.profile_id, "REPLAY-1") == settled
    assert (await desk.inbox.get(original.id)).verdict == APPLIED


async def test_a_final_state_never_moves_back(desk, add_profile, service, receiver, sandbox, until):
    await add_profile()
    record = await _paid_quietly(desk, service, "FINAL-1")
    key = sandbox.key("test", "secret")
    paid = await _decided(desk, until, (await signed(receiver.url, php_body("FINAL-1"), key)).json()["id"])
    assert paid.verdict == APPLIED
    # a later notification claiming it failed: the service is asked, not the body
    answer = await signed(receiver.url, php_body("FINAL-1", "failed"), key)
    later = await _decided(desk, until, answer.json()["id"])
    assert later.verdict == STALE, later.detail
    assert (await desk.session.ledger.get(record.profile_id, "FINAL-1")).state == "success"
