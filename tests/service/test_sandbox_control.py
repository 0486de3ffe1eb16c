"""The sandbox's control API as PayDesk calls it (service/sandbox_control.py), against a
real sandbox over HTTP: pay a payment, read what was sent, tell a sandbox from a service."""

import asyncio

import httpx
import pytest

from paydesk.service import sandbox_control
from paydesk.service.errors import AuthenticationError, ServiceError
from tests.helpers import payment


def _link(sandbox, tx_ref: str, **over) -> str:
    """A payment made on the sandbox; its service reference (from the checkout URL)."""
    with sandbox.client() as c:
        answer = c.post("/api/payment", json=payment(tx_ref, **over))
        answer.raise_for_status()
        return answer.json()["data"]["checkout_url"].rsplit("/", 1)[1]


async def test_pay_and_what_was_sent(sandbox, listener):
    reference = _link(sandbox, "CTL-1", callback_url=listener.url)
    paid = await sandbox_control.pay(sandbox.base_url, sandbox.key(), reference)
    assert paid["status"] == "success" and paid["tx_ref"] == "CTL-1"
    sent = []
    for _ in range(100):
        sent = await sandbox_control.notifications(sandbox.base_url, sandbox.key())
        if sent:
            break
        await asyncio.sleep(0.05)
    assert sent[0]["url"] == listener.url and sent[0]["status_code"] == 200
    assert sent[0]["body"]["data"]["tx_ref"] == "CTL-1"
    with pytest.raises(ServiceError) as twice:  # paid already: refused, in words
        await sandbox_control.pay(sandbox.base_url, sandbox.key(), reference)
    assert twice.value.status == 409


async def test_a_wrong_key_is_refused_and_never_shown(sandbox):
    wrong = "sk_test_" + "x" * 40
    with pytest.raises(AuthenticationError) as refused:
        await sandbox_control.notifications(sandbox.base_url, wrong)
    assert wrong not in str(refused.value) and wrong not in repr(refused.value)


async def test_is_sandbox(sandbox):
    assert await sandbox_control.is_sandbox(sandbox.base_url, sandbox.key())
    assert not await sandbox_control.is_sandbox(sandbox.base_url, "sk_test_" + "y" * 40)
    # a web server without the control API (what a real service is to it): not a sandbox
    assert not await sandbox_control.is_sandbox(sandbox.base_url + "/elsewhere", sandbox.key())
    closed = httpx.URL(sandbox.base_url).copy_with(port=1)
    assert not await sandbox_control.is_sandbox(str(closed), sandbox.key())
