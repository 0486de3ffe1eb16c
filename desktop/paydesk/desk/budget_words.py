"""How the call budget reads on screen (Qt-free): a person's call waiting, the status bar's
words while the budget is tight, and a batch's honest time left."""

from __future__ import annotations

import math

from ..service.budget import BudgetState
from ..service.budget_book import SPREAD_PARTS, reserve, spread
from ..service.call_class import CallClass

# what each class waiting is, in the status bar's words (in the order they are said)
SLOWED = {
    int(CallClass.ON_SCREEN): "codes on screen checked less often",
    int(CallClass.BULK): "bulk links slowed",
    int(CallClass.BACKGROUND): "background checks slowed",
}


def waiting_text(seconds: float) -> str:
    """ "Waiting for the service (3 s)": where a person's call waits for the budget."""
    return f"Waiting for the service ({max(1, math.ceil(seconds))} s)"


def _per(window: float) -> str:
    return "this minute" if round(window) == 60 else f"in {window:g} s"


def busy_text(state: BudgetState) -> str:
    """ "Service busy: background checks slowed; 12 of 60 calls left this minute" while calls
    wait here for the budget, or the service asked everyone to wait; "" otherwise."""
    book = state.book
    if book.paused_for > 0.5:
        return f"Service busy: it asked to wait {math.ceil(book.paused_for)} s; calls resume by priority"
    if not state.waiting or book.limit is None:
        return ""
    slowed = [words for klass, words in SLOWED.items() if klass in state.waiting]
    what = (
        (" and ".join([", ".join(slowed[:-1]), slowed[-1]]) if len(slowed) > 1 else slowed[0])
        if slowed
        else "calls wait"
    )
    left = max(0, book.left if book.left is not None else book.limit)
    return f"Service busy: {what}; {left} of {book.limit} calls left {_per(book.window)}"


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
    shared = ", shared with the counters" if counters else ", shared with other calls" if others or book.others else ""
    return f"about {_duration(seconds)} at the service's {a_minute} calls a minute{shared}"
