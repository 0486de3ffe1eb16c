"""How a record's state reads on screen: words a counter customer understands, and colours.
One table for every view (links, counter, transactions, status bar).

A sale voided at a counter (``LinkRecord.voided_at``) reads as voided there while its link
could still be paid (VOIDED AT COUNTER), and as PAID AFTER VOID once paid: the service has
no cancel, so its own state stays "pending" and its word WAITING FOR PAYMENT would say the
shop still waits for the money. A final state other than paid (failed, cancelled, refunded,
reversed) reads in the service's words, voided or not: nobody can pay it any more."""

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
OPEN_STATES = frozenset({"creating", "pending", "unknown"})  # the customer may still pay
VOIDED_AT_COUNTER = Shown("VOIDED AT COUNTER", "#5c6675")
PAID_AFTER_VOID = Shown("PAID AFTER VOID", "#b3261e")

# The Transactions tab's state filters: (words, the states, voided at a counter: True only
# those, False none, None either). Each lists exactly the rows its words are shown on.
STATE_FILTERS: list[tuple[str, frozenset[str], bool | None]] = [
    ("All states", frozenset(), None),
    *[
        (shown.words.rstrip("…").title(), frozenset({state}), False if state in OPEN_STATES | {"success"} else None)
        for state, shown in SHOWN.items()
    ],
    ("Unknown", frozenset({"unknown"}), False),
    (VOIDED_AT_COUNTER.words.title(), OPEN_STATES, True),
    (PAID_AFTER_VOID.words.title(), frozenset({"success"}), True),
]


def shown(state: str, raw: str | None = None) -> Shown:
    """Words and colour for a state; one PayDesk does not know is shown in the service's own
    words, never as paid."""
    if state in SHOWN:
        return SHOWN[state]
    return Shown((raw or state or "unknown").upper(), _UNKNOWN)


def state_words(record: LinkRecord) -> Shown:
    """What a record is now, a sale voided at a counter said so (see above)."""
    if record.voided_at is not None:
        if record.state in OPEN_STATES:
            return VOIDED_AT_COUNTER
        if record.state == "success":
            return PAID_AFTER_VOID
    return shown(record.state, record.state_raw)


def service_words(record: LinkRecord) -> Shown:
    """The service's state alone, whatever the counter did (a customer's receipt)."""
    return shown(record.state, record.state_raw)


def money(record: LinkRecord) -> str:
    return f"{record.currency} {format_amount(record.amount)}"
