"""What the link form, the card dialogs and the profile editor check as it is typed: the
service's own rules and a profile's, said next to the field.

Qt-free; one function per field, each returning None (fine) or the message to show.
"""

from __future__ import annotations

import re
from decimal import Decimal

from ..i18n import N_, _, staff
from ..service.txref import TxRefError
from ..service.txref import validate as validate_txref
from .formats import list_in, number_in

MAX_AMOUNT = 10_000_000
# said where an amount is typed (the form and the counter display): the service takes no pence
WHOLE_UNITS = N_("Whole units only: the service takes no pence or cents (25, not 25.50)")
WHOLE_UNITS_SHORT = N_("whole units, no pence")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_EMAIL = re.compile(rf"[A-Za-z0-9.!#$%&'*+/=?^_`{{|}}~-]+@{_LABEL}(?:\.{_LABEL})+")
# at least one letter or digit: "." and ".." would vanish from a lookup's URL path
_TX_REF = re.compile(r"(?=.*[A-Za-z0-9])[A-Za-z0-9._~:-]{1,100}")
# a host name or IPv4 address, an optional port, then printable ASCII (as the service takes)
_URL = re.compile(rf"[Hh][Tt][Tt][Pp][Ss]?://{_LABEL}(?:\.{_LABEL})*(?::[0-9]{{1,5}})?(?:[/?#][!-~]*)?")
# no control character, nor a line or paragraph separator, in a one-line field
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
META_FIELDS, META_NAME, META_VALUE = 20, 40, 100
WHOLE_DIGITS = N_("Whole units only, digits 0-9")
# how a spreadsheet writes a whole number with its thousands grouped: by commas, dots,
# spaces (French Excel: no-break ones) or apostrophes (Swiss), the same one throughout
_GROUPED = re.compile("[0-9]{1,3}(?P<sep>[,. \u00a0\u202f'\u2019])[0-9]{3}(?:(?P=sep)[0-9]{3})*")
_INDIAN = re.compile("[0-9]{1,2}(?:,[0-9]{2})*,[0-9]{2},[0-9]{3}")  # 1,50,000: a lakh and a half
# a decimal mark and one or two decimals after the whole part (25.00, 1.500,00)
_DECIMALS = re.compile("(?P<whole>.+?)(?P<mark>[.,])(?P<cents>[0-9]{1,2})")
_CURRENCY_SIGNS = "£$€¥₹₩₽₺₦₱₫₪฿¢"
_OURS = re.compile(r"[A-Za-z0-9]{1,8}-[0-9]{6}-[A-Za-z0-9]{6}-[0-9]{4,}[A-Za-z0-9]{2}")


def amount(text: str) -> str | None:
    t = text.strip()
    if not t:
        return _("Enter the amount")
    if not t.isascii() or not t.isdigit():
        return _not_digits(t)
    return _in_range(int(t))


def _in_range(value: int) -> str | None:
    return None if 1 <= value <= MAX_AMOUNT else _("Between 1 and {most}").format(most=number_in(MAX_AMOUNT, staff()))


def _not_digits(t: str) -> str:
    """What to say of an amount that is not digits alone: what a spreadsheet's formatting
    added (a currency sign, thousands separators, ".00") named, with the number to type;
    "no decimals" said only of real decimals. A separator is never taken for a decimal
    point (``1,500`` and ``1.500`` are fifteen hundred) and nothing is guessed silently."""
    bare = t.strip(_CURRENCY_SIGNS + " \u00a0\u202f")
    sign = bare != t  # £1,500 or 1.500 €
    cents = ""
    decimal = _DECIMALS.fullmatch(bare)
    if decimal and not (_GROUPED.fullmatch(bare) or _INDIAN.fullmatch(bare)):
        bare, cents = decimal.group("whole"), decimal.group("cents")
        grouped = _GROUPED.fullmatch(bare)
        if grouped and grouped.group("sep") == decimal.group("mark"):
            return _(WHOLE_DIGITS)  # 1,500,00: not a number anyone writes
    grouped = _GROUPED.fullmatch(bare) or _INDIAN.fullmatch(bare)
    if not (bare.isascii() and bare.isdigit()) and not grouped:
        return _(WHOLE_DIGITS)
    if cents.strip("0"):  # real decimals: nothing to type but a decision
        return (
            _("Whole units only, without thousands separators (the service takes no decimals)")
            if grouped
            else _("{rule} (the service takes no decimals)").format(rule=_(WHOLE_DIGITS))
        )
    digits = "".join(c for c in bare if c.isdigit())
    wrong = _in_range(int(digits))
    if wrong:
        return wrong
    extra = [
        what
        for what, there in (
            (_("currency sign"), sign),
            (_("thousands separators"), bool(grouped)),
            (_("decimals"), bool(cents)),
        )
        if there
    ]
    return _("No {said}: type {digits}").format(said=list_in(extra, staff(), style="or"), digits=digits)


