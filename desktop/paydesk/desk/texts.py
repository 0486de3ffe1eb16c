"""How times and money read in the Transactions tab: local time on screen, UTC on hover;
what the merchant receives when the service says it apart from the link's amount; the
ledger's English sentences and the modes as a person reads them."""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING

from ..i18n import Words, staff
from ..service.money import MoneyError, format_amount, parse_amount
from .formats import english, number_in

if TYPE_CHECKING:
    from ..ledger import LinkRecord


def local_time(when: datetime | None) -> str:
    return english(when.astimezone(), "%d %b %Y %H:%M") if when else ""


def utc_time(when: datetime | None) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S UTC") if when else ""


def money_text(amount: Decimal | None) -> str:
    return format_amount(amount) if amount is not None else ""


def received(record: LinkRecord) -> Decimal | None:
    """What the merchant receives, when the service's lookup says it apart from the link's
    amount: the family's, for a merchant who passes the fee to the customer, reports the
    amount less the charge. The link's amount stays what it is (nothing changed); None when
    the service reported the link's own amount, or no charge to tell them apart."""
    said = (record.raw or {}).get("amount")
    if said is None or record.fee is None or not record.fee:
        return None
    try:
        amount = parse_amount(said if not isinstance(said, float) else repr(said))
    except MoneyError:
        return None
    if amount != record.amount and amount + record.fee == record.amount:
        return amount
    return None


# the ledger's English sentences with something in them (desk/cards/settling.py, the activity
# book's exports), read back in the staff's language by their shape; a plural is its two forms
KEPT_SENTENCES: tuple[str | tuple[str, str], ...] = (
    "The service lists the card it made ({card})",
    "The card is {state} at the service",
    "The card shows the credit (balance {balance})",
    "The card shows the debit (balance {balance})",
    "The card's balance moved by its amount ({before} before, {now} now); the service lists no credit for it",
    "The card's balance moved by its amount ({before} before, {now} now); the service lists no debit for it",
    "The card shows no such credit (balance {balance})",
    "The card shows no such debit (balance {balance})",
    ("Transactions: {n} record to {file}", "Transactions: {n} records to {file}"),
    ("Card audit: {n} line to {file}", "Card audit: {n} lines to {file}"),
)


@cache
def _shapes() -> tuple[tuple[re.Pattern[str], str | tuple[str, str]], ...]:
    shapes = []
    for sentence in KEPT_SENTENCES:
        for form in (sentence,) if isinstance(sentence, str) else sentence:
            pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+?)", re.escape(form))
            shapes.append((re.compile(pattern + "$"), sentence))
    return tuple(shapes)


def ledger_words(text: str | None) -> str:
    """A sentence the ledger keeps in English whatever the staff's language (a record's
    error, a card audit line's detail, an activity's): in the staff's language when it is
    one of PayDesk's own messages (a fixed one, or one of KEPT_SENTENCES with its values as
    written), the service's own words as they are."""
    if not text:
        return ""  # never gettext(""): the catalogue's header
    words = staff()
    for shape, sentence in _shapes():
        found = shape.match(text)
        if found is None:
            continue
        values = found.groupdict()
        if "state" in values:  # a card's state word, lowered ("blocked"): the badge's own
            word = values["state"][:1].upper() + values["state"][1:]
            values["state"] = words.gettext(word).lower()
        if isinstance(sentence, str):
            return words.gettext(sentence).format(**values)
        n = int(values["n"].replace(",", ""))
        return words.ngettext(*sentence, n).format(**{**values, "n": number_in(n, words)})
    return words.gettext(text)


def mode_word(mode: str, words: Words | None = None) -> str:
    """A mode as a heading says it, "TEST" or "LIVE", in the staff's language (or ``words``')."""
    words = words or staff()
    if mode == "test":
        return words.gettext("TEST")
    if mode == "live":
        return words.gettext("LIVE")
    return mode.upper()
