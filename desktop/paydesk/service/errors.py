"""What can go wrong talking to the service, as a small typed hierarchy.

No message, str() or repr() of these ever contains a key.
"""

from __future__ import annotations

from .redact import redact


class ServiceError(Exception):
    """Base: ``message`` is safe to show; ``status`` is the HTTP code when there was one."""

    def __init__(self, message: str, *, status: int | None = None):
        self.message = redact(str(message))
        self.status = status
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, status={self.status})"


class AuthenticationError(ServiceError):
    """The key is missing, unknown, or of the wrong kind for this call."""


class ModeMismatchError(AuthenticationError):
    """A test key on live data, or a live key on test data."""


class ValidationError(ServiceError):
    """The service refused the request as sent; ``errors`` maps field -> messages."""

    def __init__(self, message: str, errors: dict[str, list[str]] | None = None, *,
                 status: int | None = None):
        super().__init__(message, status=status)
        self.errors = {k: [redact(m) for m in v] for k, v in (errors or {}).items()}


class NotFoundError(ServiceError):
    """No such transaction, card or route."""


class DuplicateReferenceError(ValidationError):
    """The tx_ref was used before, and not by this intent."""


class RateLimitedError(ServiceError):
    def __init__(self, message: str, retry_after: float | None, *, status: int | None = 429):
        super().__init__(message, status=status)
        self.retry_after = retry_after


class ServiceUnavailableError(ServiceError):
    """Network failure, timeout, or a 5xx: the service could not answer."""


class AnswerLostError(ServiceUnavailableError):
    """The request may have reached the service, but its answer never came back."""


class UnexpectedAnswerError(ServiceError):
    """Not JSON, or not the shape the service promises. Carries the first 200 characters."""

    def __init__(self, message: str, *, status: int | None, snippet: str = ""):
        super().__init__(message, status=status)
        self.snippet = redact(snippet[:200])

    def __str__(self) -> str:
        return f"{self.message} (HTTP {self.status}): {self.snippet!r}"
