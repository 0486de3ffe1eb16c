"""How a link's state reads on screen: words a counter customer understands, and colours."""

from __future__ import annotations

from ...service.money import format_amount

SHOWN = {
    "creating": ("CREATING…", "#5c6675"),
    "pending": ("WAITING FOR PAYMENT", "#2155cd"),
    "success": ("PAID", "#1b7f3b"),
    "failed": ("PAYMENT FAILED", "#b3261e"),
    "failed/cancelled": ("PAYMENT FAILED", "#b3261e"),
    "cancelled": ("CANCELLED", "#8a5a00"),
    "refunded": ("REFUNDED", "#6b3fa0"),
    "reversed": ("REVERSED", "#6b3fa0"),
    "rejected": ("NOT CREATED", "#b3261e"),
}


def shown(state: str) -> tuple[str, str]:
    """(words, colour) for a state; an unknown one is shown verbatim, never as paid."""
    return SHOWN.get(state.lower(), (state.upper() or "UNKNOWN", "#5c6675"))


def money(record) -> str:
    return f"{record.currency} {format_amount(record.amount)}"
