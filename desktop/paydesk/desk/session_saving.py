"""What the session saves (``session.py``'s ``Session`` is one): the settings file (the
active profile and mode, the shared ledger's address, the desk's name) and the profiles with
their keys (on a shared ledger: the shop's merchants, ``profile_store.py``), and the refusal
of a write while a shared ledger is out of reach. Qt-free; changes are said on the ``Hub``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace

from ..config.profiles import MODES, Profile, Settings, SettingsFile
from ..config.secrets import KeyStore
from ..ledger import LedgerError
from ..ledger.activity import ActivityBook
from . import activity
from .events import Hub
from .key_carry import carry_to_shown
from .leases import Clients
from .profile_store import ProfileStore
from .staff import Capability, Staff

log = logging.getLogger("paydesk.session")


class SessionSaving:
    """The saving half of ``Session``, which sets these in its ``__init__``."""

    settings: Settings
    file: SettingsFile
    store: ProfileStore
    keys: KeyStore
    hub: Hub
    clients: Clients
    ledger_down: Callable[[], Exception | None]
    staff: Staff
    _save_lock: asyncio.Lock
    _carried: set[str]
    activity: ActivityBook | None

    # -- refusing while a shared ledger is out of reach ---------------------------------

    def refuse_while_down(self) -> None:
        """Raise (a LedgerError saying since when) while a shared ledger is out of reach, so
        that nothing is sent that could not be written first. Every write a person starts
        asks this first (a controller's entry, or a view before it opens a file dialog)."""
        error = self.ledger_down()
        if error is not None:
            raise error

    def refusal(self) -> str | None:
        """The one sentence that refuses a write now ("Shared ledger unreachable since
        14:02, retrying", or a newer PayDesk's ledger), None while writes can go: a view
        disables what would be refused and says this beside it."""
        error = self.ledger_down()
        return None if error is None else str(error)

    def profile_refusal(self, profile: Profile | None) -> str | None:
        """Why ``profile`` (None: a new one) cannot be saved now: the shop's merchants are on
        a shared ledger out of reach (the embedded sandbox's profile is this computer's)."""
        if not self.store.shared or (profile is not None and profile.embedded_sandbox):
            return None
        return self.refusal()

    # -- the settings file ------------------------------------------------------------

    async def _save(self) -> None:
        # taken here, written off the loop's thread
        snapshot = self.file.dump(replace(self.settings, profiles=self.store.kept_locally(self.settings.profiles)))
        async with self._save_lock:
            await asyncio.to_thread(self.file.write, snapshot)

    async def save_ledger_url(self, url: str | None) -> None:
        """The shared ledger's address (never with a password) for the next start; None:
        this computer's own ledger. An Admin's (NotAllowed)."""
        self.staff.require(Capability.SHARED_LEDGER)
        self.settings.ledger_url = url
        await self._save()

    async def save_desk_name(self, name: str | None) -> None:
        """The name the person gave this desk (None: its default name), for every start."""
        self.settings.desk_name = name
        await self._save()

    async def save_language(self, language: str | None) -> None:
        """The staff's language on this computer (None: the system's), from the next start."""
        self.settings.language = language
        await self._save()

    async def set_mode(self, mode: str) -> None:
        """Switch mode. Asking the user before going live is the window's job; switching
        either way is a person's who may switch to live (NotAllowed)."""
        if mode not in MODES:
            raise ValueError(mode)
        if mode != self.settings.active_mode:
            self.staff.require(Capability.GO_LIVE)
            actor = self.staff.actor  # who switched (a lock meanwhile does not unname it)
            self.settings.active_mode = mode
            await self._save()
            log.info("mode is now %s", mode)
            self.hub.session_changed.emit()
            if mode == "live":
                await self._note_live(actor)

    async def _note_live(self, actor: str | None) -> None:
        """A switch to live mode, in the activity book. The switch is made whatever the
        ledger says (it writes nothing there); a ledger out of reach is logged."""
        try:
            await activity.note(
                self.activity,
                activity.SWITCHED_TO_LIVE,
                actor,
                profile_id=self.settings.active_profile or "",
                mode="live",
            )
        except LedgerError as error:
            log.warning("the switch to live mode was not noted in the activity book: %s", error)

    async def switch_profile(self, profile_id: str) -> None:
        """Another merchant active: a person's who may manage profiles (NotAllowed)."""
        if self.settings.profile(profile_id) is None:
            raise KeyError(profile_id)
        if profile_id != self.settings.active_profile:
            self.staff.require(Capability.PROFILES)
            self.settings.active_profile = profile_id
            self.settings.active_mode = "test"  # a switch of merchant starts safe
            await self._save()
            self.hub.session_changed.emit()

    # -- profiles ---------------------------------------------------------------------

    async def save_profile(self, profile: Profile, keys: dict[tuple[str, str], str], *, activate: bool = True) -> bool:
        """``_save_profile``, a person's who may manage profiles and keys (NotAllowed)."""
        self.staff.require(Capability.PROFILES)
        return await self._save_profile(profile, keys, activate=activate)

    async def _save_profile(self, profile: Profile, keys: dict[tuple[str, str], str], *, activate: bool) -> bool:
        """Store the profile (without keys) and its keys (in the key store). Returns True
        when the system keyring holds every key, False when some are kept for this session
        only (the window says so; it never says "saved" for those).

        On a shared ledger the profile is saved under its merchant id (``profile_store.py``),
        for every desk, before its keys go to this desk's keyring; NoPublicKeyError when it
        has no public key to name the merchant by; its LedgerError while that ledger is out
        of reach (nothing saved, no key kept)."""
        if self.profile_refusal(profile) is not None:
            self.refuse_while_down()
        edited = profile.id
        actor = self.staff.actor
        profile = self.store.identify(profile, keys)
        await self.store.save(profile)  # a shared ledger out of reach: nothing changed yet
        persisted = True
        changed: list[str] = []  # the keys whose value changed, by name (never their value)
        for (mode, kind), value in keys.items():
            if (await self.keys.get(profile.id, mode, kind) or "") != value.strip():
                changed.append(f"{mode} {kind}")
            persisted &= await self.keys.set(profile.id, mode, kind, value)
        replaced = edited != profile.id and self._drop(edited)  # its address or public key changed
        existing = self.settings.profile(profile.id)
        if existing is None:
            self.settings.profiles.append(profile)
        else:
            self.settings.profiles[self.settings.profiles.index(existing)] = profile
        self._retire(profile.id)
        if activate and (existing is None or self.settings.active_profile != profile.id):
            # a new profile, or one switched to, opens in test mode, whatever mode the
            # previous one was in (editing the active profile keeps its mode)
            self.settings.active_mode = "test"
        if activate:
            self.settings.active_profile = profile.id
        await self._save()
        if replaced:
            await self.store.delete(edited)
            await self.keys.delete_profile(edited)
            self.hub.profile_deleted.emit(edited)
        self.hub.session_changed.emit()
        if changed:
            detail = f"{profile.name}: {', '.join(changed)}"
            await activity.note(self.activity, activity.KEYS_SAVED, actor, profile_id=profile.id, detail=detail)
        return persisted

    async def delete_profile(self, profile_id: str) -> None:
        """Forget the profile and its keys (on a shared ledger: for every desk): a person's
        who may manage profiles (NotAllowed)."""
        self.staff.require(Capability.PROFILES)
        profile = self.settings.profile(profile_id)
        if profile is None:
            return
        if self.profile_refusal(profile) is not None:
            self.refuse_while_down()
        await self.store.delete(profile_id)
        self._drop(profile_id)
        await self._save()
        await self.keys.delete_profile(profile_id)
        self.hub.profile_deleted.emit(profile_id)
        self.hub.session_changed.emit()

    def _drop(self, profile_id: str) -> bool:
        """The profile out of the list (and its clients); False when it was not there."""
        profile = self.settings.profile(profile_id)
        if profile is None:
            return False
        self.settings.profiles.remove(profile)
        self._retire(profile_id)
        if self.settings.active_profile == profile_id:
            self.settings.active_profile = self.settings.profiles[0].id if self.settings.profiles else None
            self.settings.active_mode = "test"
        return True

    async def reload_profiles(self) -> None:
        """Read the profiles again: another desk of the shared ledger changed its merchants
        (a "merchant" event). The active one stays if it is still there."""
        saved = await asyncio.to_thread(self.file.load)
        profiles = await self.store.load(saved.profiles)
        gone = {p.id for p in self.settings.profiles} - {p.id for p in profiles}
        self.settings.profiles = profiles
        await self._carry_keys()
        for profile_id in gone:
            self._retire(profile_id)
            self.hub.profile_deleted.emit(profile_id)
        if self.settings.active is None:
            self.settings.active_profile = profiles[0].id if profiles else None
            self.settings.active_mode = "test"
        self.hub.session_changed.emit()

    async def _carry_keys(self) -> None:
        """On a shared ledger: this desk's keys follow its profiles to the merchants shown."""
        await carry_to_shown(self.keys, self.store.own_profiles(), self.settings.profiles, self._carried)

    def _retire(self, profile_id: str) -> None:
        """The profile's keys or address changed: its clients end after their last call."""
        self.clients.retire(profile_id)
