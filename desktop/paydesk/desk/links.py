"""Creating and checking links: caller -> these async methods -> service -> ledger -> event.

Every method works on the profile a record belongs to (never the active one by default):
a link of a deleted profile stops being checked; it is never sent with another's key.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from ..config.profiles import Profile
from ..i18n import N_, _
from ..ledger import DuplicateReference, Fence, Ledger, LedgerError, LinkRecord
from ..service.call_class import CallClass, calls_as
from ..service.errors import (
    AuthenticationError,
    DuplicateReferenceError,
    ServiceError,
    UnexpectedAnswerError,
    ValidationError,
)
from ..service.models import PaymentLink, PaymentRequest
from ..service.txref import TxRefError, TxRefGenerator
from .scheduler import StopWatching
from .session import Session
from .staff import Capability
from .states import state_words
from .texts import ledger_words

if TYPE_CHECKING:
    from ..service.client import ServiceClient

log = logging.getLogger("paydesk.links")
# a record's error the ledger keeps in English (machine-readable), shown translated
ANOTHER_PAYMENT = N_("The service has this reference for another payment")


class Signed(enum.Enum):
    """``create``'s default actor: the person signed in when it is called."""

    IN = "signed-in"


SIGNED_IN = Signed.IN


class LocalDuplicate(ValidationError):
    def __init__(self, tx_ref: str):
        super().__init__(
            _("This reference is already in PayDesk's ledger: use a new one"),
            {"tx_ref": [_("already used here: generate a new reference")]},
        )


