"""How a record's state reads on screen: words a counter customer understands, and colours.
One table for every view (links, counter, transactions, status bar).

A sale voided at a counter (``LinkRecord.voided_at``) reads as voided there while its link
could still be paid (VOIDED AT COUNTER), and as PAID AFTER VOID once paid: the service has
no cancel, so its own state stays "pending" and its word WAITING FOR PAYMENT would say the
shop still waits for the money. A final state other than paid (failed, cancelled, refunded,
reversed) reads in the service's words, voided or not: nobody can pay it any more.

The words are the staff's language's (``_``), or the customer's when a ``Words`` is given
(the customer display)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..i18n import N_, Words, staff

if TYPE_CHECKING:
    from ..ledger import LinkRecord


class Shown(NamedTuple):
    words: str
    colour: str


SHOWN = {
    "creating": Shown(N_("CREATING…"), "#5c6675"),
    "pending": Shown(N_("WAITING FOR PAYMENT"), "#2155cd"),
    "success": Shown(N_("PAID"), "#1b7f3b"),
    "failed": Shown(N_("PAYMENT FAILED"), "#b3261e"),
    "cancelled": Shown(N_("CANCELLED"), "#8a5a00"),
    "refunded": Shown(N_("REFUNDED"), "#6b3fa0"),
    "reversed": Shown(N_("REVERSED"), "#6b3fa0"),
    "rejected": Shown(N_("NOT CREATED"), "#b3261e"),
}
_UNKNOWN = "#5c6675"
UNKNOWN_WORDS = N_("UNKNOWN")  # a state neither PayDesk nor the service put in words
OPEN_STATES = frozenset({"creating", "pending", "unknown"})  # the customer may still pay
VOIDED_AT_COUNTER = Shown(N_("VOIDED AT COUNTER"), "#5c6675")
PAID_AFTER_VOID = Shown(N_("PAID AFTER VOID"), "#b3261e")

# The Transactions tab's state filters: (words, the states, voided at a counter: True only
# those, False none, None either). Each lists exactly the rows its words are shown on.
FILTER_WORDS = {
    "creating": N_("Creating"),
    "pending": N_("Waiting for payment"),
    "success": N_("Paid"),
    "failed": N_("Payment failed"),
    "cancelled": N_("Cancelled"),
    "refunded": N_("Refunded"),
    "reversed": N_("Reversed"),
    "rejected": N_("Not created"),
}
STATE_FILTERS: list[tuple[str, frozenset[str], bool | None]] = [
    (N_("All states"), frozenset(), None),
    *[
        (FILTER_WORDS[state], frozenset({state}), False if state in OPEN_STATES | {"success"} else None)
        for state in SHOWN
    ],
    (N_("Unknown"), frozenset({"unknown"}), False),
    (N_("Voided at counter"), OPEN_STATES, True),
    (N_("Paid after void"), frozenset({"success"}), True),
]


def _said(shown: Shown, words: Words | None) -> Shown:
    return Shown((words or staff()).gettext(shown.words), shown.colour)


def shown(state: str, raw: str | None = None, words: Words | None = None) -> Shown:
    """Words and colour for a state; one PayDesk does not know is shown in the service's own
    words, never as paid."""
    if state in SHOWN:
        return _said(SHOWN[state], words)
    if raw or (state and state != "unknown"):
        return Shown((raw or state).upper(), _UNKNOWN)
    return _said(Shown(UNKNOWN_WORDS, _UNKNOWN), words)


def state_words(record: LinkRecord, words: Words | None = None) -> Shown:
    """What a record is now, a sale voided at a counter said so (see above)."""
    if record.voided_at is not None:
        if record.state in OPEN_STATES:
            return _said(VOIDED_AT_COUNTER, words)
        if record.state == "success":
            return _said(PAID_AFTER_VOID, words)
    return shown(record.state, record.state_raw, words)


def service_words(record: LinkRecord, words: Words | None = None) -> Shown:
    """The service's state alone, whatever the counter did (a customer's receipt)."""
    return shown(record.state, record.state_raw, words)
