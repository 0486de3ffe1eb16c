"""The server's throttle: N requests a window per client address, on every ``/api`` route,
as the family's real server has it (Laravel's ``throttle:api``:
``Limit::perMinute(60)->by($request->ip())`` in its RouteServiceProvider).

Modelled on Laravel's ``ThrottleRequests`` middleware over ``RateLimiter`` on the cache:

- one counter per client address (the connection's: the ASGI scope's client host; no
  ``X-Forwarded-For`` is believed), shared by every merchant, key and mode;
- the counter is made by the first hit, with its timer (``availableAt``: whole epoch seconds,
  now + the window), and both expire with the timer: a **fixed window from the first
  request**, never a sliding one; the next hit after it starts a new one;
- ``tooManyAttempts`` is checked first and ``hit`` only after it, so a refused request is
  not counted: refusals never push the window's end further away;
- it runs as a route middleware, so only requests that match an ``/api`` route are counted:
  a path no route has (404), a method the route does not take (405), a CORS preflight
  (answered before routing), the checkout pages and the sandbox's ``_sandbox`` control
  routes are not;
- every answer of a counted request carries ``X-RateLimit-Limit`` and
  ``X-RateLimit-Remaining`` (the limit less the window's hits, read when the answer goes
  out); a refusal is 429 "Too Many Attempts." with ``Retry-After`` (seconds to the timer),
  ``X-RateLimit-Reset`` (the timer, epoch seconds) and ``X-RateLimit-Remaining: 0``.

The windows are in memory: a restart of the sandbox forgets them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.routing import Match, Route

# the family's server: Limit::perMinute(60)
FAMILY_LIMIT = 60
MINUTE = 60
_UNITS = {"s": 1, "sec": 1, "second": 1, "min": 60, "minute": 60, "h": 3600, "hour": 3600}
_RATE = re.compile(r"(\d+)(?:/(\d*)(s|sec|second|min|minute|h|hour))?")
OFF = ("off", "none", "0")
TOO_MANY = "Too Many Attempts."  # the framework's words for the refusal


def parse_rate(text: str) -> tuple[int, int]:
    """``"60/min"`` -> (60, 60); ``"5/10s"`` -> (5, 10); ``"100/hour"``; a bare ``"N"`` is N
    a minute; ``"off"`` (or ``"0"``) -> (0, 60): no throttle. ValueError otherwise."""
    text = text.strip().lower()
    if text in OFF:
        return 0, MINUTE
    found = _RATE.fullmatch(text)
    if not found:
        raise ValueError(f"{text!r}: write N/min (e.g. 60/min), N/s, N/<seconds>s, N/hour or off")
    limit = int(found.group(1))
    window = int(found.group(2) or 1) * _UNITS[found.group(3) or "min"]
    if window < 1:
        raise ValueError(f"{text!r}: the window must be at least one second")
    return limit, window


@dataclass
class Window:
    hits: int
    resets_at: int  # epoch seconds: the timer (Laravel's ``availableAt``)


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    limit: int
    retry_after: int = 0  # seconds, when refused
    resets_at: int = 0  # epoch seconds, when refused


class Throttle:
    """The windows of every client address. ``limit`` 0: no throttle (and no headers)."""

    def __init__(self, limit: int, window_seconds: int = MINUTE, clock: Callable[[], float] = time.time):
        self.limit = limit
        self.window_seconds = window_seconds
        self._clock = clock
        self._windows: dict[str, Window] = {}

    @property
    def on(self) -> bool:
        return self.limit > 0

    def _current(self, client: str, now: float) -> Window | None:
        window = self._windows.get(client)
        if window is not None and now >= window.resets_at:  # the counter and timer expired
            del self._windows[client]
            return None
        return window

    def attempt(self, client: str) -> Verdict:
        """``tooManyAttempts`` then, only when not too many, ``hit``."""
        now = self._clock()
        window = self._current(client, now)
        if window is not None and window.hits >= self.limit:
            return Verdict(False, self.limit, window.resets_at - int(now), window.resets_at)
        if window is None:
            if len(self._windows) > 10_000:
                self._forget_expired(now)
            window = self._windows[client] = Window(0, int(now) + self.window_seconds)
        window.hits += 1
        return Verdict(True, self.limit)

    def remaining(self, client: str) -> int:
        """``retriesLeft``: the limit less this window's hits (all of it after the window)."""
        window = self._current(client, self._clock())
        return max(0, self.limit - (window.hits if window else 0))

    def view(self) -> dict[str, Any]:
        """What the control API shows: the limit (None: no throttle), the window, and each
        client address with a live window."""
        now = self._clock()
        self._forget_expired(now)
        return {
            "limit": self.limit or None,
            "window_seconds": self.window_seconds,
            "clients": {
                client: {"used": w.hits, "remaining": max(0, self.limit - w.hits), "resets_at": w.resets_at}
                for client, w in sorted(self._windows.items())
            },
        }

    def reset(self, client: str | None = None) -> None:
        """Forget every window (Laravel's ``RateLimiter::clear``), or one client's."""
        if client is None:
            self._windows.clear()
        else:
            self._windows.pop(client, None)

    def _forget_expired(self, now: float) -> None:
        for client in [c for c, w in self._windows.items() if now >= w.resets_at]:
            del self._windows[client]


def client_address(scope) -> str:
    """The connection's client address (never a header's claim)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def headers_of(verdict: Verdict, remaining: int) -> list[tuple[bytes, bytes]]:
    out = [(b"x-ratelimit-limit", str(verdict.limit).encode()), (b"x-ratelimit-remaining", str(remaining).encode())]
    if not verdict.allowed:
        out += [
            (b"retry-after", str(verdict.retry_after).encode()),
            (b"x-ratelimit-reset", str(verdict.resets_at).encode()),
        ]
    return out


class ThrottleMiddleware:
    """Counts and refuses the requests that match one of ``routes`` (the ``/api`` routes,
    under ``base_path``). ``refuse(scope, headers)`` answers a refused one in the dialect's
    words (an ASGI app)."""

    def __init__(
        self,
        app,
        throttle: Throttle,
        routes: Sequence[Route],
        base_path: str,
        refuse: Callable[[Any, dict[str, str]], Any],
    ):
        self.app = app
        self.throttle = throttle
        self.routes = [r for r in routes if r.path.startswith("/api")]
        self.base_path = base_path
        self.refuse = refuse

    def _routed(self, scope) -> bool:
        path = scope["path"]
        if not path.startswith(self.base_path + "/api"):
            return False
        probe = {"type": "http", "path": path[len(self.base_path) :], "root_path": "", "method": scope["method"]}
        return any(route.matches(probe)[0] is Match.FULL for route in self.routes)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or not self.throttle.on or not self._routed(scope):
            await self.app(scope, receive, send)
            return
        client = client_address(scope)
        verdict = self.throttle.attempt(client)
        if not verdict.allowed:
            headers = {k.decode(): v.decode() for k, v in headers_of(verdict, 0)}
            await self.refuse(scope, headers)(scope, receive, send)
            return

        async def counted(message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if not k.lower().startswith(b"x-ratelimit-")]
                message = {**message, "headers": kept + headers_of(verdict, self.throttle.remaining(client))}
            await send(message)

        await self.app(scope, receive, counted)
