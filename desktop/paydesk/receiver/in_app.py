"""The app's own receiver: when the embedded sandbox serves the active profile and the desk
writes into its own SQLite ledger, a receiver on loopback, its address given to the sandbox
as the merchant's webhook URL, so links turn PAID by notification with nothing to set up.
(On a shared ledger the shop's paydesk-receiver does this: docs/RECEIVER.md.)"""

from __future__ import annotations

import logging

from ..desk.build import Desk
from ..service.errors import ServiceError
from ..service.sandbox_control import set_webhook_url
from .serve import Receiver

log = logging.getLogger("paydesk.receiver")


async def serve_in_app(desk: Desk) -> Receiver | None:
    """Start the desk's receiver (once) and register it with the embedded sandbox; None when
    this desk does not need one. A failure is logged: polling still sees every payment."""
    session = desk.session
    profile = session.profile
    if (
        profile is None
        or not profile.embedded_sandbox
        or desk.live is not None
        or session.ledger_choice.url is not None
    ):
        return None
    if isinstance(desk.receiver, Receiver):
        receiver = desk.receiver
    else:
        receiver = Receiver(desk, "127.0.0.1", 0)
        receiver.profiles = set()  # none is notified here until the sandbox is told
        try:
            await receiver.start()
        except Exception:  # no receiver: the checks go on as before
            log.exception("the app's notification receiver did not start")
            await receiver.close()
            return None
        desk.receiver = receiver
        session.tasks.spawn(_forget_when_stopped(desk, receiver), "the app's receiver, watched")
    secret = await session.keys.get(profile.id, "test", "secret")
    if not secret:
        log.warning("no test secret key for %s: the sandbox is not told where to notify", profile.name)
        return receiver
    try:
        await set_webhook_url(profile.base_url, secret, receiver.url)
    except ServiceError as error:
        log.warning("the sandbox was not told where to notify: %s", error.message)
    else:
        log.info("the sandbox notifies %s", receiver.url)
        receiver.profiles = (receiver.profiles or set()) | {profile.id}  # (never None here)
    return receiver


async def _forget_when_stopped(desk: Desk, receiver: Receiver) -> None:
    """When the receiver's server stops of itself (a failure), the desk no longer counts on
    it: ``desk.receiver`` is cleared (the next switch to the sandbox's profile starts a new
    one) and its re-reads are ended; polling goes on as before."""
    error = await receiver.serving()
    if receiver.closing:
        return
    log.error("the app's notification receiver stopped: %s", error or "it ended of itself", exc_info=error)
    if desk.receiver is receiver:
        desk.receiver = None
    await receiver.close()


def follow_in_app(desk: Desk) -> None:
    """Start (and register) the app's receiver whenever the active profile becomes one on
    the embedded sandbox later in the session (the first run's choice, a profile switched
    to), not only at start-up."""

    def changed(*_: object) -> None:
        profile = desk.session.profile
        receiver = desk.receiver
        if profile is None or not profile.embedded_sandbox:
            return
        if isinstance(receiver, Receiver) and receiver.serves(profile.id):
            return
        desk.session.tasks.spawn(serve_in_app(desk), "the app's notification receiver")

    desk.hub.session_changed.connect(changed)
