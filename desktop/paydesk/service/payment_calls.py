"""The payment-link calls of ServiceClient (a mixin: it speaks through the client's
``_exchange``, ``_lookup`` and its waits): a create that never makes two payments for one
intent and never loses one."""

from __future__ import annotations

import asyncio
from contextvars import ContextVar
from decimal import Decimal
from typing import TYPE_CHECKING

from .answers import Answer
from .errors import (
    AnswerLostError,
    DuplicateReferenceError,
    NotFoundError,
    NotTheServiceError,
    RateLimitedError,
    ServiceError,
    ServiceUnavailableError,
    UnexpectedAnswerError,
    brief,
)
from .models import PaymentLink, PaymentRequest, Transaction
from .money import to_wire
from .typed import typed

# the deadline of the create under way in this task: waiting for the budget is not counted
_DEADLINE: ContextVar[asyncio.Timeout | None] = ContextVar("paydesk_create_deadline", default=None)


class _CreateState:
    """What one create_payment has learnt so far."""

    def __init__(self, maybe_sent: bool):
        self.maybe_sent = maybe_sent
        self.last_error: ServiceError | None = None


class PaymentCalls:
    """Create a payment link (``create_payment``)."""

    # what it speaks through: ServiceClient's, said here for the type checker
    base_url: str
    create_attempts: int
    create_deadline: float

    if TYPE_CHECKING:

        async def _exchange(self, method: str, path: str, body: dict | None = None) -> Answer: ...

        async def _lookup(self, tx_ref: str) -> Transaction: ...

        async def _pause(self, delay: float) -> None: ...

        def _delay(self, attempt: int, error: ServiceError | None) -> float: ...

        def _limited_again(self, error: Exception, limited: int) -> bool: ...

    @typed
    async def create_payment(
        self, request: PaymentRequest, *, resumed: bool = False, deadline: float | None = None
    ) -> PaymentLink:
        """Create a payment link; never two payments for one intent, never a lost one.

        When the answer is lost, the tx_ref is looked up: found, that is the result;
        unknown, the same request (same tx_ref) goes again. "Used before" is resolved
        the same way: ours if the recorded payment matches this intent. When the
        service shows too little to compare (the family's unpaid lookup), it is ours
        only if an earlier send of ours may have arrived: after a lost answer here, or
        ``resumed=True`` when the caller is settling a create interrupted earlier.

        All of it takes at most ``deadline`` seconds (the client's ``create_deadline``).
        Past it, or when the service asks to wait longer than this client waits, the
        outcome is left open: AnswerLostError if a send of ours may have arrived (keep
        the intent and settle it later with ``resumed=True``), else the last error.
        """
        state = _CreateState(maybe_sent=resumed)
        limit = self.create_deadline if deadline is None else deadline
        try:
            async with asyncio.timeout(limit) as timer:
                token = _DEADLINE.set(timer)
                try:
                    return await self._create(request, state)
                finally:
                    _DEADLINE.reset(token)
        except TimeoutError:
            why = f"No confirmation from the service within {limit:g} s"
        except RateLimitedError as error:
            if not state.maybe_sent:
                raise
            why = f"The service asks to wait {error.retry_after or 0:g} s before confirming"
        if state.maybe_sent:
            raise AnswerLostError(f"{why}; the payment may exist: settle it later with the same reference") from None
        raise state.last_error or ServiceUnavailableError(f"{why}; nothing was sent") from None

    async def _create(self, request: PaymentRequest, state: _CreateState) -> PaymentLink:
        body = request.to_json()
        attempt = limited = 0
        while attempt < self.create_attempts:
            if attempt:
                await self._pause(self._delay(attempt - 1, state.last_error))
            attempt += 1
            duplicate: DuplicateReferenceError | None = None
            try:
                answer = await self._exchange("POST", "api/payment", body)
            except NotTheServiceError:
                raise  # another program answers there: the caller keeps the intent
            except DuplicateReferenceError as error:
                duplicate = error
            except RateLimitedError as error:
                state.last_error = error
                if self._limited_again(error, limited):  # the budget waits its pause
                    limited += 1
                    attempt -= 1
                continue  # refused before acting: send again
            except ServiceUnavailableError as error:
                state.last_error = error  # the answer is lost, or never came: ask the service
                state.maybe_sent = state.maybe_sent or error.status is not None or isinstance(error, AnswerLostError)
            else:
                return self._link_from(request, answer)
            try:
                found = await self._find_intent(request, state.maybe_sent)
            except NotFoundError:
                if duplicate is not None:
                    raise duplicate from None
                continue  # it never arrived: send again, with the same tx_ref
            except NotTheServiceError:
                raise
            except (ServiceUnavailableError, RateLimitedError) as error:
                state.last_error = error
                continue
            if found is None:
                raise DuplicateReferenceError(
                    "Transaction reference has been used before, for another payment",
                    {"tx_ref": ["used before, for another payment"]},
                    status=409,
                )
            return found
        assert state.last_error is not None
        if state.maybe_sent and not isinstance(state.last_error, AnswerLostError):
            raise AnswerLostError(
                f"{state.last_error.message}; the payment may exist: settle it later with the same reference",
                status=state.last_error.status,
            )
        raise state.last_error

    @staticmethod
    def _link_from(request: PaymentRequest, answer: Answer) -> PaymentLink:
        data = answer.data if isinstance(answer.data, dict) else {}
        url = data.get("checkout_url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise UnexpectedAnswerError(
                "No checkout_url in the answer", status=answer.status, snippet=brief(answer.data)
            )
        return PaymentLink(tx_ref=request.tx_ref, checkout_url=url)

    async def _find_intent(self, request: PaymentRequest, maybe_sent: bool) -> PaymentLink | None:
        """The link for this intent if the service has it; None if the tx_ref is someone else's.
        Raises NotFoundError when the service has no such tx_ref."""
        tx = await self._lookup(request.tx_ref)
        if tx.amount is None and not maybe_sent:
            return None  # nothing to compare, and none of ours can have arrived
        if tx.amount is not None and (
            not tx.same_amount(Decimal(to_wire(request.amount)))
            or (tx.currency and tx.currency != request.currency)
            or (tx.email and tx.email.lower() != request.email.lower())
        ):
            return None
        url = f"{self.base_url}/payment/{tx.reference}" if tx.reference else None
        return PaymentLink(tx_ref=request.tx_ref, checkout_url=url, recovered=True)
