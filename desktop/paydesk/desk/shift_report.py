"""What a counter's shift report says, line by line (label, value): which counter, profile and
mode, who opened and closed the shift and when, how many sales it made and what became of
them, the amounts per currency, the first and last sale. Qt-free; the painting (PDF, paper)
and the dialog are ui/counter/report.py. The same lines for a closed shift (its figures as
frozen at close) and for an open one (its figures now, before the close is confirmed)."""

from __future__ import annotations

from datetime import datetime

from ..ledger.counter import Figures, Shift
from .texts import local_time, money_text

FIXED = {"Shift"}  # read back and typed (finance asks for "shift 12"): the fixed font

COUNTS = (("Sales made", "made"), ("Paid", "paid"), ("Open", "open"), ("Failed", "failed"),
          ("Voided", "voided"), ("Paid after void", "paid_after_void"))
AMOUNTS = (("paid", "paid"), ("open", "open"), ("voided", "voided"),
           ("paid after void", "paid_after_void"))


def heading(shift: Shift) -> str:
    return f"Shift report — {shift.counter}"


def _when_by(when: datetime | None, by: str | None) -> str:
    if when is None:
        return ""
    return f"{local_time(when)} by {by}" if by else local_time(when)


def lines(shift: Shift, figures: Figures, profile: str | None = None) -> list[tuple[str, str]]:
    """The report's lines. ``profile``: the profile's name as this desk knows it (its id
    otherwise). An open shift says so where its close would be."""
    rows: list[tuple[str, str]] = [
        ("Counter", shift.counter),
        ("Shift", str(shift.id)),
        ("Profile", profile or shift.profile_id),
        ("Mode", shift.mode.upper()),
        ("Opened", _when_by(shift.opened_at, shift.opened_by)),
        ("Closed", _when_by(shift.closed_at, shift.closed_by) if shift.closed
         else "not yet: the shift is open"),
    ]
    rows += [(label, str(getattr(figures, key))) for label, key in COUNTS]
    for currency, amounts in sorted(figures.currencies.items()):
        rows += [(f"{currency} {words}", f"{currency} {money_text(getattr(amounts, key))}")
                 for words, key in AMOUNTS]
    rows += [("First sale", local_time(figures.first_sale) or "none"),
             ("Last sale", local_time(figures.last_sale) or "none")]
    return rows