class LinksController:
    """Says every change on the hub: ``record_changed`` (a LinkRecord whose content or state
    changed) and ``record_settled`` (one that just reached a final state)."""

    def __init__(self, session: Session, ledger: Ledger):
        self.session = session
        self.hub = session.hub
        self.ledger = ledger
        self.creating: set[tuple[str, str]] = set()  # creates under way here (not to settle)

    # -- references -----------------------------------------------------------------------

    @staticmethod
    def _today() -> date:
        return datetime.now(UTC).date()

    def _reference(self, profile: Profile, day: date, sequence: int) -> str:
        """The reference of ``sequence`` on ``day``; TxRefError (in the staff's language) when
        the profile's prefix cannot make one."""
        try:
            maker = TxRefGenerator(
                profile.txref_prefix, self.session.installation_id, lambda _day: sequence, lambda: day
            )
        except TxRefError as error:  # the service layer's sentence, in the staff's language
            raise TxRefError(_(str(error))) from None
        return maker.next()

    async def next_reference(self, profile: Profile) -> str:
        """The reference the next link would carry; nothing is used up until it is created."""
        day = self._today()
        return self._reference(profile, day, await self.ledger.peek_sequence(day))

    async def _claim(self, profile: Profile, request: PaymentRequest) -> PaymentRequest:
        """Use up the reference's number if it is the one PayDesk proposed; if another window
        took that number meanwhile, the next free one."""
        day = self._today()
        while True:
            sequence = await self.ledger.peek_sequence(day)
            proposed = self._reference(profile, day, sequence)
            if request.tx_ref not in (proposed, self._reference(profile, day, sequence - 1)):
                return request  # typed by the user, or proposed by another window: as it is
            if await self.ledger.claim_sequence(day, sequence):
                return replace(request, tx_ref=proposed)

    async def claim_reference(self, profile: Profile) -> str:
        """A new reference, its day's number used up now (the counter knows the reference
        before it writes the sale; ``create(..., claimed=True)`` then takes it as it is).
        One write, nothing read first: a sale does not wait behind the lists' reads."""
        day = self._today()
        return self._reference(profile, day, await self.ledger.take_sequence(day))

    # -- the life of a link ---------------------------------------------------------------

    def announce(self, record: LinkRecord, state_changed: bool = False) -> LinkRecord:
        self.hub.record_changed.emit(record)
        if state_changed and record.final:
            self.hub.record_settled.emit(record)
        return record

    async def create(
        self,
        request: PaymentRequest,
        *,
        claimed: bool = False,
        ours: bool = False,
        actor: str | None | Signed = SIGNED_IN,
    ) -> LinkRecord:
        """Write the intent, ask the service, write the answer. Raises ServiceError on
        refusal; on an unknown outcome the record stays "creating" and the scheduler
        settles it in the background, with the same reference. ``claimed``: the request's
        reference was drawn by ``claim_reference`` (its number used up already).
        ``ours``: the reference is surely this intent's (a batch's own, drawn at random):
        when the service says it was used before, the payment it holds is looked up and
        taken as this one, as a resumed create takes it (refused only when the service's
        record shows another amount, currency or e-mail). Its calls are a person's create
        (``CallClass.PERSON_CREATE``) unless its caller said otherwise (a batch's: BULK).
        ``actor``: who made it, by default the person signed in now. A person's (the Links
        tab): refused (NotAllowed) unless they may make payment links; work a person was
        allowed to start (a batch's rows) calls ``create_as``, naming who started it."""
        self.session.staff.require(Capability.LINKS)
        self.session.refuse_while_down()  # a shared ledger out of reach: nothing is sent
        profile, mode = self.session.active()
        if actor is SIGNED_IN:
            actor = self.session.staff.actor  # who made it: the person signed in now
        return await self.create_as(profile, mode, request, claimed=claimed, ours=ours, actor=actor)

    async def create_as(
        self,
        profile: Profile,
        mode: str,
        request: PaymentRequest,
        *,
        claimed: bool = False,
        ours: bool = False,
        actor: str | None = None,
    ) -> LinkRecord:
        """``create`` in ``profile`` and ``mode`` as its caller read them (a counter sale reads
        them once, and has refused while the shared ledger is out of reach already), made by
        ``actor`` (the person signed in when they acted; None: no staff set up)."""
        # no key: fails before writing; the address is asked at the first request, after
        # the intent is written (another program answering there: the intent waits)
        async with self.session.lease(profile, mode, ask_first=False) as client:
            if not claimed:
                request = await self._claim(profile, request)
            # written and announced even when the caller stops waiting meanwhile (a batch
            # cancelled): an intent in the ledger is always watched (the scheduler settles it)
            begun = self.session.tasks.spawn(
                self._begin(profile.id, mode, request, actor),
                "write a link's intent",
                expected=(DuplicateReference, LedgerError),
            )
            try:
                record = await asyncio.shield(begun)
            except DuplicateReference:
                raise LocalDuplicate(request.tx_ref) from None
            self.creating.add(record.key)
            try:
                try:
                    with calls_as(CallClass.PERSON_CREATE, unless_said=True):
                        link = await self._send(client, request, ours)
                except (AuthenticationError, UnexpectedAnswerError):
                    # refused, or answered in no shape of the service's, by whatever answers
                    # there now? (the address changed hands): then nothing is known of the
                    # link, and no key is wrong
                    await self.session.recheck_service(profile, mode)
                    raise
            except (ValidationError, AuthenticationError) as error:
                why = error.message  # the ledger keeps English; a person reads it translated
                if isinstance(error, DuplicateReferenceError):
                    why = ANOTHER_PAYMENT
                self.announce(await self.ledger.reject_link(profile.id, request.tx_ref, why), True)
                self.session.report(_("Link not created: {why}").format(why=ledger_words(why)))
                raise
            except ServiceError as error:
                self.announce(await self.ledger.note_error(profile.id, request.tx_ref, error.message))
                self.session.report(
                    _("Link {reference}: {error}; PayDesk keeps trying with the same reference").format(
                        reference=request.tx_ref, error=str(error)
                    )
                )
                raise
            finally:
                self.creating.discard(record.key)
        record = self.announce(await self.ledger.complete_link(profile.id, link))
        self.session.report(_("Link {reference} created").format(reference=record.tx_ref))
        return record

    async def _begin(self, profile_id: str, mode: str, request: PaymentRequest, actor: str | None) -> LinkRecord:
        record = await self.ledger.begin_link(profile_id, mode, request, actor=actor)
        return self.announce(record)

    @staticmethod
    async def _send(client: ServiceClient, request: PaymentRequest, ours: bool) -> PaymentLink:
        try:
            return await client.create_payment(request)
        except DuplicateReferenceError:
            if not ours:
                raise
            return await client.create_payment(request, resumed=True)  # see create

    def _profile_of(self, record: LinkRecord) -> Profile:
        profile = self.session.settings.profile(record.profile_id)
        if profile is None:
            raise StopWatching("its profile was deleted")  # for the log only (the scheduler logs it)
        return profile

    async def check(self, record: LinkRecord, *, fence: Fence | None = None) -> LinkRecord:
        """Ask the service for a record's state; store it; tell the views (when it was last
        checked, and whether its state changed). ``fence``: checked as the shop's poller
        (a shared ledger refuses the write once another desk holds the lease)."""
        updated, _changed = await self.look_up(self._profile_of(record), record.mode, record.tx_ref, fence=fence)
        return updated

    async def look_up(
        self, profile: Profile, mode: str, tx_ref: str, *, fence: Fence | None = None, learned_by: str = "check"
    ) -> tuple[LinkRecord, bool]:
        """Ask the service about ``tx_ref`` in ``mode`` with ``profile``'s key; store what it
        says (a final state never moves back: the ledger's ``may_follow``), with how it was
        learned (``learned_by``: "check", or "notification" for the receiver's re-read); tell
        the views. Returns the record and whether its state changed (a new record: True).
        The service's errors (NotFoundError, ModeMismatchError...) are the caller's."""
        async with self.session.lease(profile, mode) as client:
            tx = await client.validate(tx_ref)
        updated, changed = await self.ledger.record_lookup(profile.id, mode, tx, fence=fence, learned_by=learned_by)
        self.announce(updated, changed)
        if changed:
            said = _("Link {reference}: {state}") if updated.origin == "link" else _("Payment {reference}: {state}")
            self.session.report(said.format(reference=updated.tx_ref, state=state_words(updated).words))
        return updated, changed

    async def settle(self, record: LinkRecord) -> LinkRecord:
        """A create whose outcome is unknown (lost answer, crash): the same intent, the same
        tx_ref; the service ends up with exactly one payment. Raises ServiceError to be
        retried later."""
        profile = self._profile_of(record)
        try:
            async with self.session.lease(profile, record.mode) as client:
                try:
                    link = await client.create_payment(record.request(), resumed=True)
                except (AuthenticationError, UnexpectedAnswerError):
                    await self.session.recheck_service(profile, record.mode)  # see create
                    raise
        except (ValidationError, AuthenticationError) as error:
            return self.announce(await self.ledger.reject_link(profile.id, record.tx_ref, error.message), True)
        except ServiceError as error:
            self.announce(await self.ledger.note_error(profile.id, record.tx_ref, error.message))
            raise
        settled = self.announce(await self.ledger.complete_link(profile.id, link))
        log.info("settled interrupted link %s", settled.tx_ref)
        self.session.report(
            _("Link {reference} created (settled after an interruption)").format(reference=settled.tx_ref)
        )
        return settled
