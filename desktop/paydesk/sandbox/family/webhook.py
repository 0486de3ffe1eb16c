"""The family's notifications: one POST per completed payment of the bare transaction row
(no envelope), written as PHP's JSON encoder writes it, to the business's webhook URL (not
the record's callback_url), signed with the business's webhook secret. One try with a short
timeout; a missed notification is never sent again. Each attempt is logged (``GET
_sandbox/notifications``).

The body is the row as stored: ``meta`` its raw column, a JSON-encoded string (``"null"``
when none was given, ``"[]"`` for an empty object, as PHP encodes an empty array);
``customization.logo`` null when none was given; ``currency`` the merchant's home currency,
whatever the payment's; the row's timestamps."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import sqlite3
from typing import Any

import httpx

from ..keys import KeyRing
from ..outbound import guarded_client, refusal
from ..store import Store
from .answers import php_json, transaction

log = logging.getLogger("paydesk.sandbox.webhook")


def notification(row: sqlite3.Row, home_currency: str) -> dict[str, Any]:
    """The transaction row as the family's notification carries it."""
    data = transaction(row)
    meta = json.loads(row["meta"])
    data["meta"] = "null" if meta is None else "[]" if meta == {} else php_json(meta).decode("ascii")
    custom = data["customization"]
    data["customization"] = {
        "title": custom.get("title"),
        "description": custom.get("description"),
        "logo": custom.get("logo"),
    }
    data["currency"] = home_currency
    return data


def signature(body: bytes, webhook_secret: str) -> str:
    """Hex HMAC-SHA256 of the raw body, keyed with the business's webhook secret."""
    return hmac.new(webhook_secret.encode(), body, hashlib.sha256).hexdigest()


class Webhook:
    def __init__(self, store: Store, keys: KeyRing, *, timeout: float, allow_loopback: bool):
        self.store = store
        self.keys = keys
        self.timeout = timeout
        # loopback only while the sandbox itself listens there (outbound.py)
        self.allow_loopback = allow_loopback
        self._tasks: set[asyncio.Task] = set()

    def send(self, merchant_id: str, mode: str, url: str | None, event: str, data: dict[str, Any]) -> None:
        """Queue one notification to ``url`` (none without one); returns at once."""
        if not url:
            return
        task = asyncio.get_running_loop().create_task(self._deliver(merchant_id, mode, url, event, data))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self, timeout: float = 10.0) -> None:  # noqa: ASYNC109 (a bounded wait, then cancels the rest)
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)
        for task in list(self._tasks):
            task.cancel()

    async def _deliver(self, merchant_id: str, mode: str, url: str, event: str, data: dict[str, Any]) -> None:
        body = php_json(data)
        status, error = None, None
        try:
            headers = {
                "Content-Type": "application/json",
                "Signature": signature(body, self.keys.webhook_secret_for(merchant_id)),
            }
            async with guarded_client(timeout=self.timeout, allow_loopback=self.allow_loopback) as client:
                status = (await client.post(url, content=body, headers=headers)).status_code
        except httpx.HTTPError as exc:
            error = refusal(exc) or f"{type(exc).__name__}: {exc}"[:300]
        except Exception as exc:  # a bad URL (InvalidURL, a port out of
            # range) or anything else: the attempt is still logged, and the task ends quietly
            error = f"{type(exc).__name__}: {exc}"[:300]
            log.warning("notification %s to %s could not be sent", event, url, exc_info=True)
        try:
            self.store.log_notification(merchant_id, mode, event, url, body.decode("ascii"), 1, status, error)
        except Exception:  # the log is the sandbox's own; a failure there sends nothing again
            log.exception("notification %s to %s: could not be logged", event, url)
        log.info("notification %s to %s (one try, never retried): %s", event, url, status or error)
