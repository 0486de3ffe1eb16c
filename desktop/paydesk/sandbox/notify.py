"""Signed notifications to the merchant's callback URL (and, for payments, its webhook URL),
retried, every attempt logged."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
from collections.abc import Sequence
from typing import Any

import httpx

from .keys import KeyRing
from .outbound import guarded_client, refusal
from .store import Store

log = logging.getLogger("paydesk.sandbox.notify")


def signature(body: bytes, secret_key: str) -> str:
    """Hex HMAC-SHA256 of the raw body, keyed with the record's mode's secret key."""
    return hmac.new(secret_key.encode(), body, hashlib.sha256).hexdigest()


class Notifier:
    def __init__(
        self, store: Store, keys: KeyRing, *, timeout: float, attempts: int, backoff: float, allow_loopback: bool
    ):
        self.store = store
        self.keys = keys
        self.timeout = timeout
        self.attempts = attempts
        self.backoff = backoff
        # loopback only while the sandbox itself listens there (outbound.py)
        self.allow_loopback = allow_loopback
        self._tasks: set[asyncio.Task] = set()

    def send(self, merchant_id: str, mode: str, url: str | Sequence[str], event: str, data: Any) -> None:
        """Queue one notification to ``url`` (or to each of several URLs, once each, the same
        signed body); returns at once."""
        urls = [url] if isinstance(url, str) else list(dict.fromkeys(url))
        body = json.dumps({"event": event, "data": data}, separators=(",", ":")).encode()
        for target in urls:
            task = asyncio.get_running_loop().create_task(self._deliver(merchant_id, mode, target, event, body))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def drain(self, timeout: float = 10.0) -> None:  # noqa: ASYNC109 (a bounded wait, then cancels the rest)
        """Wait for queued deliveries (used on shutdown)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)
        for task in list(self._tasks):
            task.cancel()

    async def _deliver(self, merchant_id: str, mode: str, url: str, event: str, body: bytes) -> None:
        headers = {
            "Content-Type": "application/json",
            "Signature": signature(body, self.keys.secret_for(merchant_id, mode)),
            "User-Agent": "paydesk-sandbox-notifier",
        }
        async with guarded_client(timeout=self.timeout, allow_loopback=self.allow_loopback) as client:
            for attempt in range(1, self.attempts + 1):
                status, error, refused = None, None, None
                try:
                    reply = await client.post(url, content=body, headers=headers)
                    status = reply.status_code
                except httpx.HTTPError as exc:
                    refused = refusal(exc)
                    error = refused or f"{type(exc).__name__}: {exc}"[:300]
                except Exception as exc:  # a URL no request can go to: logged, not retried
                    refused = error = f"{type(exc).__name__}: {exc}"[:300]
                    log.warning("notification %s to %s could not be sent", event, url, exc_info=True)
                self.store.log_notification(merchant_id, mode, event, url, body.decode(), attempt, status, error)
                log.info("notification %s to %s attempt %d: %s", event, url, attempt, status or error)
                if refused or (status is not None and 200 <= status < 300):
                    return  # a refused address is refused again: never retried
                if attempt < self.attempts:
                    await asyncio.sleep(self.backoff * (2 ** (attempt - 1)))
