"""The async client of the service: one per profile and mode, every operation typed."""

from __future__ import annotations

import asyncio
import logging
import random
from decimal import Decimal
from typing import Any, Awaitable, Callable, Mapping, TypeVar
from urllib.parse import quote

import httpx

from .. import __version__
from .answers import Answer, read
from .errors import (AnswerLostError, DuplicateReferenceError, NotFoundError, RateLimitedError,
                     ServiceError, ServiceUnavailableError, UnexpectedAnswerError,
                     ValidationError)
from .models import (DEFAULT_CARD_CURRENCIES, CardTransaction, PaymentLink, PaymentRequest,
                     Transaction, VirtualCard, items_of)
from .money import to_wire

log = logging.getLogger("paydesk.service")
T = TypeVar("T")
MAX_ANSWER = 2 * 1024 * 1024  # bytes; a bigger answer is not the service's


class ServiceClient:
    """Talks to one service deployment with one secret key (so: one profile, one mode).

    ``async with ServiceClient(base_url, key) as client: await client.validate("REF")``.
    """

    def __init__(self, base_url: str, secret_key: str, *, timeout: float = 20.0,
                 connect_timeout: float = 5.0, transport: httpx.AsyncBaseTransport | None = None,
                 retries: int = 3, backoff: float = 0.3, max_backoff: float = 5.0,
                 card_currencies: Mapping[str, str] = DEFAULT_CARD_CURRENCIES,
                 create_attempts: int = 8):
        self.base_url = base_url.rstrip("/")
        self._key = secret_key
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.create_attempts = create_attempts
        self.card_currencies = dict(card_currencies)
        self._http = httpx.AsyncClient(
            base_url=self.base_url + "/",
            headers={"Accept": "application/json", "Authorization": f"Bearer {secret_key}",
                     "User-Agent": f"PayDesk/{__version__}"},
            timeout=httpx.Timeout(timeout, connect=connect_timeout),
            transport=transport, follow_redirects=False,
        )

    def __repr__(self) -> str:
        return f"ServiceClient({self.base_url!r})"

    async def __aenter__(self) -> "ServiceClient":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # -- one exchange ---------------------------------------------------------

    async def _exchange(self, method: str, path: str, body: dict | None = None) -> Answer:
        """Send once; read the answer within the overall timeout. Raises ServiceError."""
        try:
            async with asyncio.timeout(self.timeout):
                async with self._http.stream(method, path.lstrip("/"), json=body) as reply:
                    raw = bytearray()
                    async for chunk in reply.aiter_raw():
                        raw += chunk
                        if len(raw) > MAX_ANSWER:
                            raise UnexpectedAnswerError(
                                "The service's answer is far too large", status=reply.status_code,
                                snippet=bytes(raw[:200]).decode("utf-8", "replace"))
                    return read(reply.status_code, dict(reply.headers), bytes(raw))
        except TimeoutError:
            raise AnswerLostError(f"No answer from the service within {self.timeout:g} s") from None
        except httpx.ConnectError:
            raise ServiceUnavailableError("The service cannot be reached") from None
        except (httpx.ConnectTimeout, httpx.PoolTimeout):
            raise ServiceUnavailableError("The service cannot be reached (timed out)") from None
        except httpx.TimeoutException:
            raise AnswerLostError("The service stopped answering (timed out)") from None
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
            raise AnswerLostError("The connection to the service was cut") from None
        except httpx.DecodingError:
            raise UnexpectedAnswerError("The service's answer could not be decoded", status=None) from None
        except httpx.HTTPError as exc:
            raise ServiceUnavailableError(f"Network error ({type(exc).__name__})") from None

    def _delay(self, attempt: int, error: ServiceError) -> float:
        if isinstance(error, RateLimitedError) and error.retry_after is not None:
            return min(error.retry_after, self.max_backoff * 4)
        base = min(self.max_backoff, self.backoff * (2 ** attempt))
        return random.uniform(base / 2, base)  # jittered

    async def _retrying(self, call: Callable[[], Awaitable[T]]) -> T:
        """For reads (and card GETs): retry transport errors, 5xx and 429, bounded."""
        attempt = 0
        while True:
            try:
                return await call()
            except (ServiceUnavailableError, RateLimitedError) as error:
                if attempt >= self.retries:
                    raise
                delay = self._delay(attempt, error)
                log.info("retrying in %.2f s after %s", delay, type(error).__name__)
                attempt += 1
                await asyncio.sleep(delay)

    async def _read(self, path: str) -> Answer:
        return await self._retrying(lambda: self._exchange("GET", path))

    async def _write(self, path: str, body: dict) -> Answer:
        """Writes are not blindly retried: only when the service surely did not act
        (it could not be reached, or it said slow down)."""
        attempt = 0
        while True:
            try:
                return await self._exchange("POST", path, body)
            except (RateLimitedError, ServiceUnavailableError) as error:
                never_arrived = isinstance(error, RateLimitedError) or (
                    type(error) is ServiceUnavailableError and error.status is None)
                if not never_arrived or attempt >= self.retries:
                    raise
                await asyncio.sleep(self._delay(attempt, error))
                attempt += 1

    # -- payments -------------------------------------------------------------

    async def validate(self, tx_ref: str) -> Transaction:
        """Look a transaction up by the merchant's reference."""
        if not tx_ref or not tx_ref.strip():
            raise ValidationError("tx_ref is required", {"tx_ref": ["tx_ref is required"]})
        try:
            answer = await self._read(f"api/transaction/{quote(tx_ref.strip(), safe='')}")
        except NotFoundError as error:
            if "not submitted" in error.message.lower():
                return Transaction.not_submitted(tx_ref.strip())
            raise
        return Transaction.parse(answer.data, answer.status)

    async def create_payment(self, request: PaymentRequest, *, resumed: bool = False) -> PaymentLink:
        """Create a payment link; never two payments for one intent, never a lost one.

        When the answer is lost, the tx_ref is looked up: found, that is the result;
        unknown, the same request (same tx_ref) goes again. "Used before" is resolved
        the same way: ours if the recorded payment matches this intent. When the
        service shows too little to compare (the family's unpaid lookup), it is ours
        only if an earlier send of ours may have arrived: after a lost answer here, or
        ``resumed=True`` when the caller is settling a create interrupted earlier.
        """
        maybe_sent = resumed
        body = request.to_json()
        last_error: ServiceError | None = None
        for attempt in range(self.create_attempts):
            if attempt:
                await asyncio.sleep(self._delay(attempt - 1, last_error))
            duplicate: DuplicateReferenceError | None = None
            try:
                answer = await self._exchange("POST", "api/payment", body)
            except DuplicateReferenceError as error:
                duplicate = error
            except RateLimitedError as error:
                last_error = error
                continue  # refused before acting: send again
            except ServiceUnavailableError as error:
                last_error = error  # the answer is lost, or never came: ask the service
                maybe_sent = maybe_sent or error.status is not None or isinstance(error, AnswerLostError)
            else:
                return self._link_from(request, answer)
            try:
                found = await self._find_intent(request, maybe_sent)
            except NotFoundError:
                if duplicate is not None:
                    raise duplicate from None
                continue  # it never arrived: send again, with the same tx_ref
            except (ServiceUnavailableError, RateLimitedError) as error:
                last_error = error
                continue
            if found is None:
                raise DuplicateReferenceError(
                    "Transaction reference has been used before, for another payment",
                    {"tx_ref": ["used before, for another payment"]}, status=409)
            return found
        assert last_error is not None
        raise last_error

    @staticmethod
    def _link_from(request: PaymentRequest, answer: Answer) -> PaymentLink:
        data = answer.data if isinstance(answer.data, dict) else {}
        url = data.get("checkout_url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise UnexpectedAnswerError("No checkout_url in the answer", status=answer.status,
                                        snippet=repr(answer.data))
        return PaymentLink(tx_ref=request.tx_ref, checkout_url=url)

    async def _find_intent(self, request: PaymentRequest, maybe_sent: bool) -> PaymentLink | None:
        """The link for this intent if the service has it; None if the tx_ref is someone else's.
        Raises NotFoundError when the service has no such tx_ref."""
        tx = await self.validate(request.tx_ref)
        if tx.amount is None and not maybe_sent:
            return None  # nothing to compare, and none of ours can have arrived
        if tx.amount is not None and (tx.amount != Decimal(to_wire(request.amount))
                                      or (tx.currency and tx.currency != request.currency)
                                      or (tx.email and tx.email.lower() != request.email.lower())):
            return None
        url = f"{self.base_url}/payment/{tx.reference}" if tx.reference else None
        return PaymentLink(tx_ref=request.tx_ref, checkout_url=url, recovered=True)

    # -- virtual cards --------------------------------------------------------

    def _card(self, data: Any, status: int) -> VirtualCard:
        return VirtualCard.parse(data, status, self.card_currencies)

    async def create_card(self, amount: Decimal | int | str, currency: str,
                          callback_url: str | None = None) -> VirtualCard:
        body = {"amount": to_wire(amount), "currency": currency}
        if callback_url:
            body["callback_url"] = callback_url
        answer = await self._write("api/virtual_card/create", body)
        return self._card(answer.data, answer.status)

    async def fund_card(self, card_hash: str, amount: Decimal | int | str) -> str:
        answer = await self._write("api/virtual_card/fund",
                                   {"amount": to_wire(amount), "card_hash": card_hash})
        return answer.message

    async def withdraw_card(self, card_hash: str, amount: Decimal | int | str) -> str:
        answer = await self._write("api/virtual_card/withdraw",
                                   {"amount": to_wire(amount), "card_hash": card_hash})
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

    async def block_card(self, card_hash: str) -> str:
        return await self._card_action("block", card_hash, ("already blocked",))

    async def unblock_card(self, card_hash: str) -> str:
        return await self._card_action("unblock", card_hash, ("not blocked",))

    async def terminate_card(self, card_hash: str) -> str:
        return await self._card_action("terminate", card_hash, ("terminated",))

    async def card_transactions(self, card_hash: str) -> list[CardTransaction]:
        answer = await self._read(f"api/virtual_card/transactions/{quote(card_hash, safe='')}")
        return [CardTransaction.parse(x, answer.status)
                for x in items_of(answer.data, answer.status, "transactions", "data")]

    async def cards(self) -> list[VirtualCard]:
        answer = await self._read("api/virtual_card/all")
        return [self._card(x, answer.status)
                for x in items_of(answer.data, answer.status, "cards", "data")]

    async def card(self, card_hash: str) -> VirtualCard:
        answer = await self._read(f"api/virtual_card/card/{quote(card_hash, safe='')}")
        data = answer.data
        if isinstance(data, dict) and "card_hash" not in data and isinstance(data.get("card"), dict):
            data = data["card"]
        return self._card(data, answer.status)
