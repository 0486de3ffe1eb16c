"""The field rules of the contract, written once: the sandbox checks requests by them and the
OpenAPI document states them (as JSON Schema), so the two cannot drift apart.

Patterns keep to what ECMA-262 (JSON Schema), Python's ``re`` and Rust's ``regex`` (which
schemathesis validates with) all read the same way: character classes with ``\\x`` and
``\\u`` escapes; no ``\\s``, no lookarounds. Python code matches them with ``fullmatch``.
"""

from __future__ import annotations

import re
from typing import Any

# Unicode's space separators (Zs): among characters that are not controls, exactly the ones
# str.strip() removes. Required text must hold something else; the rest is trimmed.
SPACE = "\\u0020\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000"
# No one-line field (names, e-mail, title, tx_ref, URLs) holds a control character (C0,
# DEL, C1) nor a line or paragraph separator; descriptions keep tab, LF and CR.
CONTROL = "\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029"
CONTROL_IN_TEXT = "\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f"

ONE_LINE = f"^[^{CONTROL}]*$"
FILLED_ONE_LINE = f"^[{SPACE}]*[^{SPACE}{CONTROL}][^{CONTROL}]*$"
MULTI_LINE = f"^[^{CONTROL_IN_TEXT}]*$"
MAX_AMOUNT = 10_000_000
AMOUNT = "^0*(?:[1-9][0-9]{0,6}|10000000)$"  # digits only, 1 to 10,000,000
# at least one letter or digit: "." and ".." would vanish from a lookup's URL path
TX_REF = "^[A-Za-z0-9._~:-]*[A-Za-z0-9][A-Za-z0-9._~:-]*$"
_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_EMAIL = f"[A-Za-z0-9.!#$%&'*+/=?^_`{{|}}~-]+@{_LABEL}(?:\\.{_LABEL})+"
EMAIL = f"^[{SPACE}]*{_EMAIL}[{SPACE}]*$"
# host names and IPv4 addresses (not bracketed IPv6 literals), an optional port, and a
# path, query or fragment of printable ASCII
_URL = f"[Hh][Tt][Tt][Pp][Ss]?://{_LABEL}(?:\\.{_LABEL})*(?::[0-9]{{1,5}})?(?:[/?#][!-~]*)?"
URL = f"^[{SPACE}]*(?:{_URL}[{SPACE}]*)?$"  # blank: no URL (every URL field is optional)
CARD_HASH = "^ch_[0-9a-f]{32}$"
REFERENCE = "^PDK-[0-9a-f]{32}$"

# The hosted page's card form (ASCII spaces around values and between digits are fine)
TEST_CARDS = {
    "4242424242424242": "succeeds",
    "4000000000000002": "is declined",
    "4000000000003220": "asks for a 3-D Secure code",
}
TEST_CARD = "^[ -]*(?:" + "|".join("[ -]*".join(n) for n in TEST_CARDS) + ")[ -]*$"
EXPIRY = "^ *(?:0[1-9]|1[0-2]) */ *[0-9]{2} *$"
CVC = "^ *[0-9]{3,4} *$"
THREE_DS_CODE = "^ *[0-9]{6} *$"

# The website form's ``meta``: a JSON object of strings as text, within meta's rules. Names
# and values hold no control characters; a value may carry the escapes \n \r \t; spaces
# may surround the punctuation; blank is no meta.
_NAME_CHAR = f'(?:[^"\\\\{CONTROL}]|\\\\["\\\\/])'
_VALUE_CHAR = '(?:[^"\\\\\\x00-\\x1f\\x7f-\\x9f]|\\\\["\\\\/nrt])'
_MEMBER = f'"{_NAME_CHAR}{{1,40}}" *: *"{_VALUE_CHAR}{{0,100}}" *'
META_JSON = f"^ *(?:\\{{ *(?:{_MEMBER}(?:, *{_MEMBER}){{0,19}})?\\}} *)?$"

LENGTHS = {
    "amount": 64,
    "name": 100,
    "email": 254,
    "url": 2048,
    "tx_ref": 100,
    "title": 100,
    "description": 255,
    "card_hash": 100,
}
META_MEMBERS, META_NAME, META_VALUE = 20, 40, 100


def matches(pattern: str, text: str) -> bool:
    return _compiled(pattern).fullmatch(text) is not None


_CACHE: dict[str, re.Pattern] = {}


def _compiled(pattern: str) -> re.Pattern:
    if pattern not in _CACHE:
        _CACHE[pattern] = re.compile(pattern.removeprefix("^").removesuffix("$"))
    return _CACHE[pattern]


# -- the same rules as JSON Schema --------------------------------------------------------


def string(pattern: str, max_length: int, *, nullable: bool = False, **extra: Any) -> dict:
    schema: dict[str, Any] = {
        "type": ["string", "null"] if nullable else "string",
        "maxLength": max_length,
        "pattern": pattern,
    }
    return {**schema, **extra}


def currencies(allowed: tuple[str, ...]) -> dict:
    return {"type": "string", "enum": list(allowed)}


META = {
    "type": ["object", "null"],
    "maxProperties": META_MEMBERS,
    "propertyNames": {"minLength": 1, "maxLength": META_NAME, "pattern": ONE_LINE},
    "additionalProperties": string(MULTI_LINE, META_VALUE),
    "description": f"free-form strings: at most {META_MEMBERS} members, names of 1 to "
    f"{META_NAME} characters on one line, values of at most {META_VALUE}",
}
