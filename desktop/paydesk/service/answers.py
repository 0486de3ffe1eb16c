"""Reading the service's answers: the envelope decides, never the HTTP code alone."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .errors import (AuthenticationError, DuplicateReferenceError, ModeMismatchError,
                     NotFoundError, RateLimitedError, ServiceError, ServiceUnavailableError,
                     UnexpectedAnswerError, ValidationError)

SUCCESS_WORDS = ("success", "suucess")


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
            for field, msgs in source.items():
                items = msgs if isinstance(msgs, list) else [msgs]
                errors.setdefault(str(field), []).extend(str(m) for m in items)
    if isinstance(raw_message, str) and raw_message.strip():
        text = raw_message.strip()
    elif errors:
        text = next(iter(errors.values()))[0]
    else:
        text = "The service refused the request"
    return text, errors


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def read(status: int, headers: dict[str, str], raw: bytes) -> Answer:
    """Turn one HTTP answer into an Answer, or raise the matching ServiceError."""
    if status == 429:
        raise RateLimitedError("The service asks us to slow down",
                               _retry_after(headers.get("retry-after")), status=status)
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        if status >= 500:
            raise ServiceUnavailableError(f"The service failed (HTTP {status})", status=status) from None
        raise UnexpectedAnswerError("The service's answer is not JSON", status=status,
                                    snippet=raw[:200].decode("utf-8", "replace")) from None
    if not isinstance(body, dict) or "status" not in body:
        if status >= 500:
            raise ServiceUnavailableError(f"The service failed (HTTP {status})", status=status)
        raise UnexpectedAnswerError("The service's answer is not an envelope", status=status,
                                    snippet=raw[:200].decode("utf-8", "replace"))
    word = str(body.get("status")).strip().lower()
    if word in SUCCESS_WORDS and status < 400:
        message = body.get("message")
        return Answer(status, message if isinstance(message, str) else "", body.get("data"))
    raise classify(status, body)


def classify(status: int, body: dict) -> ServiceError:
    text, errors = _errors_of(body)
    lower = text.lower()
    if status >= 500:
        return ServiceUnavailableError(text, status=status)
    if "can't be used to" in lower or "cannot be used to verify" in lower:
        return ModeMismatchError(text, status=status)
    if status in (401, 403) or "secret key" in lower or "public key" in lower or \
            "authoriz" in lower:
        return AuthenticationError(text, status=status)
    if "used before" in lower:
        return DuplicateReferenceError(text, errors, status=status)
    if status == 404 or "not found" in lower or lower == "invalid transaction":
        return NotFoundError(text, status=status)
    return ValidationError(text, errors, status=status)
