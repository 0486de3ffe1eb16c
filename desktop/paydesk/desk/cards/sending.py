"""Card operations as they are sent (split from controller.py, whose CardsController they
are a part of): a create, fund, withdraw, block, unblock or terminate is written ("sending")
before its call, and only one per card is open at a time (the ledger refuses a second).
What the call's answer says is written as done or not done; an answer lost is read back
(``settling.py``), never sent again."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ...i18n import _
from ...ledger import LedgerError
from ...ledger.cards import CardOperation, CardRecord, OperationDraft
from ...service.call_class import CallClass, calls_as
from ...service.errors import (
    AuthenticationError,
    NotFoundError,
    RateLimitedError,
    ServiceError,
    ServiceUnavailableError,
    ValidationError,
)
from ...service.models import VirtualCard
from ...service.money import to_wire
from ..staff import Capability
from . import words
from .settling import Settling, card_of

if TYPE_CHECKING:
    from ...config.profiles import Profile
    from ...ledger.cards import AuditDraft

log = logging.getLogger("paydesk.cards")
STATE_NUMBER = {"block": 2, "unblock": 1, "terminate": 0}


class StateRefused(ValidationError):
    """Refused by PayDesk before anything is written or sent: the card, as the ledger
    knows it, is already in the state asked for, or in one that allows nothing (the
    family's server does not check a card's state: blocking a blocked card succeeds
    there, so this check is PayDesk's own)."""


def surely_not_done(error: ServiceError) -> bool:
    """The service refused it, or it never reached the service: nothing happened."""
    if isinstance(error, (ValidationError, AuthenticationError, NotFoundError, RateLimitedError)):
        return True
    return type(error) is ServiceUnavailableError and error.status is None


class Sending(Settling):
    """CardsController's operations (it gives them the session, ledger and hub, the
    audit lines, and the card's reading)."""

    if TYPE_CHECKING:  # what CardsController gives its operations

        @staticmethod
        def _mode_has_cards(profile: Profile, mode: str) -> None: ...

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
        ) -> AuditDraft: ...

        async def _load_card(
            self, profile: Profile, mode: str, card_hash: str, *, transactions: bool
        ) -> CardRecord: ...

    # -- operations ---------------------------------------------------------------------

    async def create(
        self,
        profile: Profile,
        mode: str,
        amount: Decimal,
        currency: str,
        callback_url: str | None,
        *,
        first_name: str | None = None,
        last_name: str | None = None,
    ) -> CardOperation:
        """Issue a card; the cardholder's name goes with it (the family's server requires it).
        Its events go to ``callback_url``, else to the profile's default callback URL (as a
        link's do), else to ``words.NO_CARD_NOTIFICATIONS``: the family's server requires one.
        A person's who may use the cards (NotAllowed), as every operation."""
        self.session.staff.require(Capability.CARDS)
        callback_url = (callback_url or "").strip() or profile.callback_url.strip() or words.NO_CARD_NOTIFICATIONS
        draft = OperationDraft(
            profile.id, mode, "create", None, amount=amount, currency=currency, callback_url=callback_url
        )
        return await self._operate(
            profile,
            draft,
            lambda c: c.create_card(amount, currency, callback_url, first_name=first_name, last_name=last_name),
        )

    async def fund(self, record: CardRecord, amount: Decimal) -> CardOperation:
        return await self._card_operation(record, "fund", amount, lambda c: c.fund_card(record.card_hash, amount))

    async def withdraw(self, record: CardRecord, amount: Decimal) -> CardOperation:
        return await self._card_operation(
            record, "withdraw", amount, lambda c: c.withdraw_card(record.card_hash, amount)
        )

    async def block(self, record: CardRecord) -> CardOperation:
        return await self._card_operation(record, "block", None, lambda c: c.block_card(record.card_hash))

    async def unblock(self, record: CardRecord) -> CardOperation:
        return await self._card_operation(record, "unblock", None, lambda c: c.unblock_card(record.card_hash))

    async def terminate(self, record: CardRecord) -> CardOperation:
        return await self._card_operation(record, "terminate", None, lambda c: c.terminate_card(record.card_hash))

    async def _card_operation(
        self, record: CardRecord, kind: str, amount: Decimal | None, call: Callable[[Any], Awaitable[Any]]
    ) -> CardOperation:
        self.session.staff.require(Capability.CARDS)  # fund, withdraw, block, unblock, terminate
        profile = self._profile(record.profile_id)
        if kind in STATE_NUMBER:  # as the ledger knows it now (another window may have acted)
            current = await self.ledger.card(*record.key)
            problem = words.state_refusal(kind, (current or record).state)
            if problem:
                raise StateRefused(problem)
        draft = OperationDraft(
            profile.id,
            record.mode,
            kind,
            record.card_hash,
            record.masked,
            amount,
            words.currency_of(profile, record.currency_code),
        )
        return await self._operate(profile, draft, call)

    async def _operate(
        self, profile: Profile, draft: OperationDraft, call: Callable[[Any], Awaitable[Any]]
    ) -> CardOperation:
        """Lease (no key: nothing is written), write the intent, call, write the outcome.
        Raises OperationUnderWay when the card is busy; every other outcome is the returned
        operation's state (done, not-done, or still lost and being settled). The person
        signed in when it was asked is its actor, on the operation and its lines."""
        actor = self.session.staff.actor
        draft = replace(draft, actor=actor)
        audit = self._audit(
            profile,
            draft.mode,
            draft.kind,
            words.SENT,
            card_hash=draft.card_hash,
            masked=draft.masked,
            amount=draft.amount,
            currency=draft.currency,
            actor=actor,
        )
        self._mode_has_cards(profile, draft.mode)
        if draft.amount is not None:
            to_wire(draft.amount)  # MoneyError before anything is written or sent
        self.session.refuse_while_down()  # a shared ledger out of reach: nothing is sent
        async with self.session.lease(profile, draft.mode) as client:
            op = self._emit_op(await self.ledger.begin_operation(draft, audit))
            try:
                with calls_as(CallClass.PERSON_CREATE):  # a person confirmed it: served first
                    answer = await call(client)
            except asyncio.CancelledError:
                # whoever waited has gone; the request may still be on its way to the service
                self.settle_in_background(op, in_flight=True)
                raise
            except Exception as error:  # noqa: BLE001 - whatever it was, read back
                failure: Exception | None = error
            else:
                failure = None
        if failure is None:
            return await self._done(profile, op, answer)
        if isinstance(failure, ServiceError) and surely_not_done(failure):
            word = (
                words.REFUSED
                if failure.status is not None
                or isinstance(failure, (ValidationError, AuthenticationError, NotFoundError))
                else words.FAILED
            )
            op = self._emit_op(
                await self.ledger.finish_operation(
                    op.id, "not-done", failure.message, self._op_audit(op, word, failure.message, actor=op.actor)
                )
            )
            self.session.report(
                _("Card {operation} not done: {message}").format(
                    operation=words.operation(draft.kind), message=str(failure)
                )
            )
            if op.card_hash:
                await self._reload_quietly(profile, op)  # the card may have changed elsewhere
            return op
        why = failure.message if isinstance(failure, ServiceError) else type(failure).__name__
        if not isinstance(failure, ServiceError):
            log.error("card %s failed unexpectedly", draft.kind, exc_info=failure)
        lost = self._op_audit(op, words.ANSWER_LOST, why, actor=op.actor)
        op = self._emit_op(await self.ledger.mark_lost(op.id, why, lost))
        self.session.report(
            _(
                "Card {operation}: {why}. PayDesk is checking with the service whether it happened; "
                "nothing is sent again."
            ).format(operation=words.operation(draft.kind), why=why)
        )
        with calls_as(CallClass.PERSON_LOOKUP):  # the person waits for this reading back
            return await self.settle_now(op)

    async def _done(self, profile: Profile, op: CardOperation, answer: Any) -> CardOperation:
        card_hash, masked = op.card_hash, None
        if isinstance(answer, VirtualCard):  # a create: the card exists now
            record = await self.ledger.store_card(profile.id, op.mode, answer)
            card_hash, masked = record.card_hash, record.masked
            self.hub.card_changed.emit(record)
        result = words.CREATED if isinstance(answer, VirtualCard) else str(answer or words.DONE_DETAIL)  # English
        judged = await self.ledger.operation(op.id)
        late = judged is not None and judged.state == "not-done"  # judged before it answered
        word = words.LATE_DONE if late else words.DONE_WORD
        op = self._emit_op(
            await self.ledger.finish_operation(
                op.id,
                "done",
                result,
                self._op_audit(op, word, result, card_hash=card_hash, masked=masked, actor=op.actor),
                card_hash=card_hash,
                answered=True,
                masked=masked,
                evidence=card_hash if op.kind == "create" else None,
            )
        )
        if late:
            self.session.report(
                _(
                    "Card {operation} ({card}): it WAS done: the service's answer came after PayDesk had "
                    "judged it not done. Do not send it again."
                ).format(operation=words.operation(op.kind), card=op.masked)
            )
            log.warning("card operation %s: done after it was judged not done", op.id)
        if op.kind in STATE_NUMBER:
            noted = await self.ledger.note_state(profile.id, op.mode, card_of(op), STATE_NUMBER[op.kind])
            if noted is not None:
                self.hub.card_changed.emit(noted)
        self.session.report(
            _("Card {card}: {operation} done").format(card=op.masked, operation=words.operation(op.kind))
        )
        await self._reload_quietly(profile, op)
        return op

    async def _reload_quietly(self, profile: Profile, op: CardOperation) -> None:
        """After an operation: the card's new balance and transactions, if the service says
        (never refused for who is signed in now: it follows what was allowed)."""
        try:
            await self._load_card(profile, op.mode, card_of(op), transactions=True)
        except ServiceError as error:
            log.info("card %s could not be read after %s: %s", op.masked, op.kind, error.message)
        except LedgerError as error:  # a shared ledger gone meanwhile: read at its next change
            log.info("card %s could not be read after %s: %s", op.masked, op.kind, error)
