"""The sandbox's control API (``{base_url}/_sandbox/...``): what a customer or a bank does
there (pay), what the sandbox sent (its notifications), and what PayDesk itself sets there
(the merchant's webhook URL). Only the sandbox has it; a real service answers 404.

Every call carries the mode's secret key (``Authorization: Bearer``); no error's text ever
holds it. Only ServiceError subclasses leave these functions.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from typing import Any
from urllib.parse import quote

from .errors import AuthenticationError, NotFoundError, ServiceError, ServiceUnavailableError

TIMEOUT = 5.0  # seconds for one control call


async def _load_httpx() -> None:
    """httpx imported off the loop's thread, once: the desk imports this module on the way
    to the window's first paint, and httpx's import (with what it loads for its command
    line) would hold the GUI thread 40 to 60 ms there, or at the first control call."""
    if "httpx" not in sys.modules:
        await asyncio.to_thread(importlib.import_module, "httpx")


async def _call(base_url: str, secret_key: str, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """One control call; its ``data`` (the sandbox's envelope), or a ServiceError."""
    url = f"{base_url.rstrip('/')}/_sandbox/{path}"
    headers = {"Authorization": f"Bearer {secret_key}", "Accept": "application/json"}
    await _load_httpx()
    import httpx  # loaded above: no wait here

    try:
        async with httpx.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as http:
            reply = await http.request(method, url, json=body, headers=headers)
    except httpx.HTTPError as error:
        raise ServiceUnavailableError(f"The sandbox could not be reached ({type(error).__name__})").scrubbed(
            secret_key
        ) from None
    try:
        answer = reply.json()
    except ValueError:
        answer = None
    message = answer.get("message") if isinstance(answer, dict) else None
    if reply.status_code == 404 and not message:
        raise NotFoundError("This service has no sandbox control API", status=404)
    if reply.status_code in (401, 403):
        raise AuthenticationError(str(message or "The key was refused"), status=reply.status_code).scrubbed(secret_key)
    if reply.status_code >= 400 or not isinstance(answer, dict):
        raise ServiceError(
            str(message or f"The sandbox answered {reply.status_code}"), status=reply.status_code
        ).scrubbed(secret_key)
    return answer.get("data")


async def pay(base_url: str, secret_key: str, reference: str, outcome: str = "success") -> Any:
    """The customer pays (or fails, or cancels) the payment of this *service* reference."""
    return await _call(base_url, secret_key, "POST", f"pay/{quote(reference, safe='')}", {"outcome": outcome})


async def notifications(base_url: str, secret_key: str) -> list[dict[str, Any]]:
    """Every notification the sandbox tried to send this merchant in the key's mode, oldest
    first: event, url, body, attempt, status_code (None: not answered), error."""
    data = await _call(base_url, secret_key, "GET", "notifications")
    return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []


async def is_sandbox(base_url: str, secret_key: str) -> bool:
    """Does this service have the sandbox's control API (and take this key there)?"""
    try:
        await _call(base_url, secret_key, "GET", "notifications")
    except ServiceError:
        return False
    return True


async def set_webhook_url(base_url: str, secret_key: str, url: str | None) -> None:
    """Set (or, with None, remove) the webhook URL of the merchant whose secret key this is
    (the family's dashboard setting), where the sandbox posts its notifications, so the
    app's own receiver hears of payments on the embedded sandbox with nothing to set up.
    Raises ServiceUnavailableError when the sandbox does not answer, ServiceError when it
    refuses."""
    address = base_url.rstrip("/") + "/_sandbox/webhook"
    headers = {"Authorization": f"Bearer {secret_key}", "Accept": "application/json"}
    await _load_httpx()
    import httpx  # loaded above: no wait here

    try:
        async with httpx.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as client:
            if url is None:
                answer = await client.delete(address, headers=headers)
            else:
                answer = await client.put(address, json={"url": url}, headers=headers)
    except httpx.HTTPError as error:
        raise ServiceUnavailableError(f"The sandbox did not answer ({type(error).__name__})") from None
    if answer.status_code >= 300:
        raise ServiceError(f"The sandbox refused the webhook URL (HTTP {answer.status_code})")
