"""Fault injection for /api/: latency, errors, a dropped answer after commit, rate limits.

It wraps the whole application as the outermost ASGI layer, so it sees the
server's own ``send`` and can cut a connection without any answer.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import time
from dataclasses import dataclass, field
from typing import Any

from .calls import CallLog
from .keys import KeyRing

FIELDS = ("latency_ms", "error_rate", "drop_after_commit_rate", "rate_limit_per_s", "seed")


@dataclass
class Faults:
    latency_ms: int = 0
    error_rate: float = 0.0
    drop_after_commit_rate: float = 0.0
    rate_limit_per_s: float = 0.0
    seed: int | None = None
    _random: random.Random = field(default_factory=random.Random, repr=False)
    _tokens: float = 0.0
    _stamp: float = 0.0

    def configure(self, body: dict[str, Any]) -> dict[str, list[str]]:
        """Apply settings; return errors per field (and apply nothing) when any is bad."""
        errors: dict[str, list[str]] = {}
        unknown = set(body) - set(FIELDS)
        for name in sorted(unknown):
            errors[name] = [f"unknown setting {name}; known: {', '.join(FIELDS)}"]
        checks = {
            "latency_ms": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 60_000,
            "error_rate": lambda v: _is_rate(v),
            "drop_after_commit_rate": lambda v: _is_rate(v),
            "rate_limit_per_s": lambda v: _is_number(v) and 0 <= v <= 100_000,
            "seed": lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)),
        }
        for name, ok in checks.items():
            if name in body and not ok(body[name]):
                errors[name] = [f"{name} has an invalid value"]
        if errors:
            return errors
        self.reset()
        for name in FIELDS:
            if name in body:
                setattr(self, name, body[name])
        self._random = random.Random(self.seed)
        self._tokens = float(self.rate_limit_per_s)
        self._stamp = time.monotonic()
        return {}

    def reset(self) -> None:
        self.latency_ms, self.error_rate, self.drop_after_commit_rate = 0, 0.0, 0.0
        self.rate_limit_per_s, self.seed = 0.0, None
        self._random = random.Random()

    def view(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in FIELDS}

    def roll(self, rate: float) -> bool:
        return rate > 0 and self._random.random() < rate

    def retry_after(self) -> int | None:
        """None when the request may go; else seconds to wait (token bucket)."""
        if self.rate_limit_per_s <= 0:
            return None
        now = time.monotonic()
        rate = float(self.rate_limit_per_s)
        self._tokens = min(rate, self._tokens + (now - self._stamp) * rate)
        self._stamp = now
        if self._tokens >= 1:
            self._tokens -= 1
            return None
        return max(1, math.ceil((1 - self._tokens) / rate))


class FaultBook:
    """Faults, and the rate-limit bucket, per merchant and mode: set with one merchant's
    key of one mode, they hit that merchant's calls in that mode and nobody else's."""

    def __init__(self) -> None:
        self._faults: dict[tuple[str, str], Faults] = {}

    def of(self, merchant_id: str, mode: str) -> Faults:
        return self._faults.setdefault((merchant_id, mode), Faults())


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _is_rate(v: Any) -> bool:
    return _is_number(v) and 0 <= v <= 1


def _noting_status(send, call: dict):
    """``send``, noting the answer's status in the call log as it goes out."""

    async def noted(message) -> None:
        if message["type"] == "http.response.start":
            call["status"] = message["status"]
        await send(message)

    return noted


async def _answer(send, status: int, message: str, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"status": "failed", "message": message, "data": None}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def _cut(send) -> bool:
    """Abort the client's connection with no answer; True when the server allowed it."""
    cycle = getattr(send, "__self__", None)
    transport = getattr(cycle, "transport", None)
    if transport is None:
        return False
    transport.abort()
    cycle.disconnected = True
    return True


class FaultMiddleware:
    """Applies the calling merchant's faults (found from the request's key) to /api/, and
    notes each of its calls in the call log."""

    def __init__(self, app, faults: FaultBook, keys: KeyRing, api_prefix: str, calls: CallLog | None = None):
        self.app = app
        self.faults = faults
        self.keys = keys
        self.api_prefix = api_prefix
        self.calls = calls

    def _faults_of(self, scope) -> tuple[Faults | None, dict | None]:
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        scheme, _, token = header.partition(" ")
        owner = self.keys.owner(token.strip()) if scheme.lower() == "bearer" else None
        if owner is None:
            return None, None
        call = None
        if self.calls is not None:
            call = self.calls.note(owner.merchant_id, owner.mode, scope["method"], scope["path"])
        return self.faults.of(owner.merchant_id, owner.mode), call

    async def __call__(self, scope, receive, send) -> None:
        f = call = None
        if scope["type"] == "http" and scope["path"].startswith(self.api_prefix):
            f, call = self._faults_of(scope)
        server_send = send  # the server's own: dropping an answer aborts its transport
        if call is not None:
            send = _noting_status(send, call)
        if f is None:
            await self.app(scope, receive, send)
            return
        wait = f.retry_after()
        if wait is not None:
            await _answer(send, 429, "Too many requests, slow down", {"Retry-After": str(wait)})
            return
        if f.latency_ms:
            await asyncio.sleep(f.latency_ms / 1000)
        if f.roll(f.error_rate):
            await _answer(send, 503, "Service temporarily unavailable")
            return
        if f.roll(f.drop_after_commit_rate):

            async def swallow(message) -> None:
                return None

            await self.app(scope, receive, swallow)  # the change is committed...
            if not _cut(server_send):  # ...and the answer never arrives
                raise ConnectionAbortedError("dropped after commit")
            return
        await self.app(scope, receive, send)
