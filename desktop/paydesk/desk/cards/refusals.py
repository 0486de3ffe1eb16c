"""What the card wallet refuses before anything is written or sent, and which failures
surely left nothing done at the service (``controller.py`` says them)."""

from __future__ import annotations

from ...service.errors import (
    AuthenticationError,
    NotFoundError,
    RateLimitedError,
    ServiceError,
    ServiceUnavailableError,
    ValidationError,
)
from . import words


class StateRefused(ValidationError):
    """Refused by PayDesk before anything is written or sent: the card, as the ledger
    knows it, is already in the state asked for, or in one that allows nothing (the
    family's server does not check a card's state: blocking a blocked card succeeds
    there, so this check is PayDesk's own)."""


class NoTestCards(ValidationError):
    """The profile's service keeps no test cards (``Profile.test_cards``): in test mode
    nothing is read or sent, so a test key never spends live money and no card is kept
    twice in the ledger."""

    def __init__(self) -> None:
        super().__init__(words.NO_TEST_CARDS)


def surely_not_done(error: ServiceError) -> bool:
    """The service refused it, or it never reached the service: nothing happened."""
    if isinstance(error, (ValidationError, AuthenticationError, NotFoundError, RateLimitedError)):
        return True
    return type(error) is ServiceUnavailableError and error.status is None


__all__ = ["NoTestCards", "StateRefused", "surely_not_done"]
