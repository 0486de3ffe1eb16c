"""Which column holds which field: guessed from the headers (case, spaces, "_", "-" and "."
ignored; the usual other names), then shown to the user, who may change it.

A Mapping is field -> column index; extra fields are mapped as "meta.<name>".
"""

from __future__ import annotations

import re

from .sheet import FIELDS, META, REQUIRED

Mapping = dict[str, int]

_OTHER_NAMES = {
    "amount": ("amount", "sum", "price", "total", "amount due", "amount to pay"),
    "currency": ("currency", "ccy", "currency code"),
    "email": ("email", "e-mail", "mail", "email address", "e-mail address", "customer email", "customer e-mail"),
    "first_name": ("first name", "firstname", "first", "given name", "forename"),
    "last_name": ("last name", "lastname", "last", "surname", "family name"),
    "title": ("title", "subject"),
    "description": ("description", "desc", "details"),
    "tx_ref": ("tx ref", "txref", "tx reference", "reference", "ref", "transaction reference", "payment reference"),
    "callback_url": ("callback url", "callback", "webhook url", "notification url"),
    "return_url": ("return url", "redirect url", "return"),
}
_IGNORED = re.compile(r"[\s_\-.]+")


def _key(text: str) -> str:
    return _IGNORED.sub("", text).casefold()


_BY_KEY = {_key(name): field for field, names in _OTHER_NAMES.items() for name in names}


def guess_mapping(headers: list[str]) -> Mapping:
    """The fields whose column the headers name (the first such column of each), and every
    "meta.<name>" column as the extra field <name>."""
    mapping: Mapping = {}
    for index, header in enumerate(headers):
        text = header.strip()
        if text[: len(META)].casefold() == META and text[len(META) :].strip():
            field = META + text[len(META) :].strip()
        else:
            found = _BY_KEY.get(_key(text))
            if found is None:
                continue
            field = found
        mapping.setdefault(field, index)
    return mapping


def unmapped(headers: list[str], mapping: Mapping) -> list[str]:
    """The headers of the columns no field takes (offered to the user as extra fields)."""
    taken = set(mapping.values())
    return [h for i, h in enumerate(headers) if i not in taken]


def missing(mapping: Mapping) -> list[str]:
    """The required fields no column is mapped to (nothing can be created without them)."""
    return [f for f in REQUIRED if f not in mapping]


def extra_field(header: str) -> str:
    """The field an unknown column becomes when the user keeps it as an extra field."""
    text = header.strip()
    if text[: len(META)].casefold() == META:
        return META + text[len(META) :].strip()
    return META + text


__all__ = ["FIELDS", "Mapping", "extra_field", "guess_mapping", "missing", "unmapped"]
