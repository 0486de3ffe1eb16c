"""Does an address answer like the service? Found out without sending any key of PayDesk's.

Before a secret key goes to a profile's address (and again when an answer there was not the
service's own shape), PayDesk asks the address a question any deployment of the service
answers the same way: a look-up, with a made-up key no service can know. The service refuses
it with its envelope (a JSON object whose ``status`` is a word, with a ``message``), with a
refusal's status (400, 401 or 403 in the dialects seen). A page, another program's JSON, a
redirect: not the service. A look-up path that is not a route at all (the framework's own
404) is tried on the other path, as the client does. Nothing listening, no answer in time,
or a gateway's error page (5xx without the envelope): the address cannot be reached now
(offline), which is not the same thing. A 429 is the service's throttle: taken as the service.

The question is a call like any other to a throttled service: with a ``budget`` it takes a
permit first and reports what the answer said of the limit (its ``X-RateLimit-*`` headers),
so a desk that asks an address after a restart mid-minute still keeps to the shop's limit.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import string
from enum import Enum

import httpx

from .. import __version__
from .answers import retry_after
from .budget import Budget
from .decoding import ACCEPTED, TooLarge, Undecodable, read_body
from .models import LOOKUP_PATHS

PROBE_REFERENCE = "PAYDESK-ADDRESS-CHECK"
TIMEOUT = 10.0
MAX_BODY = 65536  # bytes: the service's refusal is a few hundred


class Sounding(Enum):
    SERVICE = "answers like the service"
    OTHER = "another program answers"
    UNREACHABLE = "nothing answers"


def made_up_key() -> str:
    """A key of the documented shape that no service has issued (drawn anew each time)."""
    alphabet = string.ascii_letters + string.digits
    return "sec-test-" + "".join(secrets.choice(alphabet) for _ in range(32))


def paths_from(lookup_path: str | None) -> list[str]:
    """The look-up paths to ask, the profile's known one first."""
    first = lookup_path if lookup_path in LOOKUP_PATHS else LOOKUP_PATHS[0]
    return [first] + [p for p in LOOKUP_PATHS if p != first]


def _envelope(raw: bytes) -> bool:
    """The service's envelope: a JSON object whose ``status`` is a word, with a message."""
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    return (
        isinstance(body, dict) and isinstance(body.get("status"), str) and isinstance(body.get("message"), (str, dict))
    )


def judge(status: int, raw: bytes) -> Sounding | None:
    """What one answer to the made-up key says; None: the path is no route there (the
    framework's own 404), ask the other."""
    envelope = _envelope(raw)
    if status >= 500:  # failing (its envelope), or a gateway's page: not reachable now
        return Sounding.SERVICE if envelope else Sounding.UNREACHABLE
    if 400 <= status < 500 and envelope:
        return Sounding.SERVICE  # the made-up key refused as the service refuses one
    if status == 404:
        return None
    return Sounding.OTHER  # a page, a redirect, another program's JSON, a key taken


async def sound(
    base_url: str,
    *,
    lookup_path: str | None = None,
    timeout: float = TIMEOUT,  # noqa: ASYNC109 (httpx's per-phase timeout)
    http: httpx.AsyncClient | None = None,
    budget: Budget | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Sounding:
    """Ask ``base_url`` (see the module's text). ``http``: a client to send with (its own
    Authorization header, if any, is replaced by the made-up key's); else one of its own,
    over ``transport`` when given (else the network).
    ``budget``: the address's call budget, a permit taken for each request."""
    if http is None:  # made off the loop's thread: its TLS context reads the certificates
        own = await asyncio.to_thread(httpx.AsyncClient, timeout=timeout, follow_redirects=False, transport=transport)
        async with own:
            return await sound(base_url, lookup_path=lookup_path, timeout=timeout, http=own, budget=budget)
    base = base_url.rstrip("/")
    headers = {
        "Authorization": f"Bearer {made_up_key()}",
        "Accept": "application/json",
        "Accept-Encoding": ACCEPTED,
        "User-Agent": f"PayDesk/{__version__}",
    }
    for path in paths_from(lookup_path):
        permit = await budget.take() if budget is not None else None
        try:
            async with http.stream(
                "GET", f"{base}/{path}/{PROBE_REFERENCE}", headers=headers, timeout=timeout
            ) as reply:
                if permit is not None:
                    permit.answered(reply.status_code, reply.headers, retry_after(reply.headers.get("retry-after")))
                if reply.status_code == 429:
                    return Sounding.SERVICE  # its throttle: it cannot say more now
                try:
                    raw = await read_body(reply.aiter_raw(), reply.headers.get("content-encoding"), MAX_BODY)
                except (TooLarge, Undecodable):
                    return Sounding.OTHER
        except httpx.HTTPError:
            return Sounding.UNREACHABLE  # refused, unknown host, no answer in time, cut
        finally:
            if permit is not None:
                permit.lost()  # no answer came (nothing when it was answered)
        said = judge(reply.status_code, raw)
        if said is not None:
            return said
    return Sounding.OTHER  # no look-up route at all: not the service
