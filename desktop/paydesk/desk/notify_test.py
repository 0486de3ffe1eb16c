"""Send a test notification: prove the whole path for a profile on the sandbox (the
service, the receiver, the ledger, the screen) and say in words where it broke.

A small test-mode link ("PayDesk notification test") is made through the desk's normal
create path, paid through the sandbox's control API, then each step is watched with a
timeout: the service's attempt (``GET _sandbox/notifications``), the receiver's answer,
the inbox entry, the record PAID and learned by notification (heard on the hub, as every
view hears it). Qt-free; the window shows the ``Outcome``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..config.profiles import Profile
from ..i18n import _
from ..ledger import LedgerError, LinkRecord
from ..ledger.inbox import PENDING, Inbox, InboxEntry, InboxQuery
from ..service import sandbox_control
from ..service.errors import ServiceError
from ..service.models import PaymentRequest
from .events import Hub
from .inbox_words import VERDICT_WORDS
from .links import LinksController
from .session import Session
from .staff import Capability

log = logging.getLogger("paydesk.notify_test")
TITLE = "PayDesk notification test"  # the test link's title: data sent to the service, as it is
LAST_NAME = "Test"  # the test link's customer at the service: data, as it is
AMOUNT = Decimal("1.00")
WAIT = 10.0  # seconds from the payment to the record PAID, at most
SEND_WAIT = 3.0  # seconds for the service to try a first time
POLL = 0.25  # seconds between looks at what the sandbox sent


@dataclass(frozen=True)
class Outcome:
    ok: bool
    text: str  # in words: "Notifications work: PAID in 84 ms", or where it broke
    step: str  # where it ended: "offer", "create", "pay", "send", "deliver", "inbox", "record", "done"
    tx_ref: str | None = None
    millis: int | None = None  # from the payment to the record PAID (when it was)


def _names(attempt: Mapping[str, Any]) -> str | None:
    """The merchant's reference a notification the sandbox logged is about (either shape:
    the document's {"event", "data"} envelope, or the family's bare transaction)."""
    body = attempt.get("body")
    if isinstance(body, dict):
        data = body.get("data", body)
        if isinstance(data, dict) and isinstance(data.get("tx_ref"), str):
            return data["tx_ref"]
    return None


def _delivered(attempt: Mapping[str, Any]) -> bool:
    status = attempt.get("status_code")
    return isinstance(status, int) and 200 <= status < 300


def attempt_words(attempt: Mapping[str, Any]) -> str:
    """What went wrong with one attempt of the service, in words."""
    url, status = attempt.get("url") or "?", attempt.get("status_code")
    if status is None:
        why = str(attempt.get("error") or _("no answer"))
        return _("The service could not reach the receiver at {url}: {why}").format(url=url, why=why)
    if status == 401:
        return _("The receiver refused it: bad signature (the keys differ)")
    return _("The receiver at {url} answered {status}").format(url=url, status=status)


class NotificationTest:
    """``await NotificationTest(session, links, inbox).run()``: the active profile, in test
    mode, on the sandbox."""

    def __init__(
        self,
        session: Session,
        links: LinksController,
        inbox: Inbox,
        *,
        wait: float = WAIT,
        send_wait: float = SEND_WAIT,
    ):
        self.session, self.links, self.inbox = session, links, inbox
        self.hub: Hub = session.hub
        self.wait, self.send_wait = wait, send_wait

    async def offered(self, profile: Profile | None = None) -> bool:
        """Whether the test can run for ``profile`` (default: the active one): its service
        is the sandbox (it has the control API) and it has a test secret key."""
        profile = profile or self.session.profile
        if profile is None:
            return False
        secret = await self.session.keys.get(profile.id, "test", "secret")
        return secret is not None and await sandbox_control.is_sandbox(profile.base_url, secret)

    async def run(self) -> Outcome:
        """Make a test link, pay it in the sandbox, wait for its notification (a profile's
        set-up: refused unless the person may change profiles)."""
        self.session.staff.require(Capability.PROFILES)
        profile = self.session.profile
        if profile is None:
            return Outcome(False, _("Add a profile first"), "offer")
        if self.session.mode != "test":
            return Outcome(False, _("Switch to test mode: the test pays a test link"), "offer")
        secret = await self.session.keys.get(profile.id, "test", "secret")
        if not secret or not await sandbox_control.is_sandbox(profile.base_url, secret):
            return Outcome(
                False,
                _(
                    "The test needs a profile on the sandbox, with its test "
                    "secret key: a real service cannot be told to pay"
                ),
                "offer",
            )
        paid: asyncio.Future[tuple[LinkRecord, float]] = asyncio.get_running_loop().create_future()
        key: list[tuple[str, str]] = []

        def heard(record: LinkRecord) -> None:
            if key and record.key == key[0] and record.state == "success" and not paid.done():
                paid.set_result((record, time.perf_counter()))

        self.hub.record_changed.connect(heard)
        try:
            return await self._run(profile, secret, key, paid)
        finally:
            self.hub.record_changed.disconnect(heard)

    async def _run(
        self, profile: Profile, secret: str, key: list[tuple[str, str]], paid: asyncio.Future[tuple[LinkRecord, float]]
    ) -> Outcome:
        request = PaymentRequest(
            amount=AMOUNT,
            currency=profile.currencies[0] if profile.currencies else "GBP",
            email="notification-test@example.com",
            first_name="PayDesk",
            last_name=LAST_NAME,
            tx_ref=await self.links.next_reference(profile),
            title=TITLE,
            description=TITLE,
            callback_url=profile.callback_url or None,
        )
        try:
            self.session.refuse_while_down()  # a shared ledger out of reach: nothing is sent
            record = await self.links.create_as(profile, "test", request)
        except ServiceError as error:
            return Outcome(False, _("The test link could not be made: {error}").format(error=str(error)), "create")
        except LedgerError as error:  # a shared ledger out of reach: nothing was sent
            return Outcome(False, _("The test link could not be made: {error}").format(error=error), "create")
        key.append(record.key)
        tx_ref = record.tx_ref
        reference = (record.checkout_url or "").rstrip("/").rsplit("/", 1)[-1]
        if not reference:
            return Outcome(False, _("The test link has no checkout address to pay"), "create", tx_ref)
        started = time.perf_counter()
        try:
            await sandbox_control.pay(profile.base_url, secret, reference)
        except ServiceError as error:
            return Outcome(
                False, _("The sandbox could not pay the test link: {error}").format(error=str(error)), "pay", tx_ref
            )
        attempts = await self._watch(profile, secret, tx_ref, paid)
        by_check = None
        if paid.done():
            record, at = paid.result()
            millis = round((at - started) * 1000)
            if record.learned_by == "notification":
                return Outcome(True, _("Notifications work: PAID in {ms} ms").format(ms=millis), "done", tx_ref, millis)
            by_check = millis
        return await self._broken(tx_ref, attempts, by_check)

    async def _watch(
        self, profile: Profile, secret: str, tx_ref: str, paid: asyncio.Future[tuple[LinkRecord, float]]
    ) -> list[dict[str, Any]]:
        """Until the record is PAID by the notification, or ``wait`` is over, or it is plain
        that it never will be (nothing sent in ``send_wait``; a bad signature; PAID learned
        by a check and the notification decided since): what the sandbox sent for it."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        attempts: list[dict[str, Any]] = []
        while loop.time() - start < self.wait:
            if paid.done() and paid.result()[0].learned_by == "notification":
                break
            await asyncio.wait({paid}, timeout=POLL)
            if paid.done() and paid.result()[0].learned_by == "notification":
                break
            try:
                sent = await sandbox_control.notifications(profile.base_url, secret)
            except ServiceError as error:
                log.info("could not read what the sandbox sent: %s", error)
                continue
            attempts = [a for a in sent if _names(a) == tx_ref]
            if not attempts and loop.time() - start > self.send_wait:
                break  # nothing sent: it will not be
            if any(a.get("status_code") == 401 for a in attempts):
                break  # refused for its signature: a retry is refused as well
            if paid.done() and any(_delivered(a) for a in attempts):
                entries = await self._entries(tx_ref)
                if entries and all(e.verdict != PENDING for e in entries):
                    break  # a check was first; the notification was decided since
        return attempts

    async def _broken(self, tx_ref: str, attempts: list[dict[str, Any]], by_check: int | None) -> Outcome:
        """Where the path broke (``by_check``: PAID was learned by a check, in so many ms)."""
        if not attempts:
            return Outcome(
                False,
                _(
                    "The service did not send a notification (is a receiver's address set as the "
                    "merchant's webhook URL?)"
                ),
                "send",
                tx_ref,
            )
        if not any(_delivered(a) for a in attempts):
            return Outcome(False, attempt_words(attempts[-1]), "deliver", tx_ref)
        url = next(a.get("url") for a in attempts if _delivered(a))
        entries = await self._entries(tx_ref)
        if not entries:
            return Outcome(
                False,
                _(
                    "The receiver at {url} answered, but this desk's inbox has "
                    "nothing for the test link (another program, or another "
                    "ledger?)"
                ).format(url=url),
                "inbox",
                tx_ref,
            )
        if by_check is not None and all(e.verdict != PENDING for e in entries):
            verdict = (
                _(VERDICT_WORDS[entries[0].verdict]).lower()
                if entries[0].verdict in VERDICT_WORDS
                else entries[0].verdict
            )
            return Outcome(
                True,
                _(
                    "Notifications work, but a check learned PAID first this "
                    "time ({ms} ms; the notification: {verdict})"
                ).format(ms=by_check, verdict=verdict),
                "done",
                tx_ref,
                by_check,
            )
        if all(e.verdict == PENDING for e in entries):
            return Outcome(
                False,
                _(
                    "The record was not updated: the receiver kept the notification but has not "
                    "looked the payment up yet"
                ),
                "record",
                tx_ref,
            )
        detail = next((e.detail for e in entries if e.detail), "")
        said = (
            _("The record was not updated: {detail}").format(detail=detail)
            if detail
            else _("The record was not updated")
        )
        return Outcome(False, said, "record", tx_ref)

    async def _entries(self, tx_ref: str) -> list[InboxEntry]:
        entries = await self.inbox.page(InboxQuery(text=tx_ref), limit=20)
        return [e for e in entries if e.tx_ref == tx_ref]
