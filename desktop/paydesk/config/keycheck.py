"""Check keys with real calls before saving a profile: does each work, and what is it?

The address is asked first, without a key (``service/probe.py``): keys go only to an
address that answers like the service. A key that could not be checked (nothing answers
there, or another program does) is not a wrong key: ``KeyCheck.checked`` is False, and the
editor says so without calling it wrong."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx

from .. import __version__
from ..service import ServiceClient
from ..service.answers import read
from ..service.errors import AuthenticationError, NotFoundError, ServiceError, ServiceUnavailableError, ValidationError
from ..service.probe import Sounding, sound

NOT_REACHED = "Not checked: the service could not be reached"
NOT_THE_SERVICE = "Not checked: this address does not answer like the service"
ADDRESS_NOT_THE_SERVICE = "This address does not answer like the service (another program answers there): check it"


@dataclass(frozen=True)
class KeyCheck:
    works: bool
    message: str  # one line for the user, next to the key field
    mode_hint: str | None = None  # from the prefix: a hint only
    checked: bool = True  # False: it could not be checked (neither works nor refused)


@dataclass(frozen=True)
class Checked:
    """What ``check_all`` found: each key's check, and what is wrong with the address when
    another program answers there (None otherwise)."""

    keys: dict[tuple[str, str], KeyCheck]
    address: str | None = None

    @property
    def refused(self) -> bool:
        """Some key was refused (checked, and it does not work)."""
        return any(c.checked and not c.works for c in self.keys.values())

    @property
    def unchecked(self) -> str | None:
        """Why some key could not be checked ("the service could not be reached"), or None."""
        why = next((c.message for c in self.keys.values() if not c.checked), None)
        return why.removeprefix("Not checked: ") if why else None

    @property
    def may_save(self) -> bool:
        """Nothing is wrong: each key works or could not be checked, at the service's address."""
        return not self.address and not self.refused

    def said(self) -> tuple[str, str]:
        """What the editor says under the keys, and what the status bar says."""
        if self.address:
            return ("Fix the address marked in red.", "Keys not checked: the address does not answer like the service")
        if self.refused:
            return "Fix the keys marked in red.", "Keys checked: some do not work"
        if self.unchecked:
            return (
                f"The keys could not be checked: {self.unchecked}. Save keeps them as typed; "
                "PayDesk uses them once the service answers.",
                f"Keys not checked: {self.unchecked}",
            )
        return "All keys work.", "Keys checked: all work"


def _unchecked(message: str, hint: str | None) -> KeyCheck:
    return KeyCheck(False, message, hint, checked=False)


def _mismatch(key: str, mode: str) -> KeyCheck | None:
    """A key whose prefix names the other mode: wrong without asking anyone."""
    hint = mode_hint(key)
    if hint and hint != mode:
        return KeyCheck(False, f"This looks like a {hint} key, entered as the {mode} key", hint)
    return None


def mode_hint(key: str) -> str | None:
    head = key.strip().lower()[:12]
    if "test" in head:
        return "test"
    if "live" in head:
        return "live"
    return None


def _mode_text(hint: str | None) -> str:
    return f"{hint} mode" if hint else "mode not shown by its prefix"


async def check_secret(base_url: str, key: str, mode: str, timeout: float = 10.0) -> KeyCheck:  # noqa: ASYNC109 (httpx's per-phase timeout, not a deadline)
    hint = mode_hint(key)
    wrong = _mismatch(key, mode)
    if wrong is not None:
        return wrong
    async with ServiceClient(base_url, key, timeout=timeout, retries=0) as client:
        try:
            await client.validate("PAYDESK-KEY-CHECK")
        except NotFoundError:
            return KeyCheck(True, f"Works: secret key, {_mode_text(hint)}", hint)
        except AuthenticationError as error:
            if "public key" in error.message.lower():
                return KeyCheck(False, "This is a public key; a secret key goes here", hint)
            return KeyCheck(False, f"Not accepted by the service: {error.message}", hint)
        except ServiceUnavailableError:
            return _unchecked(NOT_REACHED, hint)
        except ServiceError as error:
            return _unchecked(f"Not checked: {error.message}", hint)
    return KeyCheck(True, f"Works: secret key, {_mode_text(hint)}", hint)


async def check_public(base_url: str, key: str, mode: str, timeout: float = 10.0) -> KeyCheck:  # noqa: ASYNC109 (httpx's per-phase timeout, not a deadline)
    """A public key is only good for the inline checkout's call: try it with an empty body."""
    hint = mode_hint(key)
    wrong = _mismatch(key, mode)
    if wrong is not None:
        return wrong
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json", "User-Agent": f"PayDesk/{__version__}"}
    try:
        async with httpx.AsyncClient(timeout=timeout, headers=headers) as http:
            reply = await http.post(base_url.rstrip("/") + "/api/js_transfer", json={})
    except httpx.HTTPError:
        return _unchecked(NOT_REACHED, hint)
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
    if isinstance(error, ServiceUnavailableError):
        return _unchecked(NOT_REACHED, hint)
    return _unchecked(f"Not checked: {error.message}", hint)


async def check_all(base_url: str, keys: dict[tuple[str, str], str]) -> Checked:
    """Each given key, checked at once, once the address answers like the service (asked
    first, without a key); keys are (mode, kind) -> value."""

    async def one(mode: str, kind: str, value: str) -> KeyCheck:
        if kind == "secret":
            return await check_secret(base_url, value, mode)
        return await check_public(base_url, value, mode)

    given = {k: v.strip() for k, v in keys.items() if v and v.strip()}
    if not given:
        return Checked({})
    said = await sound(base_url)
    if said is not Sounding.SERVICE:
        message = NOT_REACHED if said is Sounding.UNREACHABLE else NOT_THE_SERVICE
        return Checked(
            {(m, k): _mismatch(v, m) or _unchecked(message, mode_hint(v)) for (m, k), v in given.items()},
            ADDRESS_NOT_THE_SERVICE if said is Sounding.OTHER else None,
        )
    results = await asyncio.gather(*(one(m, k, v) for (m, k), v in given.items()))
    return Checked(dict(zip(given, results)))


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


__all__ = ["Checked", "KeyCheck", "check_all", "check_public", "check_secret", "has_cards", "lookup_path", "mode_hint"]
