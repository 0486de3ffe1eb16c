"""Check keys with real calls before saving a profile: does each work, and what is it?"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx

from .. import __version__
from ..service import ServiceClient
from ..service.answers import read
from ..service.errors import AuthenticationError, NotFoundError, ServiceError, ServiceUnavailableError, ValidationError


@dataclass(frozen=True)
class KeyCheck:
    works: bool
    message: str  # one line for the user, next to the key field
    mode_hint: str | None = None  # from the prefix: a hint only


def mode_hint(key: str) -> str | None:
    head = key.strip().lower()[:12]
    if "test" in head:
        return "test"
    if "live" in head:
        return "live"
    return None


def _mode_text(hint: str | None) -> str:
    return f"{hint} mode" if hint else "mode not shown by its prefix"


async def check_secret(base_url: str, key: str, mode: str, timeout: float = 10.0) -> KeyCheck:
    hint = mode_hint(key)
    if hint and hint != mode:
        return KeyCheck(False, f"This looks like a {hint} key, entered as the {mode} key", hint)
    async with ServiceClient(base_url, key, timeout=timeout, retries=0) as client:
        try:
            await client.validate("PAYDESK-KEY-CHECK")
        except NotFoundError:
            return KeyCheck(True, f"Works: secret key, {_mode_text(hint)}", hint)
        except AuthenticationError as error:
            if "public key" in error.message.lower():
                return KeyCheck(False, "This is a public key; a secret key goes here", hint)
            return KeyCheck(False, f"Not accepted by the service: {error.message}", hint)
        except ServiceUnavailableError as error:
            return KeyCheck(False, f"Could not check: {error.message}", hint)
        except ServiceError as error:
            return KeyCheck(False, f"Could not check: {error.message}", hint)
    return KeyCheck(True, f"Works: secret key, {_mode_text(hint)}", hint)


async def check_public(base_url: str, key: str, mode: str, timeout: float = 10.0) -> KeyCheck:
    """A public key is only good for the inline checkout's call: try it with an empty body."""
    hint = mode_hint(key)
    if hint and hint != mode:
        return KeyCheck(False, f"This looks like a {hint} key, entered as the {mode} key", hint)
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json",
               "User-Agent": f"PayDesk/{__version__}"}
    try:
        async with httpx.AsyncClient(timeout=timeout, headers=headers) as http:
            reply = await http.post(base_url.rstrip("/") + "/api/js_transfer", json={})
    except httpx.HTTPError:
        return KeyCheck(False, "Could not check: the service cannot be reached", hint)
    try:
        read(reply.status_code, dict(reply.headers), reply.content)
        error: ServiceError | None = None
    except ServiceError as exc:
        error = exc
    if isinstance(error, ValidationError) or error is None:
        return KeyCheck(True, f"Works: public key, {_mode_text(hint)}", hint)
    if isinstance(error, AuthenticationError) and "public key" in error.message.lower():
        return KeyCheck(False, "This is a secret key; never publish it: a public key goes here", hint)
    if isinstance(error, AuthenticationError):
        return KeyCheck(False, f"Not accepted by the service: {error.message}", hint)
    return KeyCheck(False, f"Could not check: {error.message}", hint)


async def check_all(base_url: str, keys: dict[tuple[str, str], str]) -> dict[tuple[str, str], KeyCheck]:
    """Each given key, checked at once; keys are (mode, kind) -> value."""
    async def one(mode: str, kind: str, value: str) -> KeyCheck:
        if kind == "secret":
            return await check_secret(base_url, value, mode)
        return await check_public(base_url, value, mode)

    given = {k: v.strip() for k, v in keys.items() if v and v.strip()}
    results = await asyncio.gather(*(one(m, k, v) for (m, k), v in given.items()))
    return dict(zip(given, results))


async def has_cards(base_url: str, secret_key: str) -> bool | None:
    """A card route that answers 404 means the deployment has no cards."""
    async with ServiceClient(base_url, secret_key, retries=0, timeout=10) as client:
        try:
            await client.cards()
        except NotFoundError:
            return False
        except ServiceError:
            return None
    return True


async def lookup_path(base_url: str, secret_key: str) -> str | None:
    """Where the deployment looks payments up (``ServiceClient.lookup_path``): asks for a
    reference no one uses; None when it could not be found out."""
    async with ServiceClient(base_url, secret_key, retries=0, timeout=10) as client:
        try:
            await client.validate("PAYDESK-LOOKUP-CHECK")
        except ServiceError:
            pass
        return client.lookup_path


__all__ = ["KeyCheck", "check_all", "check_public", "check_secret", "has_cards", "lookup_path",
           "mode_hint"]
