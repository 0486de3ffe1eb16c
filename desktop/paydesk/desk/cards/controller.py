"""Card operations: caller -> these async methods -> ledger (intent) -> service -> ledger
(outcome, audit) -> events on the hub.

Nothing is sent twice. Each operation is written ("sending") before its call, and only one
per card is open at a time (the ledger refuses a second). When an answer is lost, nothing
is sent again: the card is read back (``settle``) and the operation marked done or not done,
at once if the service can be read, else in the background, and at the next start after a
crash. Every method works on the profile and mode it is given, never the active ones.

Every public method is a person's, refused (NotAllowed) unless they may use the cards;
what runs behind (settling, the read after an operation: ``_load_card``) is not.
"""

from __future__ import annotations

import asyncio
import getpass
import logging
import os
from decimal import Decimal

from ...config.profiles import Profile
from ...i18n import _
from ...ledger.cards import AuditDraft, CardLedger, CardOperation, CardRecord
from ...service.call_class import CallClass, calls_as
from ...service.errors import (
    NotFoundError,
    ServiceError,
    ValidationError,
)
from ...service.models import CardTransaction, VirtualCard
from ..session import Session
from ..staff import Capability
from . import words
from .sending import Sending, StateRefused, surely_not_done
from .settling import ProfileGone

__all__ = ["CardsController", "NoTestCards", "ProfileGone", "StateRefused", "os_user", "surely_not_done"]

log = logging.getLogger("paydesk.cards")


def os_user() -> str:
    """Who is at the desk, as the operating system names them."""
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no name in the environment or the user database
        return os.environ.get("USERNAME") or os.environ.get("USER") or "unknown"


class NoTestCards(ValidationError):
    """The profile's service keeps no test cards (``Profile.test_cards``): in test mode
    nothing is read or sent, so a test key never spends live money and no card is kept
    twice in the ledger."""

    def __init__(self) -> None:
        super().__init__(_(words.NO_TEST_CARDS))


