"""Send a test notification (desk/notify_test.py), Qt-free, against a real sandbox over HTTP:
where the path breaks is said in words, and the test is only run where it can be."""

from dataclasses import replace

import httpx
import pytest

from paydesk.desk.notify_test import TITLE, NotificationTest
from tests import profiles
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
    async with httpx.AsyncClient() as http:  # (the sandbox answers 404 there, as a real service would)
        assert (await http.get(other.base_url + "/_sandbox/notifications")).status_code == 404


@pytest.fixture
async def receiving(desk):
    """``await receiving(sb)``: a receiver of ``desk`` on loopback (as the app runs one), its
    address given to the sandbox ``sb`` as the merchant's webhook URL; closed after."""
    from paydesk.receiver.serve import Receiver
    from paydesk.service.sandbox_control import set_webhook_url

    started = []

    async def start(sb):
        receiver = Receiver(desk, "127.0.0.1", 0)
        await receiver.start()
        started.append(receiver)
        await set_webhook_url(sb.base_url, sb.key(), receiver.url)
        return receiver

    yield start
    for receiver in started:
        await receiver.close()


async def test_notifications_work(session, add_profile, sandbox, tester, receiving):
    await add_profile()
    await receiving(sandbox)
    outcome = await tester.run()
    assert outcome.ok and outcome.step == "done", outcome.text
    assert outcome.text == f"Notifications work: PAID in {outcome.millis} ms"
    record = await session.ledger.get(session.profile.id, outcome.tx_ref)
    assert record.state == "success" and record.learned_by == "notification"


async def test_the_familys_webhook_secret_decides(session, make_sandbox, tester, receiving):
    """The family signs with the business's webhook secret: without it (or with another)
    the receiver refuses the notification, and the test says the keys differ; with it, it
    works."""
    family = make_sandbox("family", family=True, base_path="/pay")
    profile = await profiles.add_profile(
        session, family, name="Family shop", txref_prefix="FAM", keys=profiles.SECRET_KEYS, discover=True
    )
    keys = profiles.keys_of(family, profiles.SECRET_KEYS)
    # as the profile editor saves it
    await session.save_profile(profile, {**keys, ("test", "webhook"): "not-the-webhook-secret"})
    await receiving(family)
    outcome = await tester.run()
    assert not outcome.ok
    assert outcome.text == "The receiver refused it: bad signature (the keys differ)"
    await session.save_profile(profile, {**keys, ("test", "webhook"): family.webhook_secret()})
    outcome = await tester.run()
    assert outcome.ok and outcome.text.startswith("Notifications work: PAID in "), outcome.text
