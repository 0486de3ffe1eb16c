"""A merchant's identity on a shared ledger (Qt-free).

On a shared ledger a profile's id is its merchant id: the same merchant and deployment
(the service's address and the merchant's public key) gives the same id on every desk, so
every ledger row's ``profile_id`` names the merchant and two desks that add the same merchant
share its records. The keys stay in each desk's own keyring; what every desk shares is the
profile without them (``shared_fields``).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

from .profiles import Profile

PREFIX = "m-"
DEFAULT_PORTS = {"http": 80, "https": 443}
# what stays on this computer: the embedded sandbox is this computer's own service
LOCAL_FIELDS = ("id", "embedded_sandbox", "sandbox_port")
NO_PUBLIC_KEY = (
    "On a shared ledger the public key names the merchant for every desk: enter the test public key (or the live one)"
)


def host_and_port(parts: SplitResult) -> tuple[str, int | None]:
    """An address's host in lower case (an IPv6 one in brackets) and its port as written
    (None when none, or when it is not a port)."""
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        return host, parts.port
    except ValueError:
        return host, None


def normalise_base_url(url: str) -> str:
    """The service's address as one string per deployment: scheme and host in lower case,
    the scheme's own port left out, no trailing slash, no query or fragment."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host, port = host_and_port(parts)
    netloc = host if port in (None, DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), "", ""))


def merchant_id(base_url: str, public_key: str) -> str:
    """``"m-"`` and the first 20 hex digits of sha256(normalised address, newline, public key)."""
    text = normalise_base_url(base_url) + "\n" + public_key.strip()
    return PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def identifying_key(keys: dict[tuple[str, str], str]) -> str | None:
    """The public key that names the merchant: the test one when given, else the live one."""
    for mode in ("test", "live"):
        value = (keys.get((mode, "public")) or "").strip()
        if value:
            return value
    return None


def is_merchant_id(profile_id: str) -> bool:
    return profile_id.startswith(PREFIX)


def shared_fields(profile: Profile) -> dict[str, Any]:
    """What every desk sees of a profile: all but its id and what is this computer's."""
    return {k: v for k, v in asdict(profile).items() if k not in LOCAL_FIELDS}


def from_shared(merchant: str, fields: dict[str, Any]) -> Profile:
    """The profile of a merchant row (its id, and the fields every desk shares)."""
    return Profile.from_json({**{k: v for k, v in fields.items() if k not in LOCAL_FIELDS}, "id": merchant})
