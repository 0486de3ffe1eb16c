"""Card operations: caller -> these async methods -> ledger (intent) -> service -> ledger
(outcome, audit) -> events on the hub.

Nothing is sent twice. Each operation is written ("sending") before its call, and only one
per card is open at a time (the ledger refuses a second). When an answer is lost, nothing
is sent again: the card is read back (``settle``) and the operation marked done or not done,
at once if the service can be read, else in the background, and at the next start after a
crash. Every method works on the profile and mode it is given, never the active ones.

Every public method is a person's, refused (NotAllowed) unless they may use the cards;
what runs behind (settling, the reads after an operation) is not.
"""

from __future__ import annotations

import asyncio
import getpass
import logging
import os
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any

from ...config.profiles import Profile
from ...ledger.cards import AuditDraft, CardLedger, CardOperation, CardRecord, OperationDraft
from ...service.call_class import CallClass, calls_as
from ...service.errors import (
    AuthenticationError,
    NotFoundError,
    ServiceError,
    ValidationError,
)
from ...service.models import VirtualCard
from ...service.money import to_wire
from ..session import Session
from ..staff import Capability
from . import words
from .refusals import NoTestCards, StateRefused, surely_not_done
from .settling import ProfileGone, Settling, card_of

__all__ = ["CardsController", "NoTestCards", "ProfileGone", "StateRefused", "os_user", "surely_not_done"]

log = logging.getLogger("paydesk.cards")
STATE_NUMBER = {"block": 2, "unblock": 1, "terminate": 0}


def os_user() -> str:
    """Who is at the desk, as the operating system names them."""
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no name in the environment or the user database
        return os.environ.get("USERNAME") or os.environ.get("USER") or "unknown"


class CardsController(Settling):
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
    ) -> AuditDraft:
        return AuditDraft(
            user=self.user,
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
    ) -> AuditDraft:
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

    async def reveal(self, record: CardRecord, action: str = "reveal") -> VirtualCard:
        """The card as the service gives it, with its full number and security code, for
        the view to show or copy (and forget). Only ``action`` is audited, never the number.
        A shared ledger out of reach: refused before the service is asked (it is audited)."""
        self.session.staff.require(Capability.CARDS)
        profile = self._profile(record.profile_id)
        self.session.refuse_while_down()
        try:
            async with self.session.lease(profile, record.mode) as client:
                with calls_as(CallClass.PERSON_LOOKUP):
                    card = await client.card(record.card_hash)
        except ServiceError as error:
            await self.note(record, action, "failed", error.message)
            raise
        await self.note(record, action, "done")
        return card

    async def note(self, record: CardRecord, action: str, result: str, detail: str = "") -> None:
        """An audit line for something done with a card that is not an operation (reveal,
        copy number)."""
        self.session.staff.require(Capability.CARDS)
        profile = self._profile(record.profile_id)
        await self.ledger.append_audit(
            self._audit(
                profile, record.mode, action, result, card_hash=record.card_hash, masked=record.masked, detail=detail
            )
        )
        self.hub.audit_added.emit(record.profile_id, record.mode)

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
        link's do), else to ``words.NO_CARD_NOTIFICATIONS``: the family's server requires one."""
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
        operation's state (done, not-done, or still lost and being settled)."""
        audit = self._audit(
            profile,
            draft.mode,
            draft.kind,
            "sent",
            card_hash=draft.card_hash,
            masked=draft.masked,
            amount=draft.amount,
            currency=draft.currency,
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
                "refused"
                if failure.status is not None
                or isinstance(failure, (ValidationError, AuthenticationError, NotFoundError))
                else "failed"
            )
            op = self._emit_op(
                await self.ledger.finish_operation(
                    op.id, "not-done", failure.message, self._op_audit(op, word, failure.message)
                )
            )
            self.session.report(f"Card {draft.kind} not done: {failure.message}")
            if op.card_hash:
                await self._reload_quietly(profile, op)  # the card may have changed elsewhere
            return op
        why = failure.message if isinstance(failure, ServiceError) else type(failure).__name__
        if not isinstance(failure, ServiceError):
            log.error("card %s failed unexpectedly", draft.kind, exc_info=failure)
        op = self._emit_op(await self.ledger.mark_lost(op.id, why, self._op_audit(op, "answer lost", why)))
        self.session.report(
            f"Card {draft.kind}: {why}. PayDesk is checking with "
            "the service whether it happened; nothing is sent again."
        )
        with calls_as(CallClass.PERSON_LOOKUP):  # the person waits for this reading back
            return await self.settle_now(op)

    async def _done(self, profile: Profile, op: CardOperation, answer: Any) -> CardOperation:
        card_hash, masked = op.card_hash, None
        if isinstance(answer, VirtualCard):  # a create: the card exists now
            record = await self.ledger.store_card(profile.id, op.mode, answer)
            card_hash, masked = record.card_hash, record.masked
            self.hub.card_changed.emit(record)
        result = "Card created" if isinstance(answer, VirtualCard) else str(answer or "Done")
        judged = await self.ledger.operation(op.id)
        late = judged is not None and judged.state == "not-done"  # judged before it answered
        word = "done (its answer came after it was judged not done)" if late else "done"
        op = self._emit_op(
            await self.ledger.finish_operation(
                op.id,
                "done",
                result,
                self._op_audit(op, word, result, card_hash=card_hash, masked=masked),
                card_hash=card_hash,
                answered=True,
                masked=masked,
                evidence=card_hash if op.kind == "create" else None,
            )
        )
        if late:
            self.session.report(
                f"Card {op.kind} ({op.masked}): it WAS done: the service's "
                "answer came after PayDesk had judged it not done. Do not "
                "send it again."
            )
            log.warning("card operation %s: done after it was judged not done", op.id)
        if op.kind in STATE_NUMBER:
            noted = await self.ledger.note_state(profile.id, op.mode, card_of(op), STATE_NUMBER[op.kind])
            if noted is not None:
                self.hub.card_changed.emit(noted)
        self.session.report(f"Card {op.masked}: {op.kind} done")
        await self._reload_quietly(profile, op)
        return op
