"""Amounts and moments in a reader's language (Babel's conventions): "GBP 1,500.00" and
"27 Nov 2026 14:05" in English, "1 500,00 GBP" and "27 nov. 2026 14:05" in French.

Only for reading: exports and the ledger keep plain decimals and ISO dates whatever the
language (desk/export.py)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from ..i18n import ENGLISH, Words
from ..service.money import format_amount

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


def money_in(amount: Decimal | None, currency: str, words: Words) -> str:
    """The amount and its currency as ``words``' language writes them (English: as every
    view of PayDesk always has, the code first)."""
    if amount is None:
        return ""
    if words.locale == ENGLISH:
        return f"{currency} {format_amount(amount)}"
    return f"{amount_in(amount, words)}\u00a0{currency}"


def amount_in(amount: Decimal | None, words: Words) -> str:
    """The amount alone, its currency said beside it (or in a column of its own), as
    ``words``' language writes it: "1,500.00" in English, "1 500,00" in French."""
    if amount is None:
        return ""
    if words.locale == ENGLISH:
        return format_amount(amount)
    from babel.numbers import format_decimal  # Babel's tables: loaded on the first use

    return format_decimal(amount, format="#,##0.00", locale=words.locale)


def number_in(n: int, words: Words) -> str:
    """A count as ``words``' language writes it: "1,500" in English, "1 500" in French."""
    if words.locale == ENGLISH:
        return f"{n:,}"
    from babel.numbers import format_decimal

    return format_decimal(n, locale=words.locale)


def time_in(when: datetime | None, words: Words, *, seconds: bool = False) -> str:
    """A moment in local time as ``words``' language writes it (to the second if asked)."""
    if when is None:
        return ""
    local = when.astimezone()
    if words.locale == ENGLISH:
        return english(local, "%d %b %Y %H:%M:%S" if seconds else "%d %b %Y %H:%M")
    from babel.dates import format_datetime

    return format_datetime(local, "d MMM y HH:mm:ss" if seconds else "d MMM y HH:mm", locale=words.locale)


def day_time_in(when: datetime, words: Words) -> str:
    """A recent moment in local time, without its year (a list of the latest links): "28 Dec
    23:58" in English, "28 déc. 23:58" in French."""
    local = when.astimezone()
    if words.locale == ENGLISH:
        return english(local, "%d %b %H:%M")
    from babel.dates import format_datetime

    return format_datetime(local, "d MMM HH:mm", locale=words.locale)


def day_in(day: date, words: Words) -> str:
    """A day in full as ``words``' language writes it: "Friday 27 November 2026" in English,
    "vendredi 27 novembre 2026" in French."""
    if words.locale == ENGLISH:
        return english(day, "%A %d %B %Y")
    from babel.dates import format_date

    return format_date(day, "EEEE d MMMM y", locale=words.locale)


def list_in(items: list[str], words: Words, *, style: str = "standard") -> str:
    """Words joined as ``words``' language joins them: ``style`` "standard" ("a, b and c";
    French "a, b et c") or "or" ("a, b or c"; French "a, b ou c"). English as PayDesk always
    wrote it (no comma before the last)."""
    if words.locale == ENGLISH:
        last = " or " if style == "or" else " and "
        return last.join([", ".join(items[:-1]), items[-1]]) if len(items) > 1 else "".join(items)
    from babel.lists import format_list

    return format_list(items, style=style, locale=words.locale)  # type: ignore[arg-type]
