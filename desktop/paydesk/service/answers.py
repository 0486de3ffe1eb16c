"""Reading the service's answers: the envelope decides, never the HTTP code alone."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from .errors import (
    AuthenticationError,
    DuplicateReferenceError,
    ModeMismatchError,
    NotFoundError,
    RateLimitedError,
    ServiceError,
    ServiceUnavailableError,
    UnexpectedAnswerError,
    ValidationError,
    brief,
)
from .words import N_

SUCCESS_WORDS = ("success", "suucess")
MAX_DEPTH = 64  # nested arrays and objects: no answer of the service comes near
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
# the family's refusal of an amount outside the merchant's limits: "The minimum amount for
# GBP is 5", "The maximum amount for GBP is 1,000,000" (a text, not the error bag)
_AMOUNT_LIMIT = re.compile(r"the (minimum|maximum) amount\b", re.IGNORECASE)


@dataclass(frozen=True)
class Answer:
    status: int
    message: str
    data: Any


def _errors_of(body: dict) -> tuple[str, dict[str, list[str]]]:
    """The message as text, and per-field errors from ``errors`` or an object ``message``."""
    errors: dict[str, list[str]] = {}
    raw_message = body.get("message")
    for source in (body.get("errors"), raw_message):
        if isinstance(source, dict):
            for field, msgs in list(source.items())[:50]:
                items = msgs if isinstance(msgs, list) else [msgs]
                errors.setdefault(str(field), []).extend(m if isinstance(m, str) else brief(m) for m in items[:10])
    if isinstance(raw_message, str) and raw_message.strip():
        text = raw_message.strip()
        if not errors and text.lower().startswith("invalid currency"):
            errors["currency"] = [text]  # the family's, said as text: it names its field
        elif not errors and _AMOUNT_LIMIT.match(text):
            errors["amount"] = [text]  # the merchant's limit for the currency, said as text
    elif errors:
        text = next(iter(errors.values()))[0]
    else:
        text = "The service refused the request"
    return text, errors


def retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delay-seconds or an HTTP date (RFC 9110);
    None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        return float(int(text[:12]))
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def nesting(raw: bytes) -> int:
    """How deeply arrays and objects nest in a JSON text, without parsing it."""
    brackets = _STRINGS.sub(b'""', raw).translate(None, _NOT_BRACKETS)
    depth = deepest = 0
    for b in brackets:
        depth += 1 if b in (0x5B, 0x7B) else -1
        deepest = max(deepest, depth)
    return deepest


def parse(status: int, raw: bytes) -> Any:
    """The JSON of an answer; UnexpectedAnswerError (ServiceUnavailableError for a 5xx)
    for anything else, text nested past MAX_DEPTH included."""

    def failure(why: str) -> ServiceError:
        error: ServiceError
        if status >= 500:
            error = ServiceUnavailableError(
                N_("The service failed (HTTP {status})"), status=status, values={"status": status}
            )
        else:
            error = UnexpectedAnswerError(why, status=status, snippet=raw[:4000].decode("utf-8", "replace"))
        error.enveloped = False
        return error

    if nesting(raw) > MAX_DEPTH:
        raise failure("The service's answer is nested too deeply")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise failure("The service's answer is not JSON") from None


def envelope(status: int, headers: dict[str, str], raw: bytes) -> dict:
    """The answer's envelope (an object with a ``status``), or the matching ServiceError.
    Not an envelope below 500 (a framework's own 404 page, a proxy's): UnexpectedAnswerError."""
    if status == 429:
        raise RateLimitedError(
            "The service asks us to slow down", retry_after(headers.get("retry-after")), status=status
        )
    body = parse(status, raw)
    if not isinstance(body, dict) or "status" not in body:
        error: ServiceError
        if status >= 500:
            error = ServiceUnavailableError(
                N_("The service failed (HTTP {status})"), status=status, values={"status": status}
            )
        else:
            error = UnexpectedAnswerError(
                "The service's answer is not an envelope", status=status, snippet=raw[:4000].decode("utf-8", "replace")
            )
        error.enveloped = False
        raise error
    return body


def _answer(status: int, body: dict, data: Any) -> Answer:
    message = body.get("message")
    return Answer(status, message if isinstance(message, str) else "", data)


def read(status: int, headers: dict[str, str], raw: bytes) -> Answer:
    """Turn one HTTP answer into an Answer, or raise the matching ServiceError."""
    return _judged(status, envelope(status, headers, raw))


def read_lookup(status: int, headers: dict[str, str], raw: bytes) -> Answer:
    """A lookup's answer, judged by its transaction, not by the envelope's ``status``.

    The family's server answers a lookup with HTTP 201 and the transaction's own state as
    the envelope's status (``{"message": "Payment details", "status": "failed/cancelled",
    "data": {...}}``): a successful lookup of a failed payment. So any answer below 400
    that carries a transaction (an object with its ``tx_ref``) is one; its state is the
    transaction's, or the envelope's when the transaction has none. Anything else is read
    as every other call's answer is."""
    body = envelope(status, headers, raw)
    data = body.get("data")
    if status < 400 and isinstance(data, dict) and data.get("tx_ref") not in (None, ""):
        if data.get("status") in (None, "") and isinstance(body["status"], str):
            data = {**data, "status": body["status"]}
        return _answer(status, body, data)
    return _judged(status, body)


def _judged(status: int, body: dict) -> Answer:
    """Success only when the envelope says so below HTTP 400; else the matching error."""
    word = body["status"].strip().lower() if isinstance(body["status"], str) else ""
    if word in SUCCESS_WORDS and status < 400:
        return _answer(status, body, body.get("data"))
    error = classify(status, body)
    error.enveloped = isinstance(body["status"], str)  # the service's status is a word
    raise error


def classify(status: int, body: dict) -> ServiceError:
    text, errors = _errors_of(body)
    lower = text.lower()
    if status >= 500:
        return ServiceUnavailableError(text, status=status)
    if "can't be used to" in lower or "cannot be used to verify" in lower:
        return ModeMismatchError(text, status=status)
    if status in (401, 403) or "secret key" in lower or "public key" in lower or "authoriz" in lower:
        return AuthenticationError(text, status=status)
    if "used before" in lower:
        return DuplicateReferenceError(text, errors, status=status)
    if status == 404 or "not found" in lower or lower == "invalid transaction":
        return NotFoundError(text, status=status)
    return ValidationError(text, errors, status=status)
