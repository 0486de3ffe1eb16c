"""What a shift report says, line by line (label, value): which counter, profile and mode,
who opened and closed it and when (the person signed in, else the computer's login name),
the count of its sales by kind, the amounts per currency, the first and last sale.
Qt-free; the PDF, the dialog and the tests all read these lines (ui/counter/report.py
paints them)."""

from __future__ import annotations

from datetime import datetime

from ..ledger.counter import Figures, Shift
from .texts import local_time, money_text

MODES = {"test": "Test (no real money)", "live": "Live"}


def heading(shift: Shift) -> str:
    """ "Shift report — Till 1"."""
    return f"Shift report — {shift.counter}"


def _when(at: datetime | None, by: str | None) -> str:
    if at is None:
        return ""
    return f"{local_time(at)} by {by}" if by else local_time(at)


def lines(shift: Shift, figures: Figures, profile_name: str = "") -> list[tuple[str, str]]:
    """The report's lines: ``figures`` are the shift's (frozen at its close, or counted now
    while it is open); ``profile_name``: how the profile is called (its id otherwise)."""
    rows: list[tuple[str, str]] = [
        ("Counter", shift.counter),
        ("Profile", profile_name or shift.profile_id),
        ("Mode", MODES.get(shift.mode, shift.mode)),
        ("Opened", _when(shift.opened_at, shift.opened_actor or shift.opened_by)),
        ("Closed", _when(shift.closed_at, shift.closed_actor or shift.closed_by) or "still open"),
        ("Sales made", str(figures.made)),
        ("Paid", str(figures.paid)),
        ("Still open", str(figures.open)),
        ("Failed", str(figures.failed)),
        ("Voided", str(figures.voided)),
        ("Paid after void", str(figures.paid_after_void)),
    ]
    for currency, amounts in sorted(figures.currencies.items()):
        for label, value in (
            ("paid", amounts.paid),
            ("open", amounts.open),
            ("voided", amounts.voided),
            ("paid after void", amounts.paid_after_void),
        ):
            rows.append((f"{currency} {label}", f"{currency} {money_text(value)}"))
    rows.append(("First sale", local_time(figures.first_sale) or "none"))
    rows.append(("Last sale", local_time(figures.last_sale) or "none"))
    return rows
