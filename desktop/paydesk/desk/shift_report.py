"""What a shift report says, line by line (label, value): which counter, profile and mode,
who opened and closed it and when (the person signed in, else the computer's login name),
the count of its sales by kind, the amounts per currency, the first and last sale.
Qt-free; the PDF, the dialog and the tests all read these lines (ui/counter/report.py
paints them), in the staff's language: its words, and its amounts, counts and times as the
language writes them (desk/formats.py)."""

from __future__ import annotations

from datetime import datetime

from ..i18n import N_, Words, _, pgettext, staff
from ..ledger.counter import Figures, Shift
from .formats import money_in, number_in, time_in

MODES = {"test": N_("Test (no real money)"), "live": N_("Live")}


def heading(shift: Shift) -> str:
    """ "Shift report — Till 1"."""
    return _("Shift report — {counter}").format(counter=shift.counter)


def _when(at: datetime | None, by: str | None, words: Words) -> str:
    if at is None:
        return ""
    when = time_in(at, words)
    return _("{when} by {who}").format(when=when, who=by) if by else when


def lines(shift: Shift, figures: Figures, profile_name: str = "", *, closed: bool = True) -> list[tuple[str, str]]:
    """The report's lines: ``figures`` are the shift's (frozen at its close, or counted now
    while it is open); ``profile_name``: how the profile is called (its id otherwise);
    without its Closed line when not ``closed`` (the count shown when asking to close it)."""
    words = staff()

    def count(n: int) -> str:
        return number_in(n, words)

    mode = MODES.get(shift.mode)
    rows: list[tuple[str, str]] = [
        (pgettext("till", "Counter"), shift.counter),
        (_("Profile"), profile_name or shift.profile_id),
        (_("Mode"), _(mode) if mode is not None else shift.mode),
        (pgettext("shift", "Opened"), _when(shift.opened_at, shift.opened_actor or shift.opened_by, words)),
    ]
    if closed:
        rows.append(
            (
                pgettext("shift", "Closed"),
                _when(shift.closed_at, shift.closed_actor or shift.closed_by, words) or pgettext("shift", "still open"),
            )
        )
    rows += [
        (_("Sales made"), count(figures.made)),
        (pgettext("sales", "Paid"), count(figures.paid)),
        (pgettext("sales", "Still open"), count(figures.open)),
        (pgettext("sales", "Failed"), count(figures.failed)),
        (pgettext("sales", "Voided"), count(figures.voided)),
        (pgettext("sales", "Paid after void"), count(figures.paid_after_void)),
    ]
    for currency, amounts in sorted(figures.currencies.items()):
        for label, value in (
            (_("{currency} paid").format(currency=currency), amounts.paid),
            (_("{currency} open").format(currency=currency), amounts.open),
            (_("{currency} voided").format(currency=currency), amounts.voided),
            (_("{currency} paid after void").format(currency=currency), amounts.paid_after_void),
        ):
            rows.append((label, money_in(value, currency, words)))
    none = pgettext("sale", "none")
    rows.append((_("First sale"), time_in(figures.first_sale, words) or none))
    rows.append((_("Last sale"), time_in(figures.last_sale, words) or none))
    return rows
