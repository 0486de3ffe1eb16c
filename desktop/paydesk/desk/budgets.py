"""The desk's call budgets (``service/budget.py``): one per service origin, the scheme, host
and port of a profile's address. The service throttles by client address, so every profile
and mode calling one origin, every client the session leases, spends from one budget; on a
shared ledger the book behind it is the shop's (``ledger/postgres/budget.py``), so every
desk, counter and the notification receiver of the shop spend from one.

``BusyWatch`` says on the hub (``service_busy``) what the status bar shows of the active
profile's budget while it is tight ("Service busy: background checks slowed; 12 of 60 calls
left this minute"), and "" when the cause has gone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from urllib.parse import urlsplit

from ..config.merchants import host_and_port
from ..config.profiles import Profile
from ..service.budget import Budget, BudgetState
from ..service.budget_book import WINDOW, Book, MemoryBook
from .budget_words import busy_text
from .events import Hub

log = logging.getLogger("paydesk.budgets")
BookFor = Callable[[str, float], Book]  # (origin, window) -> the book of that origin
REFRESH = 0.25  # s: the status bar's words at most this often
TICK = 1.0  # s: while the words are shown, they are read again this often (a pause counts down)


def origin_of(base_url: str) -> str:
    """``https://Pay.Example.com/api-base`` -> ``https://pay.example.com:443``."""
    parts = urlsplit(base_url.strip())
    scheme = (parts.scheme or "https").lower()
    host, port = host_and_port(parts)
    return f"{scheme}://{host}:{port or (443 if scheme == 'https' else 80)}"


def per_window(calls_a_minute: int | None, window: float) -> int | None:
    """A profile's "calls a minute" as calls in the budget's window (at least one)."""
    if not calls_a_minute:
        return None
    return max(1, int(calls_a_minute * window / 60.0))


class Budgets:
    """``of(profile)``: the budget of the profile's origin, made on first use with
    ``book_for(origin, window)`` (default: this process's book). ``window``: the service's
    window in seconds (a minute, as the family's)."""

    def __init__(self, book_for: BookFor | None = None, *, window: float = WINDOW):
        self.window = window
        self._book_for: BookFor = book_for or (lambda origin, window: MemoryBook(window))
        self._by_origin: dict[str, Budget] = {}
        self._listeners: list[Callable[[], None]] = []

    def of(self, profile: Profile, profiles: list[Profile] | None = None) -> Budget:
        """The budget ``profile`` calls through, its limit by hand the lowest any profile of
        that origin sets (``Profile.calls_a_minute``)."""
        origin = origin_of(profile.base_url)
        budget = self._by_origin.get(origin)
        if budget is None:
            budget = Budget(self._book_for(origin, self.window), name=origin)
            for listener in self._listeners:
                budget.on_change(listener)
            self._by_origin[origin] = budget
        hands = [
            p.calls_a_minute
            for p in [profile, *(profiles or [])]
            if p.calls_a_minute and origin_of(p.base_url) == origin
        ]
        budget.hand = per_window(min(hands), self.window) if hands else None
        return budget

    def state(self, profile: Profile) -> BudgetState | None:
        """The budget of ``profile``'s origin as it is now (None: nothing called it yet)."""
        budget = self._by_origin.get(origin_of(profile.base_url))
        return budget.state() if budget is not None else None

    def all(self) -> dict[str, Budget]:
        return dict(self._by_origin)

    def on_change(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)
        for budget in self._by_origin.values():
            budget.on_change(listener)

    async def close(self) -> None:
        for budget in list(self._by_origin.values()):
            await budget.close()


class BusyWatch:
    """The status bar's words about the active profile's budget, said on ``hub.service_busy``
    when they change (at most every ``REFRESH`` s; each ``TICK`` s while shown)."""

    def __init__(self, budgets: Budgets, hub: Hub, active: Callable[[], Profile | None]):
        self.budgets, self.hub, self.active = budgets, hub, active
        self.text = ""
        self._timer: asyncio.TimerHandle | None = None
        budgets.on_change(self.changed)
        hub.session_changed.connect(self.changed)

    def changed(self) -> None:
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop yet: said at the next change
            return
        self._timer = loop.call_later(REFRESH, self._say)

    def _say(self) -> None:
        self._timer = None
        try:
            profile = self.active()
            state = self.budgets.state(profile) if profile is not None else None
            text = busy_text(state) if state is not None else ""
        except Exception:
            log.exception("the status bar's words about the service's budget failed")
            return
        if text != self.text:
            self.text = text
            self.hub.service_busy.emit(text)
        if text:  # a pause counts down, the calls left come back: read again
            self._timer = asyncio.get_running_loop().call_later(TICK, self._say)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
