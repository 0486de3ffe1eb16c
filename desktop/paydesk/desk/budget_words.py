"""How the call budget reads on screen (Qt-free): a person's call waiting, the status bar's
words while the budget is tight, and a batch's honest time left."""

from __future__ import annotations

import math

from ..i18n import N_, _, ngettext, staff
from ..service.budget import BudgetState
from ..service.budget_book import SPREAD_PARTS, reserve, spread
from ..service.call_class import CallClass
from .formats import list_in, number_in

# what each class waiting is, in the status bar's words (in the order they are said)
SLOWED = {
    int(CallClass.ON_SCREEN): N_("codes on screen checked less often"),
    int(CallClass.BULK): N_("bulk links slowed"),
    int(CallClass.BACKGROUND): N_("background checks slowed"),
}


def waiting_text(seconds: float) -> str:
    """ "Waiting for the service (3 s)": where a person's call waits for the budget."""
    return _("Waiting for the service ({seconds} s)").format(seconds=max(1, math.ceil(seconds)))


def _per(window: float) -> str:
    return _("this minute") if round(window) == 60 else _("in {seconds:g} s").format(seconds=window)


def busy_text(state: BudgetState) -> str:
    """ "Service busy: background checks slowed; 12 of 60 calls left this minute" while calls
    wait here for the budget, or the service asked everyone to wait; "" otherwise."""
    book = state.book
    if book.paused_for > 0.5:
        return _("Service busy: it asked to wait {seconds} s; calls resume by priority").format(
            seconds=math.ceil(book.paused_for)
        )
    if not state.waiting or book.limit is None:
        return ""
    slowed = [_(words) for klass, words in SLOWED.items() if klass in state.waiting]
    what = list_in(slowed, staff()) if slowed else _("calls wait")
    left = max(0, book.left if book.left is not None else book.limit)
    return ngettext(
        "Service busy: {what}; {left} of {limit} calls left {per}",
        "Service busy: {what}; {left} of {limit} calls left {per}",
        left,
    ).format(what=what, left=number_in(left, staff()), limit=number_in(book.limit, staff()), per=_per(book.window))


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds / 10) * 10 if seconds > 10 else round(seconds))} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def time_left(rows: int, state: BudgetState | None) -> str:
    """ "about 2 h 50 min at the service's 60 calls a minute, shared with the counters": how
    long ``rows`` creates take at what the budget leaves a batch (its limit less a batch's
    reserve, the other classes' calls and another program's in the window; at most its
    spread share of each sixth of the window); "" when the
    service has no limit (nothing to wait for) or nothing is left."""
    limit = state.book.limit if state is not None else None
    if rows <= 0 or state is None or limit is None:
        return ""
    book = state.book
    others = sum(n for klass, n in book.used.items() if klass != int(CallClass.BULK))
    share = max(
        1,
        min(
            limit - reserve(CallClass.BULK, limit) - others - book.others,
            (spread(CallClass.BULK, limit) or limit) * SPREAD_PARTS,
        ),
    )
    seconds = rows / share * book.window
    a_minute = round(limit * 60 / book.window)
    counters = any(book.used.get(int(k)) for k in (CallClass.PERSON_CREATE, CallClass.ON_SCREEN))
    shared = (
        _(", shared with the counters") if counters else _(", shared with other calls") if others or book.others else ""
    )
    return _("about {duration} at the service's {a_minute} calls a minute{shared}").format(
        duration=_duration(seconds), a_minute=a_minute, shared=shared
    )
