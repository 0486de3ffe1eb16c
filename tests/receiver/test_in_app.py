"""The app's own receiver: on the embedded sandbox with the desk's own ledger, a receiver on
loopback whose address the sandbox is given, so a payment turns PAID by notification with
nothing set up (the desk's polling is not started here: only the notification can do it)."""

from __future__ import annotations

import httpx

from paydesk.receiver.in_app import serve_in_app
from tests.receiver.conftest import request


async def test_the_embedded_sandbox_notifies_the_apps_receiver(desk, until):
    profile = await desk.session.start_embedded_sandbox()
    receiver = await serve_in_app(desk)
    assert receiver is not None and desk.receiver is receiver
    assert receiver.url.startswith("http://127.0.0.1:")
    secret = await desk.keys.get(profile.id, "test", "secret")
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {secret}"}) as client:
        said = (await client.get(profile.base_url.rstrip("/") + "/_sandbox/webhook")).json()
        assert said["data"]["url"] == receiver.url
        record = await desk.links.create(request("APP-1"))
        paid = await client.post(
            profile.base_url.rstrip("/") + f"/_sandbox/pay/{record.reference}", json={"outcome": "success"}
        )
        paid.raise_for_status()

    async def learned():
        now = await desk.session.ledger.get(profile.id, "APP-1")
        return now if now.state == "success" else None

    now = await until(learned, message="APP-1 paid")
    assert now.learned_by == "notification"
    assert await serve_in_app(desk) is receiver  # once


async def test_no_receiver_for_a_profile_elsewhere(desk, add_profile):
    await add_profile()
    assert await serve_in_app(desk) is None and desk.receiver is None


async def test_the_apps_receiver_serves_only_the_embedded_sandbox_and_follows_a_switch(desk, add_profile, until):
    """The receiver is registered for the embedded sandbox's profile alone (a profile on
    another service is not notified here), and a switch to the sandbox's profile later in the
    session starts the receiver then."""
    from paydesk.receiver.in_app import follow_in_app

    elsewhere = await add_profile()  # a service that does not notify this receiver
    assert await serve_in_app(desk) is None
    follow_in_app(desk)
    profile = await desk.session.start_embedded_sandbox()
    await desk.session.switch_profile(profile.id)
    await until(
        lambda: desk.receiver is not None and desk.receiver.serves(profile.id),
        message="the app's receiver started for the sandbox's profile",
    )
    assert not desk.receiver.serves(elsewhere.id)


async def test_the_apps_receiver_is_forgotten_when_its_server_stops(desk, until):
    """A server that stops of itself (not closed) is no receiver: the desk no longer counts
    on it, and its re-reads end; polling goes on as before."""
    await desk.session.start_embedded_sandbox()
    receiver = await serve_in_app(desk)
    assert receiver is not None and desk.receiver is receiver
    receiver._server.should_exit = True  # uvicorn's server ends, as when it fails
    await until(lambda: desk.receiver is None, message="the stopped receiver forgotten")
    await until(lambda: receiver.tasks.closed or len(receiver.tasks) == 0, message="its re-reads ended")
