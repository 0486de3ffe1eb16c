"""The running session: profiles, the active mode, keys, clients and the embedded sandbox.

A QObject only for its signals; every action is a plain ``async def`` that tests await.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import replace

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from ..config.paths import Paths
from ..config.profiles import (CARDS_CURRENCIES, MODES, NO_CARDS_CURRENCIES, Profile, Settings,
                               SettingsFile)
from ..config.secrets import KeyStore
from ..service.txref import new_installation_id
from .tasks import TaskSet

if TYPE_CHECKING:  # the client (and httpx) load after the first paint
    from ..service.client import ServiceClient

log = logging.getLogger("paydesk.session")


class NoKeyError(Exception):
    def __init__(self, profile: Profile, mode: str):
        super().__init__(f"No {mode} secret key for {profile.name}: add it in the profile editor")


class Session(QObject):
    changed = Signal()  # the active profile or mode changed, or a profile was edited
    callFinished = Signal(str)  # the last call's result, for the status bar

    def __init__(self, paths: Paths, keys: KeyStore):
        super().__init__()
        self.paths = paths
        self.keys = keys
        self.file = SettingsFile(paths.profiles)
        self.settings: Settings = self.file.load()
        if not self.settings.installation_id:
            self.settings.installation_id = new_installation_id()
            self.file.save(self.settings)
        from ..ledger import Ledger

        self.ledger = Ledger(paths.data / "ledger.sqlite3")
        self.tasks = TaskSet()
        self._clients: dict[tuple[str, str], ServiceClient] = {}
        self.sandbox = None  # the embedded SandboxServer, when running

    # -- what is active ---------------------------------------------------------

    @property
    def profile(self) -> Profile | None:
        return self.settings.active

    @property
    def mode(self) -> str:
        return self.settings.active_mode

    @property
    def is_test(self) -> bool:
        return self.mode == "test"

    def report(self, text: str) -> None:
        self.callFinished.emit(text)

    def _save(self) -> None:
        self.file.save(self.settings)

    async def set_mode(self, mode: str) -> None:
        """Switch mode. Asking the user before going live is the window's job."""
        if mode not in MODES:
            raise ValueError(mode)
        if mode != self.settings.active_mode:
            self.settings.active_mode = mode
            self._save()
            log.info("mode is now %s", mode)
            self.changed.emit()

    async def switch_profile(self, profile_id: str) -> None:
        if self.settings.profile(profile_id) is None:
            raise KeyError(profile_id)
        if profile_id != self.settings.active_profile:
            self.settings.active_profile = profile_id
            self.settings.active_mode = "test"  # a switch of merchant starts safe
            self._save()
            self.changed.emit()

    # -- profiles ---------------------------------------------------------------

    async def save_profile(self, profile: Profile, keys: dict[tuple[str, str], str],
                           *, activate: bool = True) -> Profile:
        """Store the profile (without keys) and its keys (in the key store)."""
        for (mode, kind), value in keys.items():
            await self.keys.set(profile.id, mode, kind, value)
        existing = self.settings.profile(profile.id)
        if existing is None:
            self.settings.profiles.append(profile)
        else:
            self.settings.profiles[self.settings.profiles.index(existing)] = profile
        for mode in MODES:
            client = self._clients.pop((profile.id, mode), None)
            if client is not None:
                await client.aclose()
        if activate:
            self.settings.active_profile = profile.id
        self._save()
        self.changed.emit()
        return profile

    async def delete_profile(self, profile_id: str) -> None:
        profile = self.settings.profile(profile_id)
        if profile is None:
            return
        await self.keys.delete_profile(profile_id)
        self.settings.profiles.remove(profile)
        if self.settings.active_profile == profile_id:
            self.settings.active_profile = self.settings.profiles[0].id if self.settings.profiles else None
            self.settings.active_mode = "test"
        self._save()
        self.changed.emit()

    async def key(self, mode: str | None = None, kind: str = "secret",
                  profile: Profile | None = None) -> str | None:
        profile = profile or self.profile
        if profile is None:
            return None
        return await self.keys.get(profile.id, mode or self.mode, kind)

    async def client(self, profile: Profile | None = None, mode: str | None = None) -> ServiceClient:
        """The one client of this profile and mode, made inside the loop on first use."""
        profile = profile or self.profile
        mode = mode or self.mode
        if profile is None:
            raise RuntimeError("no profile")
        found = self._clients.get((profile.id, mode))
        if found is not None and found.base_url == profile.base_url.rstrip("/"):
            return found
        secret = await self.keys.get(profile.id, mode, "secret")
        if not secret:
            raise NoKeyError(profile, mode)
        from ..service import ServiceClient  # httpx is imported after the first paint

        client = ServiceClient(profile.base_url, secret, card_currencies=profile.card_currencies)
        self._clients[(profile.id, mode)] = client
        return client

    # -- the embedded sandbox ---------------------------------------------------

    async def start_embedded_sandbox(self) -> Profile:
        """Start the sandbox on loopback (a free port) and make its profile active, in test mode."""
        def start():  # off the GUI thread, imports included
            from ..sandbox import SandboxConfig, SandboxServer

            config = SandboxConfig(data_dir=self.paths.sandbox, port=0, base_path="/pay",
                                   deployment="cards")
            return SandboxServer(config).start()

        if self.sandbox is None:
            self.sandbox = await asyncio.to_thread(start)
        merchants = json.loads((self.paths.sandbox / "merchants.json").read_text("utf-8"))
        merchant = merchants[0]
        existing = next((p for p in self.settings.profiles if p.embedded_sandbox), None)
        profile = existing or Profile(id=Profile.new_id(), name="Sandbox", base_url="",
                                      embedded_sandbox=True, txref_prefix="SBX")
        profile = replace(profile, base_url=self.sandbox.base_url,
                          currencies=list(CARDS_CURRENCIES), has_cards=True)
        keys = {(mode, kind): merchant["keys"][mode][kind] for mode in MODES
                for kind in ("secret", "public")}
        first = existing is None
        await self.save_profile(profile, keys, activate=first or self.profile is None)
        if first:
            self.settings.active_mode = "test"
            self._save()
            self.changed.emit()
        return profile

    async def discover(self, profile: Profile, secret: str) -> Profile:
        """Find out from the service whether it has cards; adjust the default currencies."""
        from ..config import keycheck

        cards = await keycheck.has_cards(profile.base_url, secret)
        if cards is None:
            return profile
        currencies = profile.currencies
        if currencies in (CARDS_CURRENCIES, NO_CARDS_CURRENCIES):
            currencies = list(CARDS_CURRENCIES if cards else NO_CARDS_CURRENCIES)
        return replace(profile, has_cards=cards, currencies=currencies)

    # -- shutdown ---------------------------------------------------------------

    async def close(self) -> None:
        await self.tasks.cancel_all()
        for client in list(self._clients.values()):
            await client.aclose()
        self._clients.clear()
        self.ledger.close()
        if self.sandbox is not None:
            sandbox, self.sandbox = self.sandbox, None
            await asyncio.to_thread(sandbox.stop)
