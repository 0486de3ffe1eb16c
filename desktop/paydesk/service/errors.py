"""What can go wrong talking to the service, as a small typed hierarchy.

No message, str() or repr() of these ever contains a key.
"""

from __future__ import annotations

import reprlib

from .redact import redact
from .words import said

MAX_MESSAGE = 500  # characters shown of a service's message
_KEPT = 4000  # characters kept to redact before cutting: no key is ever cut in half


class ServiceError(Exception):
    """Base: ``message`` is safe to show; ``status`` is the HTTP code when there was one.
    ``enveloped`` is False when the answer was not the service's envelope at all (a page,
    another program's JSON): what answers may not be the service (``probe.py``).

    Only these leave the client, whatever the service answers.
    """

    enveloped = True

    # PayDesk's own sentence (a network failure, not the service's words): its English,
    # marked for the catalogue, and its values; str() says it in the reader's language while
    # ``message`` stays English (what the ledger and the logs keep)
    words: tuple[str, dict[str, object]] | None = None

    def __init__(self, message: str, *, status: int | None = None, values: dict[str, object] | None = None):
        if values is not None:
            self.words = (message, values)
            message = message.format(**values)
        self._text = redact(str(message)[:_KEPT])
        self.message = _short(self._text)
        self.status = status
        super().__init__(self.message)

    def __str__(self) -> str:
        if self.words is None:
            return self.message
        return said(*self.words)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, status={self.status})"

    def scrubbed(self, *secrets: str) -> ServiceError:
        """This error with the given secrets (the client's own key) removed from all its
        text, whatever their shape; returns itself."""
        self._text = redact(self._text, *secrets)
        self.message = _short(self._text)
        self.args = (self.message,)
        return self


class AuthenticationError(ServiceError):
    """The key is missing, unknown, or of the wrong kind for this call."""


class ModeMismatchError(AuthenticationError):
    """A test key on live data, or a live key on test data."""


class ValidationError(ServiceError):
    """The service refused the request as sent; ``errors`` maps field -> messages."""

    def __init__(self, message: str, errors: dict[str, list[str]] | None = None, *, status: int | None = None):
        super().__init__(message, status=status)
        self.errors = {
            _short(redact(k[:_KEPT]), 100): [_short(redact(m[:_KEPT])) for m in v[:10]]
            for k, v in list((errors or {}).items())[:50]
        }

    def scrubbed(self, *secrets: str) -> ServiceError:
        self.errors = {redact(k, *secrets): [redact(m, *secrets) for m in v] for k, v in self.errors.items()}
        return super().scrubbed(*secrets)


class NotFoundError(ServiceError):
    """No such transaction, card or route."""


class DuplicateReferenceError(ValidationError):
    """The tx_ref was used before, and not by this intent."""


MAX_RETRY_AFTER = 300.0  # seconds: the longest wait PayDesk takes from a service


class RateLimitedError(ServiceError):
    """The service asks to slow down. ``retry_after`` is how many seconds to wait before
    the next call (at most MAX_RETRY_AFTER, whatever the service asked), or None."""

    def __init__(self, message: str, retry_after: float | None, *, status: int | None = 429):
        super().__init__(message, status=status)
        self.retry_after = None if retry_after is None else min(retry_after, MAX_RETRY_AFTER)


class ServiceUnavailableError(ServiceError):
    """Network failure, timeout, or a 5xx: the service could not answer."""


class NotTheServiceError(ServiceUnavailableError):
    """Something other than the service answers at this address (``probe.py`` asked it,
    without a key): nothing more is sent to it, and no key is wrong."""


class AnswerLostError(ServiceUnavailableError):
    """The request may have reached the service, but its answer never came back."""


class ClientClosedError(ServiceError):
    """The client was closed (PayDesk quitting, the profile's keys changing) before or
    while this call waited: make the call again on the session's current client."""


class UnexpectedAnswerError(ServiceError):
    """Not JSON, or not the shape the service promises. Carries the first 200 characters."""

    def __init__(self, message: str, *, status: int | None, snippet: str = ""):
        super().__init__(message, status=status)
        self._source = redact(snippet[:_KEPT])

    @property
    def snippet(self) -> str:
        return self._source[:200]

    def __str__(self) -> str:
        return f"{self.message} (HTTP {self.status}): {self.snippet!r}"

    def scrubbed(self, *secrets: str) -> ServiceError:
        self._source = redact(self._source, *secrets)
        return super().scrubbed(*secrets)


def _short(text: str, limit: int = MAX_MESSAGE) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_BRIEF = reprlib.Repr()
_BRIEF.maxlevel, _BRIEF.maxstring, _BRIEF.maxother = 3, 200, 100
_BRIEF.maxlist = _BRIEF.maxdict = _BRIEF.maxtuple = 8
_BRIEF.maxlong = 40


def brief(value: object) -> str:
    """A short repr of any answer value, however large or deep (for error snippets)."""
    try:
        return _BRIEF.repr(value)
    except Exception:  # noqa: BLE001 - a snippet must never be the failure
        return f"<{type(value).__name__}>"
