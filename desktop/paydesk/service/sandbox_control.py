"""The sandbox's control API, for what PayDesk itself sets there (never the real service):
the merchant's webhook URL (``PUT {base_url}/_sandbox/webhook {"url"}``, the family's
dashboard setting), where the sandbox posts its notifications, so the app's own receiver
hears of payments on the embedded sandbox with nothing to set up."""

from __future__ import annotations

import httpx

from .errors import ServiceError, ServiceUnavailableError

TIMEOUT = 5.0


async def set_webhook_url(base_url: str, secret_key: str, url: str | None) -> None:
    """Set (or, with None, remove) the webhook URL of the merchant whose secret key this is.
    Raises ServiceUnavailableError when the sandbox does not answer, ServiceError when it
    refuses."""
    address = base_url.rstrip("/") + "/_sandbox/webhook"
    headers = {"Authorization": f"Bearer {secret_key}", "Accept": "application/json"}
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as client:
            if url is None:
                answer = await client.delete(address, headers=headers)
            else:
                answer = await client.put(address, json={"url": url}, headers=headers)
    except httpx.HTTPError as error:
        raise ServiceUnavailableError(f"The sandbox did not answer ({type(error).__name__})") \
            from None
    if answer.status_code >= 300:
        raise ServiceError(f"The sandbox refused the webhook URL (HTTP {answer.status_code})")
