"""Keep secrets out of text: messages, logs, crash reports, exception strings.

What goes: every key given by name (whole, and as it appears percent-encoded or inside
JSON), anything shaped like the family's keys (``sec-test-…``, ``PUB-…``, hyphens and all),
whatever follows ``Authorization`` or ``Bearer``, card numbers (13 to 19 digits, spaced or
not, that pass the Luhn check: the last four are kept), and the values of ``card_pan``,
``cvv`` and their kin.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote

REDACTED = "[redacted]"
_KEY = re.compile(r"\b(?:sec|pub)-(?:(?:test|live)-)?[A-Za-z0-9_-]{8,}", re.IGNORECASE)
_AUTH = re.compile(r"(authorization[\"']?\s*[:=]\s*[\"']?)(bearer\s+)?[^\s\"',}]+", re.IGNORECASE)
_BEARER = re.compile(r"(bearer\s+)[^\s\"',}]+", re.IGNORECASE)
# a card field's value, quoted or not: 'cvv': '123', "card_pan":"4242…", cvc=123
_CARD_FIELD = re.compile(
    r"""(["']?\b(?:card_pan|card_number|pan|cvv|cvc|cvv2|security_code)\b["']?\s*[:=]\s*)"""
    r"""(?:"[^"]*"|'[^']*'|[^\s,;&}\]]+)""",
    re.IGNORECASE,
)
# digits, in groups separated by one space or hyphen ("4242 4242 4242 4242", "3782-822463-10005")
_DIGIT_RUN = re.compile(r"(?<![0-9])[0-9]+(?:[ -][0-9]+)*(?![0-9])")


def redact(text: str, *secrets: str) -> str:
    """``text`` with every given secret, key-looking token, card number and card field
    value replaced."""
    for secret in secrets:
        for form in _forms(secret):
            text = text.replace(form, REDACTED)
    text = _KEY.sub(REDACTED, text)
    text = _AUTH.sub(lambda m: m.group(1) + (m.group(2) or "") + REDACTED, text)
    text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    text = _CARD_FIELD.sub(lambda m: m.group(1) + REDACTED, text)
    return _DIGIT_RUN.sub(_card_numbers, text)


def _forms(secret: str) -> set[str]:
    """A secret as it may appear in text: itself, percent-encoded, escaped inside JSON."""
    if not secret or len(secret) < 4:
        return set()
    return {secret, quote(secret, safe=""), json.dumps(secret)[1:-1]} - {""}


def _card_numbers(match: re.Match) -> str:
    """A run of digit groups with every card number in it (consecutive groups of 13 to 19
    digits in all that pass the Luhn check, the longest first) replaced by its last four."""
    parts = re.split(r"([ -])", match.group(0))
    groups, seps = parts[0::2], parts[1::2] + [""]
    out, i = [], 0
    while i < len(groups):
        end, total = None, 0
        for j in range(i, len(groups)):
            total += len(groups[j])
            if total > 19:
                break
            if total >= 13 and luhn_valid("".join(groups[i : j + 1])):
                end = j
        if end is None:
            out.append(groups[i] + seps[i])
            i += 1
        else:
            out.append(f"[card ending {''.join(groups[i : end + 1])[-4:]}]{seps[end]}")
            i = end + 1
    return "".join(out)


def luhn_valid(digits: str) -> bool:
    """The Luhn check every card number passes (13 to 19 digits)."""
    if not (13 <= len(digits) <= 19 and digits.isdigit()):
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def looks_secret(key: str) -> bool:
    """A hint only (mode and kind are decided by the service): is this a secret key?"""
    return key.strip().lower().startswith("sec")
