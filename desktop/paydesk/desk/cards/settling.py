"""Settling card operations whose answer was lost: read the card (or the list) back, never
send again, and decide the operation done or not done, at once or in the background until
known (split from controller.py, whose CardsController it is a part of)."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ...i18n import _
from ...ledger.cards import CardOperation, mask
from ...ledger.owner import gone as owner_gone
from ...service.call_class import CallClass, calls_as
from ...service.errors import NotFoundError, ServiceError
from ...service.models import VirtualCard
from . import evidence, words
from .words import LEDGER

if TYPE_CHECKING:
    from ...config.profiles import Profile
    from ...ledger.cards import AuditDraft, CardLedger, CardRecord
    from ..events import Hub
    from ..session import Session
    from ..tasks import TaskSet

log = logging.getLogger("paydesk.cards")


def card_of(op: CardOperation) -> str:
    """The card an operation acts on (every operation but a create names it from the start;
    a create's is known once its card is made)."""
    if op.card_hash is None:
        raise ValueError(
            _("Card operation {id} ({operation}) names no card").format(id=op.id, operation=words.operation(op.kind))
        )
    return op.card_hash


class ProfileGone(Exception):
    """The operation's profile was deleted: it is never read back with another's key."""


class Settling:
    """CardsController's reading back (it holds the session, ledger, hub, ``tasks``,
    ``_settling`` and the timings ``second_look``, ``retry_limit`` and ``in_flight``)."""

    if TYPE_CHECKING:  # what CardsController gives its reading back
        session: Session
        ledger: CardLedger
        hub: Hub
        tasks: TaskSet
        _settling: dict[int, asyncio.Task]
        second_look: float
        retry_limit: float
        in_flight: float

        def _profile(self, profile_id: str) -> Profile: ...

        def _op_audit(
            self,
            op: CardOperation,
            result: str,
            detail: str = "",
            *,
            card_hash: str | None = None,
            masked: str | None = None,
            actor: str | None = None,
        ) -> AuditDraft: ...

        def _emit_op(self, op: CardOperation) -> CardOperation: ...

        async def _reload_quietly(self, profile: Profile, op: CardOperation) -> None: ...

    async def _claimed(
        self, profile_id: str, mode: str, card_hash: str | None, kinds: tuple[str, ...]
    ) -> tuple[set[str], list[CardOperation]]:
        ops = await self.ledger.operations(profile_id, mode, card_hash, kinds=kinds)
        return {o.evidence for o in ops if o.evidence}, ops

    async def _claim(self, profile_id: str, mode: str, card_hash: str) -> None:
        """Done funds and withdrawals claim the transactions that show them."""
        claimed, ops = await self._claimed(profile_id, mode, card_hash, ("fund", "withdraw"))
        unclaimed = [o for o in ops if o.state == "done" and not o.evidence]
        if unclaimed:
            txs = await self.ledger.transactions(profile_id, mode, card_hash)
            found = evidence.match_transactions(unclaimed, txs, claimed)
            for op_id, tx_id in found.items():
                await self.ledger.attach_evidence(op_id, tx_id)

    async def _look(
        self, profile: Profile, op: CardOperation, before: CardRecord | None = None
    ) -> tuple[bool, str, Any]:
        """Read the card (or the list) back once: (happened, what was found, evidence).
        ``before``: the card as the ledger knew it before this settling read it."""
        if op.kind == "create":
            async with self.session.lease(profile, op.mode) as client:
                cards = await client.cards()
            claimed, _ops = await self._claimed(profile.id, op.mode, None, ("create",))
            card = evidence.created_card(op, cards, claimed)
            if card is None:
                return False, words.NO_CARD_MADE, None
            made = LEDGER.gettext("The service lists the card it made ({card})")
            return True, made.format(card=mask(card.masked_card)), card
        card_hash = card_of(op)
        try:
            async with self.session.lease(profile, op.mode) as client:
                card = await client.card(card_hash)
                txs = await client.card_transactions(card_hash) if op.kind in evidence.TYPE_OF else []
        except NotFoundError:
            happened = evidence.state_reached(op, None)
            return happened, words.NO_LONGER_KNOWN, None
        record = await self.ledger.store_card(profile.id, op.mode, card)
        self.hub.card_changed.emit(record)
        if op.kind in evidence.STATE_AFTER:
            happened = evidence.state_reached(op, card)
            return (
                happened,
                LEDGER.gettext("The card is {state} at the service").format(
                    state=words.badge(card.status.value, LEDGER).words.lower()
                ),
                None,
            )
        await self.ledger.store_transactions(profile.id, op.mode, card_hash, txs)
        self.hub.card_transactions_changed.emit(record)
        claimed, ops = await self._claimed(profile.id, op.mode, card_hash, ("fund", "withdraw"))
        pending = [o for o in ops if (o.state == "done" and not o.evidence) or o.id == op.id]
        stored = await self.ledger.transactions(profile.id, op.mode, card_hash)
        said_as = {kind: await self.ledger.service_words(profile.id, op.mode, kind) for kind in evidence.TYPE_OF}
        found = evidence.match_transactions(pending, stored, claimed, said_as)
        for op_id, tx_id in found.items():
            if op_id != op.id:
                await self.ledger.attach_evidence(op_id, tx_id)
        fund = op.kind == "fund"
        # what was found, as the ledger keeps it: in English (texts.ledger_words shows it)
        balance = words.money(profile, card.currency_code, card.balance, LEDGER)
        if op.id in found:
            shows = (
                LEDGER.gettext("The card shows the credit (balance {balance})")
                if fund
                else LEDGER.gettext("The card shows the debit (balance {balance})")
            )
            return True, shows.format(balance=balance), found[op.id]
        if evidence.balance_moved(op, before, card, stored):  # the family's: no transaction for it
            assert before is not None  # (balance_moved says so)
            moved = (
                LEDGER.gettext(
                    "The card's balance moved by its amount ({before} before, {now} now); "
                    "the service lists no credit for it"
                )
                if fund
                else LEDGER.gettext(
                    "The card's balance moved by its amount ({before} before, {now} now); "
                    "the service lists no debit for it"
                )
            )
            was = words.money(profile, before.currency_code, before.balance, LEDGER)
            return True, moved.format(before=was, now=balance), None
        shows_no = (
            LEDGER.gettext("The card shows no such credit (balance {balance})")
            if fund
            else LEDGER.gettext("The card shows no such debit (balance {balance})")
        )
        return False, shows_no.format(balance=balance), None

    async def settle_now(self, op: CardOperation) -> CardOperation:
        """Try to settle a lost operation at once; if the service cannot be read now, keep
        trying in the background and return it still open."""
        try:
            return await self.settle(op)
        except (ServiceError, ProfileGone) as error:
            log.info("card operation %s not settled yet: %s", op.id, error)
            self.settle_in_background(op)
            return op

    async def settle(self, op: CardOperation) -> CardOperation:
        """Decide a lost (or interrupted) operation by reading the card back. Raises
        ServiceError when the service cannot be read (nothing is decided then)."""
        profile = self._profile(op.profile_id)
        before = (
            await self.ledger.card(profile.id, op.mode, op.card_hash) if op.card_hash else None
        )  # its balance before this reading stores a new one
        for look in range(2):
            happened, why, proof = await self._look(profile, op, before)
            if happened or look:
                break
            await asyncio.sleep(self.second_look)  # it may still be on its way
        extra: dict[str, Any] = {}
        if isinstance(proof, VirtualCard):
            record = await self.ledger.store_card(profile.id, op.mode, proof)
            extra = dict(card_hash=record.card_hash, masked=record.masked, evidence=record.card_hash)
            self.hub.card_changed.emit(record)
        elif isinstance(proof, str):
            extra = dict(evidence=proof)
        state = "done" if happened else "not-done"
        word = words.CHECKED_DONE if happened else words.CHECKED_NOT_DONE
        audit = self._op_audit(op, word, why, card_hash=extra.get("card_hash"), masked=extra.get("masked"))
        settled = self._emit_op(await self.ledger.finish_operation(op.id, state, why, audit, settled=True, **extra))
        said = (
            _("Card {operation} ({card}): the answer was lost; checked with the service: it was done")
            if happened
            else _("Card {operation} ({card}): the answer was lost; checked with the service: it was not done")
        )
        self.session.report(said.format(operation=words.operation(settled.kind), card=settled.masked or _("new card")))
        if settled.kind == "create" and happened:
            await self._reload_quietly(profile, settled)  # its first transactions
        return settled

    def settle_in_background(self, op: CardOperation, *, in_flight: bool = False) -> None:
        """Keep reading back until ``op`` is decided. One that may still be answered to
        whoever sent it (``in_flight``: another window's, or one whose waiter left) is judged
        only once it is older than the longest a call can take."""
        if op.id in self._settling or self.tasks.closed:
            return
        task = self.tasks.spawn(self._settle_until_known(op, in_flight), f"settle card operation {op.id}")
        self._settling[op.id] = task
        task.add_done_callback(lambda _t: self._settling.pop(op.id, None))

    async def _settle_until_known(self, op: CardOperation, in_flight: bool) -> None:
        with calls_as(CallClass.BACKGROUND):  # nobody waits for it: after people's calls
            await self._until_known(op, in_flight)

    async def _until_known(self, op: CardOperation, in_flight: bool) -> None:
        age = (datetime.now(UTC) - op.started_at).total_seconds()
        if in_flight and age < self.in_flight:
            await asyncio.sleep(self.in_flight - age)
        delay = 1.0
        while True:
            try:
                current = await self.ledger.operation(op.id)
                if current is None or not current.open:
                    return
                if (await self.settle(current)).state not in ("sending", "lost"):
                    return
            except ProfileGone:
                log.info("card operation %s stays open: its profile was deleted", op.id)
                return
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - keep trying, whatever went wrong
                log.warning("settling card operation %s: %s; retrying in %.0f s", op.id, error, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.retry_limit)

    async def settle_open(self) -> None:
        """At start: every operation left open is settled by reading back: at once when the
        run that sent it has ended (killed), after the in-flight time when another PayDesk
        window may still be waiting for its answer."""
        for op in await self.ledger.open_operations():
            if self.session.settings.profile(op.profile_id) is not None:
                self.settle_in_background(op, in_flight=not owner_gone(op.owner))

    def settling(self) -> int:
        """How many operations are being settled in the background."""
        return len(self._settling)
