"""The virtual-card calls of ServiceClient (a mixin: it speaks through the client's
``_write``, ``_read``, ``_retrying`` and ``_exchange``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

from .answers import Answer
from .errors import NotFoundError, ServiceError, ValidationError
from .models import CardTransaction, VirtualCard, items_of
from .money import to_wire
from .typed import typed

# Words of a card fund's or withdrawal's message that say it was not done (the family's
# server passes on the issuer's words, and answers a refusal as "success" with no card).
REFUSAL_WORDS = (
    "insufficient",
    "not enough",
    "declined",
    "refused",
    "denied",
    "failed",
    "unable",
    "cannot",
    "can't",
    "could not",
    "not allowed",
    "exceed",
    "invalid",
    "unsuccessful",
    "error",
)
T = TypeVar("T")


class CardCalls:
    """Create, fund, withdraw, block, unblock, terminate and read virtual cards."""

    # what it speaks through: ServiceClient's, said here for the type checker
    card_currencies: dict[str, str]

    if TYPE_CHECKING:

        async def _exchange(self, method: str, path: str, body: dict | None = None) -> Answer: ...

        async def _retrying(self, call: Callable[[], Awaitable[T]]) -> T: ...

        async def _read(self, path: str) -> Answer: ...

        async def _write(self, path: str, body: dict) -> Answer: ...

    def _card(self, data: Any, status: int) -> VirtualCard:
        return VirtualCard.parse(data, status, self.card_currencies)

    @typed
    async def create_card(
        self,
        amount: Decimal | int | str,
        currency: str,
        callback_url: str | None = None,
        *,
        first_name: str | None = None,
        last_name: str | None = None,
    ) -> VirtualCard:
        """Issue a card. The family's server requires the cardholder's name
        (``first_name``, ``last_name``); the document's does not, and takes it as well."""
        body = {"amount": to_wire(amount), "currency": currency}
        if callback_url:
            body["callback_url"] = callback_url
        if first_name:
            body["first_name"] = first_name
        if last_name:
            body["last_name"] = last_name
        answer = await self._write("api/virtual_card/create", body)
        card = self._card(answer.data, answer.status)
        # the create's answer is the one that says what the card was issued with (the
        # family's keeps the balance in ``amount``, which is that amount only now)
        card = replace(card, amount=card.amount if card.amount is not None else card.balance)
        if card.status_raw is None:  # the family's create answers no status: read it back
            try:
                return replace(await self.card(card.card_hash), amount=card.amount)
            except ServiceError:
                return card  # made all the same: its state is not known until read
        return card

    @typed
    async def fund_card(self, card_hash: str, amount: Decimal | int | str) -> str:
        """Put money on a card. Returns the service's message; ValidationError when the
        service says it did not (see ``_moved``)."""
        return self._moved(
            await self._write("api/virtual_card/fund", {"amount": to_wire(amount), "card_hash": card_hash})
        )

    @typed
    async def withdraw_card(self, card_hash: str, amount: Decimal | int | str) -> str:
        """Take money off a card back to the balance; as ``fund_card``."""
        return self._moved(
            await self._write("api/virtual_card/withdraw", {"amount": to_wire(amount), "card_hash": card_hash})
        )

    @staticmethod
    def _moved(answer: Answer) -> str:
        """A fund or withdrawal is done only when the service shows it done. The family's
        server answers too little balance with HTTP 201, "success", ``data`` null and
        "Insufficient Funds, ..."; so a message of insufficient funds, or of any refusal
        with no card in the answer, is a refusal. A card in the answer (the family's) or
        none (the document's) with words of success is done."""
        words = answer.message.lower()
        data = answer.data
        has_card = isinstance(data, dict) and data.get("card_hash") not in (None, "")
        if "insufficient" in words or (not has_card and any(w in words for w in REFUSAL_WORDS)):
            raise ValidationError(answer.message, status=answer.status)
        return answer.message

    async def _card_action(self, action: str, card_hash: str, done_words: tuple[str, ...]) -> str:
        """Block, unblock, terminate: GETs, retried; a retry that finds the action done
        (after a lost answer) is success."""
        tried = False

        async def once() -> Answer:
            nonlocal tried
            try:
                return await self._exchange("GET", f"api/virtual_card/{action}/{quote(card_hash, safe='')}")
            except ValidationError as error:
                if tried and any(w in error.message.lower() for w in done_words):
                    return Answer(200, error.message, {})
                raise
            finally:
                tried = True

        return (await self._retrying(once)).message

    @typed
    async def block_card(self, card_hash: str) -> str:
        return await self._card_action("block", card_hash, ("already blocked",))

    @typed
    async def unblock_card(self, card_hash: str) -> str:
        return await self._card_action("unblock", card_hash, ("not blocked",))

    @typed
    async def terminate_card(self, card_hash: str) -> str:
        return await self._card_action("terminate", card_hash, ("terminated",))

    @typed
    async def card_transactions(self, card_hash: str) -> list[CardTransaction]:
        answer = await self._read(f"api/virtual_card/transactions/{quote(card_hash, safe='')}")
        return [
            CardTransaction.parse(x, answer.status)
            for x in items_of(answer.data, answer.status, "transactions", "data")
        ]

    @typed
    async def cards(self) -> list[VirtualCard]:
        answer = await self._read("api/virtual_card/all")
        items = items_of(answer.data, answer.status, "cards", "data")

        def parse() -> list[VirtualCard]:
            return [self._card(x, answer.status) for x in items]

        return await asyncio.to_thread(parse) if len(items) > 50 else parse()

    @typed
    async def card(self, card_hash: str) -> VirtualCard:
        answer = await self._read(f"api/virtual_card/card/{quote(card_hash, safe='')}")
        data = answer.data
        if isinstance(data, dict) and "card_hash" not in data and isinstance(data.get("card"), dict):
            data = data["card"]
        if data in (None, "null"):  # the family's answer for a hash it does not have
            raise NotFoundError("The service has no such card", status=answer.status)
        return self._card(data, answer.status)
