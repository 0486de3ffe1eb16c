"""Where a desk's profiles live: its own settings file, or the shared ledger's merchants.

``ProfileStore`` (this computer's own ledger): the profiles are in the settings file, which
the session writes whole; nothing more to do. ``SharedProfiles`` (a shared ledger): every
desk sees the same merchants, kept without keys in the ledger (``ledger/postgres/
merchants.py``); a profile's id is its merchant id (``config/merchants.py``), so the ledger's
rows of a merchant are the same on every desk. The embedded sandbox's profile stays in the
settings file: that sandbox is this computer's own service. The active profile and mode and
the installation id stay in the settings file either way, as does each desk's keyring.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from ..config.merchants import NO_PUBLIC_KEY, from_shared, identifying_key, is_merchant_id, merchant_id, shared_fields
from ..config.profiles import Profile
from ..service.errors import ServiceError


class NoPublicKeyError(ServiceError):
    """On a shared ledger a profile is saved only with a public key: it names the merchant."""

    def __init__(self) -> None:
        super().__init__(NO_PUBLIC_KEY)


class MerchantStore(Protocol):
    """The shared ledger's merchants (``ledger.postgres.merchants.PostgresMerchants``)."""

    async def load(self) -> list[tuple[str, dict[str, Any]]]: ...

    async def save(self, merchant: str, fields: dict[str, Any]) -> None: ...

    async def delete(self, merchant: str) -> None: ...


class ProfileStore:
    """The profiles of this computer's own ledger: those of the settings file."""

    shared = False

    def identify(self, profile: Profile, keys: dict[tuple[str, str], str]) -> Profile:
        """The profile with the id it is saved under (here: its own)."""
        return profile

    async def load(self, saved: list[Profile]) -> list[Profile]:
        """The profiles to show, given those of the settings file."""
        return saved

    def kept_locally(self, profiles: list[Profile]) -> list[Profile]:
        """Which of ``profiles`` the settings file holds."""
        return profiles

    def own_profiles(self) -> list[Profile]:
        """This desk's own profiles that the shown ones stand in for (a shared ledger's
        merchants stand in for the settings file's profiles): none here."""
        return []

    async def save(self, profile: Profile) -> None:
        """Keep ``profile`` where every desk of the ledger sees it (here: the file does)."""

    async def delete(self, profile_id: str) -> None:
        """Forget the profile where every desk of the ledger sees it (here: the file does)."""


class SharedProfiles(ProfileStore):
    """The merchants of a shared ledger, and this computer's embedded sandbox."""

    shared = True

    def __init__(self, merchants: MerchantStore):
        self.merchants = merchants
        self._file: list[Profile] = []  # the settings file's own, kept as they were

    def identify(self, profile: Profile, keys: dict[tuple[str, str], str]) -> Profile:
        if profile.embedded_sandbox:
            return profile
        public = identifying_key(keys)
        if public is None:
            if is_merchant_id(profile.id) and not any(value.strip() for value in keys.values()):
                return profile  # edited without its keys (the counter's shop e-mail): as it is
            raise NoPublicKeyError()
        return replace(profile, id=merchant_id(profile.base_url, public))

    async def load(self, saved: list[Profile]) -> list[Profile]:
        self._file = list(saved)
        rows = await self.merchants.load()
        return [p for p in saved if p.embedded_sandbox] + [from_shared(m, f) for m, f in rows]

    def kept_locally(self, profiles: list[Profile]) -> list[Profile]:
        # the file's profiles of this computer's own ledger stay as they were (they are its
        # again when the desk goes back to it); the embedded sandbox's is kept current
        return [p for p in self._file if not p.embedded_sandbox] + [p for p in profiles if p.embedded_sandbox]

    def own_profiles(self) -> list[Profile]:
        return [p for p in self._file if not p.embedded_sandbox]

    async def save(self, profile: Profile) -> None:
        if not profile.embedded_sandbox:
            await self.merchants.save(profile.id, shared_fields(profile))

    async def delete(self, profile_id: str) -> None:
        if is_merchant_id(profile_id):
            await self.merchants.delete(profile_id)