class CardsController(Sending):
    """Says every change on the hub: ``card_changed`` (a CardRecord as just stored),
    ``cards_refreshed`` (profile_id, mode: the service's list was stored),
    ``card_transactions_changed`` (a CardRecord whose transactions were stored),
    ``operation_changed`` (a CardOperation: begun, lost, done or not done) and
    ``audit_added`` (profile_id, mode)."""

    second_look = 2.0  # s before a lost operation not found is declared not done
    retry_limit = 60.0  # s: the longest wait between background attempts to settle
    in_flight = 90.0  # s: an operation younger than this may still be answered to its sender

    def __init__(self, session: Session, ledger: CardLedger):
        self.session = session
        self.hub = session.hub
        self.ledger = ledger
        self.user = os_user()
        self.tasks = session.tasks.child()
        self._settling: dict[int, asyncio.Task] = {}

    # -- helpers ------------------------------------------------------------------------

    def _profile(self, profile_id: str) -> Profile:
        profile = self.session.settings.profile(profile_id)
        if profile is None:
            raise ProfileGone(profile_id)
        return profile

    @staticmethod
    def _mode_has_cards(profile: Profile, mode: str) -> None:
        if mode == "test" and not profile.test_cards:
            raise NoTestCards()

    def _audit(
        self,
        profile: Profile,
        mode: str,
        action: str,
        result: str,
        *,
        card_hash: str | None = None,
        masked: str = "",
        amount: Decimal | None = None,
        currency: str | None = None,
        detail: str = "",
        actor: str | None = None,
    ) -> AuditDraft:
        return AuditDraft(
            user=self.user,
            actor=actor,
            profile_id=profile.id,
            profile_name=profile.name,
            mode=mode,
            action=action,
            result=result,
            card_hash=card_hash,
            masked=masked,
            amount=amount,
            currency=currency,
            detail=detail,
        )

    def _op_audit(
        self,
        op: CardOperation,
        result: str,
        detail: str = "",
        *,
        card_hash: str | None = None,
        masked: str | None = None,
        actor: str | None = None,
    ) -> AuditDraft:
        """A line about ``op``: ``actor`` for its lines written while its person waits (the
        settling in the background writes none)."""
        return self._audit(
            self._profile(op.profile_id),
            op.mode,
            op.kind,
            result,
            card_hash=card_hash or op.card_hash,
            masked=masked or op.masked,
            amount=op.amount,
            currency=op.currency,
            detail=detail,
            actor=actor,
        )

    def _emit_op(self, op: CardOperation) -> CardOperation:
        self.hub.operation_changed.emit(op)
        self.hub.audit_added.emit(op.profile_id, op.mode)
        return op

    # -- reading ------------------------------------------------------------------------

    async def refresh(self, profile: Profile, mode: str) -> list[str]:
        """The service's whole list, stored as the cache the tab opens with. Cards it no
        longer lists (the family drops terminated ones) are read one by one. A shared ledger
        out of reach: refused before the service is asked (nothing could be stored). A
        person's look-up, unless its caller said otherwise."""
        self.session.staff.require(Capability.CARDS)
        self.session.refuse_while_down()
        self._mode_has_cards(profile, mode)
        with calls_as(CallClass.PERSON_LOOKUP, unless_said=True):
            return await self._refresh(profile, mode)

    async def _refresh(self, profile: Profile, mode: str) -> list[str]:
        async with self.session.lease(profile, mode) as client:
            cards = await client.cards()
        gone = await self.ledger.store_cards(profile.id, mode, cards)
        for card_hash in gone[:20]:
            try:
                await self._load_card(profile, mode, card_hash, transactions=False)
            except ServiceError as error:
                log.info("card %s is no longer listed and could not be read: %s", card_hash, error.message)
                # (the family's server deletes a terminated card): shown as unlisted
                record = await self.ledger.card(profile.id, mode, card_hash)
                if record is not None:
                    self.hub.card_changed.emit(record)
        self.hub.cards_refreshed.emit(profile.id, mode)
        return gone

    async def load_card(self, profile: Profile, mode: str, card_hash: str, *, transactions: bool = True) -> CardRecord:
        """One card and (by default) its transactions, from the service into the ledger (a
        person's look-up, unless its caller said otherwise). A card the service no longer
        has raises NotFoundError, its transactions stored first: the family's server deletes
        a terminated card and keeps its transactions. A shared ledger out of reach: refused
        before the service is asked."""
        self.session.staff.require(Capability.CARDS)
        return await self._load_card(profile, mode, card_hash, transactions=transactions)

    async def _load_card(self, profile: Profile, mode: str, card_hash: str, *, transactions: bool) -> CardRecord:
        self.session.refuse_while_down()
        self._mode_has_cards(profile, mode)
        async with self.session.lease(profile, mode) as client:
            with calls_as(CallClass.PERSON_LOOKUP, unless_said=True):
                try:
                    card = await client.card(card_hash)
                except NotFoundError:
                    if transactions:
                        try:
                            kept = await client.card_transactions(card_hash)
                        except ServiceError:  # (the document's service forgets them with it)
                            kept = []
                        await self._transactions_of_gone(profile, mode, card_hash, kept)
                    raise
                txs = await client.card_transactions(card_hash) if transactions else None
        record = await self.ledger.store_card(profile.id, mode, card)
        if txs is not None:
            await self.ledger.store_transactions(profile.id, mode, card_hash, txs)
            await self._claim(profile.id, mode, card_hash)
            self.hub.card_transactions_changed.emit(record)
        self.hub.card_changed.emit(record)
        return record

    async def _transactions_of_gone(
        self, profile: Profile, mode: str, card_hash: str, txs: list[CardTransaction]
    ) -> None:
        record = await self.ledger.card(profile.id, mode, card_hash)
        if record is None or not txs:
            return  # never a card of this wallet, or nothing to keep
        await self.ledger.store_transactions(profile.id, mode, card_hash, txs)
        await self._claim(profile.id, mode, card_hash)
        self.hub.card_transactions_changed.emit(record)

    async def reveal(self, record: CardRecord, action: str = "reveal") -> VirtualCard:
        """The card as the service gives it, with its full number and security code, for
        the view to show or copy (and forget). Only ``action`` is audited, never the number.
        A shared ledger out of reach: refused before the service is asked (it is audited)."""
        self.session.staff.require(Capability.CARDS)
        profile = self._profile(record.profile_id)
        self.session.refuse_while_down()
        actor = self.session.staff.actor
        try:
            async with self.session.lease(profile, record.mode) as client:
                with calls_as(CallClass.PERSON_LOOKUP):
                    card = await client.card(record.card_hash)
        except ServiceError as error:
            await self.note(record, action, "failed", error.message, actor=actor)
            raise
        await self.note(record, action, "done", actor=actor)
        return card

    async def note(
        self, record: CardRecord, action: str, result: str, detail: str = "", *, actor: str | None = None
    ) -> None:
        """An audit line for something done with a card that is not an operation (reveal,
        copy number), by ``actor`` (the person signed in when they asked)."""
        self.session.staff.require(Capability.CARDS)
        profile = self._profile(record.profile_id)
        await self.ledger.append_audit(
            self._audit(
                profile,
                record.mode,
                action,
                result,
                card_hash=record.card_hash,
                masked=record.masked,
                detail=detail,
                actor=actor,
            )
        )
        self.hub.audit_added.emit(record.profile_id, record.mode)
