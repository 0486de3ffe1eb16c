"""What the link form checks as it is typed: the service's own rules, said next to the field.

Qt-free; one function per field, each returning None (fine) or the message to show.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

from ...service.txref import TxRefError, validate as validate_txref

MAX_AMOUNT = 10_000_000
_EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_TX_REF = re.compile(r"[A-Za-z0-9._~:-]{1,100}")
_OURS = re.compile(r"[A-Za-z0-9]{1,8}-[0-9]{6}-[A-Za-z0-9]{6}-[0-9]{4,}[A-Za-z0-9]{2}")


def amount(text: str) -> str | None:
    t = text.strip()
    if not t:
        return "Enter the amount"
    if not t.isascii() or not t.isdigit():
        return "Whole units only, digits 0-9 (the service takes no decimals)"
    if not 1 <= int(t) <= MAX_AMOUNT:
        return f"Between 1 and {MAX_AMOUNT:,}"
    return None


def email(text: str) -> str | None:
    t = text.strip()
    if not t:
        return "Enter the customer's e-mail: the receipt goes there"
    if len(t) > 254 or not _EMAIL.fullmatch(t):
        return "Not an e-mail address"
    return None


def name(text: str, what: str) -> str | None:
    t = text.strip()
    if not t:
        return f"Enter the customer's {what}"
    if len(t) > 100:
        return "At most 100 characters"
    return None


def limit(text: str, most: int) -> str | None:
    return f"At most {most} characters" if len(text.strip()) > most else None


def url(text: str) -> str | None:
    t = text.strip()
    if not t:
        return None
    parts = urlsplit(t)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "An address starting with http:// or https://"
    if len(t) > 2048:
        return "At most 2048 characters"
    return None


def tx_ref(text: str) -> str | None:
    t = text.strip()
    if not t:
        return "A reference is needed: generate one"
    if not _TX_REF.fullmatch(t):
        return "Letters, digits and . _ ~ : - only, at most 100"
    if _OURS.fullmatch(t):
        try:
            validate_txref(t)
        except TxRefError as error:
            return str(error)
    return None


def meta(pairs: list[tuple[str, str]]) -> str | None:
    keys = [k.strip() for k, _ in pairs]
    if any(not k for k, v in zip(keys, (v for _, v in pairs)) if v.strip() or k):
        return "Each extra field needs a name"
    if len(set(keys)) != len(keys):
        return "Two extra fields have the same name"
    if len(json.dumps(dict(pairs), separators=(",", ":")).encode()) > 4096:
        return "Extra fields: at most 4 KB in all"
    return None
