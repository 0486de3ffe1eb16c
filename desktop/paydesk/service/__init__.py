"""The Qt-free async client of the payment collection service.

PayDesk's windows never speak HTTP; they call this. So can a script::

    async with ServiceClient("http://127.0.0.1:8000/pay", secret_key) as service:
        link = await service.create_payment(PaymentRequest(...))
"""

from typing import TYPE_CHECKING

from .errors import (
    AnswerLostError,
    AuthenticationError,
    ClientClosedError,
    DuplicateReferenceError,
    ModeMismatchError,
    NotFoundError,
    NotTheServiceError,
    RateLimitedError,
    ServiceError,
    ServiceUnavailableError,
    UnexpectedAnswerError,
    ValidationError,
)
from .models import CardState, CardTransaction, PaymentLink, PaymentRequest, Transaction, TransactionState, VirtualCard
from .money import format_amount, parse_amount, to_wire

if TYPE_CHECKING:
    from .client import ServiceClient


def __getattr__(name: str) -> "type[ServiceClient]":
    # httpx is imported on first use of the client, not by ``import paydesk.service``:
    # the window paints before the network stack is loaded.
    if name == "ServiceClient":
        from .client import ServiceClient

        return ServiceClient
    raise AttributeError(name)


__all__ = [
    "ServiceClient",
    "ServiceError",
    "AuthenticationError",
    "ModeMismatchError",
    "ValidationError",
    "NotFoundError",
    "DuplicateReferenceError",
    "RateLimitedError",
    "ServiceUnavailableError",
    "NotTheServiceError",
    "AnswerLostError",
    "ClientClosedError",
    "UnexpectedAnswerError",
    "PaymentRequest",
    "PaymentLink",
    "Transaction",
    "TransactionState",
    "VirtualCard",
    "CardState",
    "CardTransaction",
    "format_amount",
    "parse_amount",
    "to_wire",
]