def email(text: str) -> str | None:
    t = text.strip()
    if not t:
        return _("Enter the customer's e-mail: the receipt goes there")
    if len(t) > 254 or not _EMAIL.fullmatch(t):
        return _("Not an e-mail address")
    return None


def _one_line(text: str) -> str | None:
    return _("One line of text, without control characters") if _CONTROL.search(text) else None


def name(text: str, what: str) -> str | None:
    t = text.strip()
    if not t:
        return _("Enter the customer's {what}").format(what=what)
    if len(t) > 100:
        return _("At most 100 characters")
    return _one_line(t)


def limit(text: str, most: int, *, lines: bool = False) -> str | None:
    """A free text of at most ``most`` characters (one line unless ``lines``)."""
    t = text.strip()
    if len(t) > most:
        return _("At most {most} characters").format(most=most)
    if lines:
        return _("Text only, without control characters") if _CONTROL_IN_TEXT.search(t) else None
    return _one_line(t)


def url(text: str) -> str | None:
    t = text.strip()
    if not t:
        return None
    if len(t) > 2048:
        return _("At most 2048 characters")
    if not _URL.fullmatch(t):
        return _("An address starting with http:// or https://")
    return None


def tx_ref(text: str) -> str | None:
    t = text.strip()
    if not t:
        return _("A reference is needed: generate one")
    if not _TX_REF.fullmatch(t):
        return _("Letters, digits and . _ ~ : - only, at most 100")
    if _OURS.fullmatch(t):
        try:
            validate_txref(t)
        except TxRefError as error:
            return _(str(error))  # the service layer's sentence, in the staff's language
    return None


def meta(pairs: list[tuple[str, str]]) -> str | None:
    keys = [k.strip() for k, _unused in pairs]
    if any(not k for k, v in zip(keys, (v for _unused, v in pairs)) if v.strip() or k):
        return _("Each extra field needs a name")
    if len(set(keys)) != len(keys):
        return _("Two extra fields have the same name")
    if len(keys) > META_FIELDS:
        return _("At most {count} extra fields").format(count=META_FIELDS)
    if any(len(k) > META_NAME or _CONTROL.search(k) for k in keys):
        return _("An extra field's name: one line, at most {count} characters").format(count=META_NAME)
    if any(len(v) > META_VALUE or _CONTROL_IN_TEXT.search(v) for _unused, v in pairs):
        return _("An extra field's value: text of at most {count} characters").format(count=META_VALUE)
    return None


def whole_amount(text: str, most: Decimal | None = None, most_words: str = "") -> tuple[Decimal | None, str | None]:
    """An amount typed in whole units (a card's fund or withdraw): (amount, None) or
    (None, what is wrong)."""
    typed = text.strip().replace(",", "").replace(" ", "")
    if not typed:
        return None, _("Enter an amount in whole units, e.g. 25")
    if not typed.isdigit():
        return None, _("Whole units only, e.g. 25 (the service takes no decimals)")
    amount = Decimal(int(typed))
    if amount < 1:
        return None, _("At least 1")
    if amount > MAX_AMOUNT:
        return None, _("At most {most}").format(most=number_in(MAX_AMOUNT, staff()))
    if most is not None and amount > most:
        return None, _("At most {most_words}").format(most_words=most_words)
    return amount, None


def cardholder_name(text: str, what: str) -> str | None:
    """What is wrong with a part of the name on the card, or None."""
    if not text.strip():
        return _("Enter the cardholder's {what}, as it goes on the card").format(what=what)
    return name(text, what)


MOST_CALLS_A_MINUTE = 100_000


def calls_a_minute(text: str) -> tuple[int | None, str | None]:
    """ "Calls a minute this service allows" as typed in the profile editor: (the number,
    None), (None, None) when empty (as the service's answers say), or (None, what is wrong)."""
    t = text.strip()
    if not t:
        return None, None
    if not t.isascii() or not t.isdigit():
        return None, _("A whole number of calls, e.g. 60; or leave it empty")
    value = int(t[:12])
    if not 1 <= value <= MOST_CALLS_A_MINUTE:
        return None, _("Between 1 and {most}; or leave it empty").format(most=number_in(MOST_CALLS_A_MINUTE, staff()))
    return value, None


def txref_prefix(text: str) -> tuple[str, str | None]:
    """A profile's reference prefix as typed: (the prefix in capitals, None), or (what was
    typed, what is wrong)."""
    t = text.strip()
    if not (1 <= len(t) <= 8 and t.isascii() and t.isalnum()):
        return t, _("1 to 8 letters or digits, e.g. SHOP")
    return t.upper(), None


def currency_codes(text: str) -> tuple[list[str], str | None]:
    """A profile's currencies as typed, split by commas: (the codes in capitals, None), or
    (those codes, what is wrong)."""
    codes = [c.strip().upper() for c in text.split(",") if c.strip()]
    if not codes or any(len(c) != 3 or not c.isalpha() for c in codes):
        return codes, _("List three-letter currency codes, e.g. GBP, USD")
    return codes, None
