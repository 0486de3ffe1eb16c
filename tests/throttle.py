"""What the tests of the call budget share: the sandbox's throttle as the server saw it.

The sandbox notes every /api/ call of each merchant and mode with the time it arrived and
the status it was answered with (``GET _sandbox/requests``), and its throttle's windows are
read with ``GET _sandbox/rate-limit``. A test proves PayDesk kept to the limit from there:
no call answered 429, and no more than the limit in any stretch of the window's length (a
sliding count, stricter than the server's fixed windows)."""

from __future__ import annotations

from datetime import datetime

import httpx


def requests_of(sb, merchant: int = 0, mode: str = "test") -> list[dict]:
    """Every /api/ call of this merchant and mode: method, path, at (datetime), status."""
    with sb.client(mode, merchant=merchant) as c:
        answer = c.get("/_sandbox/requests")
        answer.raise_for_status()
    calls = answer.json()["data"]
    for call in calls:
        call["at"] = datetime.fromisoformat(call["at"].replace("Z", "+00:00"))
    return calls


def throttled_calls(sb, merchants=(0,), modes=("test",)) -> list[dict]:
    """The calls the throttle counts (a route of /api/) from every merchant and mode given,
    in the order they came."""
    calls = [c for m in merchants for mode in modes for c in requests_of(sb, m, mode)]
    return sorted(calls, key=lambda c: c["at"])


def most_in(calls: list[dict], window: float) -> int:
    """The most calls let through (not answered 429) within any ``window`` seconds."""
    times = [c["at"].timestamp() for c in calls if c["status"] != 429]
    most, first = 0, 0
    for last, at in enumerate(times):
        while at - times[first] >= window:
            first += 1
        most = max(most, last - first + 1)
    return most


def refused(calls: list[dict]) -> list[dict]:
    return [c for c in calls if c["status"] == 429]


def window_of(sb) -> dict:
    """``GET _sandbox/rate-limit``: the limit, the window and each client address's."""
    r = httpx.get(
        sb.base_url + "/_sandbox/rate-limit",
        timeout=10,
        headers={"Authorization": f"Bearer {sb.key()}", "Accept": "application/json"},
    )
    r.raise_for_status()
    return r.json()["data"]


def reset_windows(sb) -> None:
    r = httpx.delete(
        sb.base_url + "/_sandbox/rate-limit",
        timeout=10,
        headers={"Authorization": f"Bearer {sb.key()}", "Accept": "application/json"},
    )
    r.raise_for_status()


def foreign(sb, address: str = "127.0.0.1", merchant: int = 1) -> httpx.Client:
    """Another program calling the service from ``address`` (the shop's, by default), with
    another merchant's key: its calls count in the same window, not in PayDesk's log."""
    return httpx.Client(
        base_url=sb.base_url,
        timeout=10,
        headers={"Authorization": f"Bearer {sb.key(merchant=merchant)}", "Accept": "application/json"},
        transport=httpx.HTTPTransport(local_address=address),
    )


class WithoutLimitHeaders(httpx.AsyncBaseTransport):
    """A proxy in front of the service that drops the ``X-RateLimit-*`` headers (and keeps
    its 429 and ``Retry-After``): a service that says its limit only by refusing."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        for name in [k for k in response.headers if k.lower().startswith("x-ratelimit-")]:
            del response.headers[name]
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()
