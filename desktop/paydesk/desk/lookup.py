"""What someone typed, pasted or scanned into the lookup box, as something to look up.

Qt-free. A barcode or QR scanner acting as a keyboard types a reference, or a whole URL: a
checkout URL (its last part is the service's reference) or a return/callback URL (its query
carries ``tx_ref``). PayDesk's own references are checked by their check characters before
any call, and a typo is located when exactly one change explains it ("character 14 looks
mistyped"); otherwise the reference is said not to check out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import parse_qs, urlsplit

from ..i18n import _
from ..service.txref import INSTALLATION_ALPHABET, NOT_CHECKING_OUT, corrections, is_consistent

# PREFIX-YYMMDD-INSTAL-SEQ…CC: the shape PayDesk's own references have, loosely (a typo
# may put a letter where a digit belongs)
_OURS = re.compile(r"([A-Z0-9]{1,8})-[A-Z0-9]{6}-[A-Z0-9]{6}-[A-Z0-9]{6,}")
_ANY_REF = re.compile(r"[A-Za-z0-9._~:-]{1,100}")
_SERVICE_REF = re.compile(r"/payment/([A-Za-z0-9._~-]{4,100})/?(?:receipt)?$")


@dataclass(frozen=True)
class Typed:
    tx_ref: str | None = None  # the merchant's reference, to validate
    reference: str | None = None  # the service's own reference (from a checkout URL)
    problem: str | None = None  # what is wrong with what was typed; nothing is sent


def read(text: str, prefixes: frozenset[str] = frozenset()) -> Typed:
    """What to look up for ``text`` (a reference, a checkout URL, a URL with tx_ref=…).
    A reference in PayDesk's shape starting with one of ``prefixes`` (the profiles') is one
    of PayDesk's own: its check characters must agree."""
    typed = text.strip()
    if not typed:
        return Typed(problem=_("Type, paste or scan a reference"))
    if typed.lower().startswith(("http://", "https://")):
        return _from_url(typed, prefixes)
    compact = re.sub(r"\s+", "", typed)
    upper = compact.upper()
    shape = _OURS.fullmatch(upper)
    if shape and shape.group(1) in prefixes:
        if not is_consistent(upper) or not _plausible(upper, prefixes):
            return Typed(tx_ref=upper, problem=locate_typo(upper, prefixes))
        return Typed(tx_ref=upper)
    if not _ANY_REF.fullmatch(compact):
        return Typed(problem=_("A reference has letters, digits and . _ ~ : - only"))
    return Typed(tx_ref=compact)  # someone else's reference: as typed, straight to the service


def _from_url(url: str, prefixes: frozenset[str]) -> Typed:
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    if query.get("tx_ref"):
        return read(query["tx_ref"][0], prefixes)
    found = _SERVICE_REF.search(parts.path)
    if found:
        return Typed(reference=found.group(1))
    return Typed(problem=_("This link carries no payment reference"))


def _plausible(candidate: str, prefixes: frozenset[str]) -> bool:
    """Could PayDesk have made this reference: one of the profiles' prefixes (the fixed
    part: never where a typo is looked for), a real date, an installation's letters?"""
    prefix, day, installation, rest = candidate.split("-", 3)
    if prefixes and prefix not in prefixes:
        return False
    if not day.isdigit():
        return False
    try:
        datetime.strptime(day, "%y%m%d")
    except ValueError:
        return False
    return all(c in INSTALLATION_ALPHABET for c in installation) and rest[:-2].isdigit()


def locate_typo(ref: str, prefixes: frozenset[str] = frozenset()) -> str:
    """Where the typing mistake in ``ref`` is, in the user's words (1-based positions,
    hyphens counted, as the reference is read): said only when exactly one change (one
    character, or two neighbours swapped) gives a reference PayDesk could have made;
    otherwise that the reference does not check out, and no character is blamed."""
    explained = [(how, candidate) for how, candidate in corrections(ref) if _plausible(candidate, prefixes)]
    if len(explained) != 1:
        return _(NOT_CHECKING_OUT)
    how, candidate = explained[0]
    first = next(i for i, (a, b) in enumerate(zip(ref, candidate)) if a != b)
    if how == "swapped":
        return _("Characters {first} and {second} look swapped").format(first=first + 1, second=first + 2)
    return _("Character {position} looks mistyped").format(position=first + 1)
