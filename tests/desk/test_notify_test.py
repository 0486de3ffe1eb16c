"""Send a test notification (desk/notify_test.py), Qt-free, against a real sandbox over HTTP:
where the path breaks is said in words, and the test is only run where it can be."""

from dataclasses import replace

import httpx
import pytest

from paydesk.desk.notify_test import TITLE, NotificationTest
from tests.helpers import free_port


@pytest.fixture
def tester(desk):
    return NotificationTest(desk.session, desk.links, desk.inbox, wait=3.0, send_wait=1.0)


async def test_nothing_sent_is_said(session, add_profile, tester):
    await add_profile()
    assert await tester.offered()
    outcome = await tester.run()
    assert not outcome.ok and outcome.step == "send"
    assert outcome.text.startswith("The service did not send a notification")
    # the test link was made the normal way: in the ledger, in test mode, with its title
    record = await session.ledger.get(session.profile.id, outcome.tx_ref)
    assert record.mode == "test" and record.customization.get("title") == TITLE


async def test_a_receiver_out_of_reach_is_named(add_profile, tester):
    closed = f"http://127.0.0.1:{free_port()}/notifications"
    await add_profile(callback_url=closed)
    outcome = await tester.run()
    assert not outcome.ok and outcome.step == "deliver"
    assert outcome.text.startswith(f"The service could not reach the receiver at {closed}: ")


async def test_an_answer_with_nothing_kept_is_said(add_profile, tester, listener):
    """Something answers 200 at the address, but nothing reaches this desk's inbox."""
    await add_profile(callback_url=listener.url)
    outcome = await tester.run()
    assert not outcome.ok and outcome.step == "inbox"
    assert f"The receiver at {listener.url} answered" in outcome.text
    assert listener.received  # it was sent there, signed
    assert listener.received[0]["headers"].get("Signature")


async def test_offered_only_on_the_sandbox_in_test_mode(session, add_profile, sandbox, tester):
    profile = await add_profile()
    await session.set_mode("live")
    outcome = await tester.run()
    assert (outcome.ok, outcome.step) == (False, "offer") and "test mode" in outcome.text
    await session.set_mode("test")
    # a service without the sandbox's control API: not offered
    other = replace(profile, base_url=sandbox.base_url + "/not-a-sandbox")
    assert not await tester.offered(other)
    assert await tester.offered(profile)
    with httpx.Client() as http:  # (the sandbox answers 404 there, as a real service would)
        assert http.get(other.base_url + "/_sandbox/notifications").status_code == 404
