"""How times and money read in the Transactions tab: local time on screen, UTC on hover;
what the merchant receives when the service says it apart from the link's amount; the
ledger's English sentences and the modes as a person reads them."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from ..i18n import Words, staff
from ..service.money import MoneyError, format_amount, parse_amount

if TYPE_CHECKING:
    from ..ledger import LinkRecord


# English's month and day names, whatever the computer's locale: Qt sets the C library's
# locale from the system (setlocale), so strftime's %b on a French system wrote "nov." in an
# English window
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")  # fmt: skip
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def english(moment: datetime | date, pattern: str) -> str:
    """``strftime`` with English names for %b, %B, %a and %A whatever the locale."""
    month, weekday = MONTHS[moment.month - 1], DAYS[moment.weekday()]
    named = pattern.replace("%B", month).replace("%b", month[:3]).replace("%A", weekday).replace("%a", weekday[:3])
    return moment.strftime(named)


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


def ledger_words(text: str | None) -> str:
    """A sentence the ledger keeps in English whatever the staff's language (a record's
    error, a card audit line's detail): in the staff's language when it is one of PayDesk's
    own fixed messages, the service's own words as they are."""
    return staff().gettext(text) if text else ""  # never gettext(""): the catalogue's header


def mode_word(mode: str, words: Words | None = None) -> str:
    """A mode as a heading says it, "TEST" or "LIVE", in the staff's language (or ``words``')."""
    words = words or staff()
    if mode == "test":
        return words.gettext("TEST")
    if mode == "live":
        return words.gettext("LIVE")
    return mode.upper()
