"""Which key signed a notification: the hex HMAC-SHA256 of the RAW body (never of a body
parsed and written again), compared in constant time with every key PayDesk holds.

The candidates are every profile's secret key of test and live mode (the document's
notifications) and its webhook secret (the family's, kept in the keyring as kind "webhook"
under mode "test": it is one per business, for both modes). The key that verifies decides
the merchant and the mode, never the body; a webhook secret says no mode (None).
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..config.profiles import MODES
from ..desk.session import Session

WEBHOOK = "webhook"  # the keyring kind of a profile's webhook secret (stored under mode "test")
WEBHOOK_MODE = "test"
FRESH = 5.0  # s: the keys are read again after this long (or when the profiles change)


def sign(body: bytes, key: str) -> str:
    """The signature a sender holding ``key`` puts in the ``Signature`` header."""
    return hmac.new(key.encode(), body, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Candidate:
    profile_id: str
    mode: str | None  # None: the profile's webhook secret (both modes)
    key: str = field(repr=False)


def verify(body: bytes, signature: str | None, candidates: Iterable[Candidate]) -> Candidate | None:
    """The candidate whose key signed ``body`` (every one compared, in constant time), or
    None: no signature, or none of the keys."""
    if not signature:
        return None
    given = signature.strip().lower().encode("utf-8", "replace")
    found = None
    for candidate in candidates:
        if hmac.compare_digest(sign(body, candidate.key).encode(), given) and found is None:
            found = candidate
    return found


class Keys:
    """The candidates of a session's profiles, read from its key store (the keyring, a key
    file, the environment) and kept a few seconds; forgotten when the profiles change."""

    def __init__(self, session: Session):
        self.session = session
        self._read_at = float("-inf")
        self._candidates: list[Candidate] = []
        session.hub.session_changed.connect(self.forget)
        session.hub.profile_deleted.connect(self.forget)

    def forget(self, *_: object) -> None:
        self._read_at = float("-inf")

    async def candidates(self) -> list[Candidate]:
        if time.monotonic() - self._read_at < FRESH:
            return self._candidates
        keys = self.session.keys
        found: list[Candidate] = []
        for profile in list(self.session.settings.profiles):
            for mode in MODES:
                secret = await keys.get(profile.id, mode, "secret")
                if secret:
                    found.append(Candidate(profile.id, mode, secret))
            webhook = await keys.get(profile.id, WEBHOOK_MODE, WEBHOOK)
            if webhook:
                found.append(Candidate(profile.id, None, webhook))
        self._candidates, self._read_at = found, time.monotonic()
        return found

    async def verify(self, body: bytes, signature: str | None) -> Candidate | None:
        return verify(body, signature, await self.candidates())
