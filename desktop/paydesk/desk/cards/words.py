"""How cards read on screen: state badges, money in the card's currency (through the profile's
currency code map), expiry, and what each operation's outcome says. One table for every
card view."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import NamedTuple

from ...config.profiles import Profile
from ...ledger.cards import CardOperation, CardRecord
from ...service.money import format_amount


class Badge(NamedTuple):
    words: str
    colour: str


STATES = {1: Badge("Active", "#1b7f3b"), 2: Badge("Blocked", "#8a5a00"),
          0: Badge("Terminated", "#5c6675")}
STATE_FILTERS: tuple[tuple[str, frozenset[int]], ...] = (("All states", frozenset()), ("Active", frozenset({1})),
                 ("Blocked", frozenset({2})), ("Terminated", frozenset({0})))
VERBS = {"create": "Create card", "fund": "Fund", "withdraw": "Withdraw", "block": "Block",
         "unblock": "Unblock", "terminate": "Terminate"}
DONE = {"create": "Card created.", "fund": "Card funded.", "withdraw": "Withdrawn from the card.",
        "block": "Card blocked.", "unblock": "Card unblocked.", "terminate": "Card terminated."}


def badge(state: int | None) -> Badge:
    """Active, Blocked, Terminated; any other number as the service said it."""
    if state in STATES:
        return STATES[state]
    return Badge("state unknown" if state is None else f"state {state}", "#5c6675")


def currency_of(profile: Profile | None, code: str | None) -> str | None:
    """The ISO code for the service's currency code, or None when the map does not know it."""
    if not code:
        return None
    known = profile.card_currencies if profile else {}
    if code in known:
        return known[code]
    return code if code.isalpha() and len(code) == 3 else None


def unknown_code_hint(code: str | None) -> str:
    return (f"The service's currency code {code!r} is not in this profile's card currency "
            "map: add it in Edit profile (Ctrl+,)")


def money(profile: Profile | None, code: str | None, amount: Decimal | None) -> str:
    """``GBP 70.00``; with a code the map does not know, the amount and the code as they are."""
    if amount is None:
        return "—"
    iso = currency_of(profile, code)
    if iso:
        return f"{iso} {format_amount(amount)}"
    return f"{format_amount(amount)} (code {code})" if code else format_amount(amount)


def card_money(profile: Profile | None, record: CardRecord, amount: Decimal | None) -> str:
    return money(profile, record.currency_code, amount)


def expiry(record: CardRecord, today: date | None = None) -> tuple[str, bool]:
    """``05/2029``, and whether the card has expired."""
    text = record.expiration or "—"
    if record.expiration and "-" in record.expiration:
        year, _, month = record.expiration.partition("-")
        text = f"{month[:2]}/{year}"
    expired = record.expired(today or date.today())
    return (f"{text} (expired)" if expired else text), expired


def when(moment: datetime | None, *, seconds: bool = False) -> str:
    if moment is None:
        return "—"
    return moment.astimezone().strftime("%d %b %Y %H:%M:%S" if seconds else "%d %b %Y %H:%M")


def outcome(op: CardOperation) -> str:
    """What the user is told about an operation, in a sentence."""
    what = VERBS[op.kind].lower()
    if op.amount is not None:
        what += f" {op.currency or ''} {format_amount(op.amount)}".replace("  ", " ")
    if op.state == "sending":
        return f"Sending: {what}…"
    if op.state == "lost":
        return (f"The answer to {what} was lost. PayDesk is checking with the service whether "
                "it happened; nothing is sent again.")
    if op.state == "done":
        lead = "The answer was lost; checked with the service: it was done." if op.settled else "Done."
        return f"{lead} {DONE[op.kind]}"
    if op.settled:
        return (f"The answer was lost; checked with the service: {what} was NOT done "
                f"({op.result}). You may try again.")
    return f"Not done: {op.result}"
