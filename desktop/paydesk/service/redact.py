"""Keep keys out of text: messages, logs, reports, exception strings."""

from __future__ import annotations

import re

# sec-test-..., SEC-TEST-..., pub-live-..., PUB-...: the family's key formats, plus
# anything carried in an Authorization header.
_KEY = re.compile(r"\b(?:sec|pub)-(?:(?:test|live)-)?[A-Za-z0-9_]{8,}", re.IGNORECASE)
_AUTH = re.compile(r"(authorization[\"']?\s*[:=]\s*[\"']?)(bearer\s+)?[^\s\"',}]+", re.IGNORECASE)
_BEARER = re.compile(r"(bearer\s+)[^\s\"',}]+", re.IGNORECASE)


def redact(text: str, *secrets: str) -> str:
    """``text`` with every key-looking token, and every given secret, replaced."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[redacted]")
    text = _KEY.sub("[redacted]", text)
    text = _AUTH.sub(lambda m: m.group(1) + (m.group(2) or "") + "[redacted]", text)
    return _BEARER.sub(lambda m: m.group(1) + "[redacted]", text)


def looks_secret(key: str) -> bool:
    """A hint only (mode and kind are decided by the service): is this a secret key?"""
    return key.strip().lower().startswith("sec")
