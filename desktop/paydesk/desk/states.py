"""How a record's state reads on screen: words a counter customer understands, and colours.
One table for every view (links, counter, transactions, status bar)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..service.money import format_amount

if TYPE_CHECKING:
    from ..ledger import LinkRecord


class Shown(NamedTuple):
    words: str
    colour: str


SHOWN = {
    "creating": Shown("CREATING…", "#5c6675"),
    "pending": Shown("WAITING FOR PAYMENT", "#2155cd"),
    "success": Shown("PAID", "#1b7f3b"),
    "failed": Shown("PAYMENT FAILED", "#b3261e"),
    "cancelled": Shown("CANCELLED", "#8a5a00"),
    "refunded": Shown("REFUNDED", "#6b3fa0"),
    "reversed": Shown("REVERSED", "#6b3fa0"),
    "rejected": Shown("NOT CREATED", "#b3261e"),
}
_UNKNOWN = "#5c6675"


def shown(state: str, raw: str | None = None) -> Shown:
    """Words and colour for a state; one PayDesk does not know is shown in the service's own
    words, never as paid."""
    if state in SHOWN:
        return SHOWN[state]
    return Shown((raw or state or "unknown").upper(), _UNKNOWN)


def state_words(record: LinkRecord) -> Shown:
    return shown(record.state, record.state_raw)


def money(record: LinkRecord) -> str:
    return f"{record.currency} {format_amount(record.amount)}"
