"""The running session: profiles, the active mode, keys, clients, the ledger, the embedded
sandbox and the connection's health.

Qt-free: what changes is said on the desk's ``Hub`` (``events.py``); every action is a plain
``async def``. It builds none of its parts: ``build.build_desk`` hands them in.
Every call to the service goes through ``lease(profile, mode)``: the client of exactly that
profile and mode, lent by ``clients`` (``leases.py``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

from ..config.desk_name import computer_name
from ..config.paths import Paths
from ..config.profiles import (
    Profile,
    Settings,
    SettingsFile,
)
from ..config.secrets import KeyStore
from ..config.shared_ledger import Choice
from ..i18n import N_, _
from ..ledger import Ledger, LedgerError
from ..ledger.activity import ActivityBook
from ..ledger.cards import CardLedger
from ..service.errors import (
    ServiceError,
)
from ..service.txref import new_installation_id
from .budgets import Budgets
from .discovery import discover
from .embedded import EmbeddedSandbox
from .events import Hub
from .guard import AddressGuard
from .health import ConnectionHealth
from .leases import Clients
from .profile_store import ProfileStore
from .session_saving import SessionSaving
from .staff import Capability, Staff
from .tasks import TaskSet
from .transports import Transports

if TYPE_CHECKING:  # the client (and httpx) load after the first paint
    from ..sandbox import SandboxServer
    from ..service.client import ServiceClient

log = logging.getLogger("paydesk.session")
PAID_BY_NOTIFICATION = N_("PAID by notification")  # the connection's word while notifications come


class NoProfileError(ServiceError):
    """There is no profile yet: nothing can be asked of the service."""

    def __init__(self) -> None:
        super().__init__(_("Add a profile first"))


class Session(SessionSaving):
    def __init__(
        self,
        paths: Paths,
        keys: KeyStore,
        *,
        hub: Hub,
        ledger: Ledger,
        card_ledger: CardLedger,
        health: ConnectionHealth,
        embedded: EmbeddedSandbox,
        profiles: ProfileStore | None = None,
        budgets: Budgets | None = None,
        ledger_choice: Choice | None = None,
        transports: Transports | None = None,
        activity: ActivityBook | None = None,
    ):
        self.paths = paths
        self.keys = keys
        self.hub = hub
        self.file = SettingsFile(paths.profiles)
        self.settings = Settings()
        self.ledger = ledger
        self.card_ledger = card_ledger
        self.health = health
        self.embedded = embedded
        self.store = profiles or ProfileStore()  # the settings file, or a shared ledger's merchants
        # one call budget per service origin (this process's, or the shop's on a shared ledger)
        self.budgets = budgets or Budgets()
        self.tasks = TaskSet()
        self.staff = Staff()  # who is signed in, and what they may do (desk/staff.py)
        # who did what that leaves no record of its own: exports, keys saved, going live
        self.activity = activity
        # who may be sent the keys: an address that answers like the service (guard.py)
        self.guard = AddressGuard(
            health,
            embedded,
            self.tasks.child(),
            lambda: self.settings.profiles,
            lambda profile: self.budgets.of(profile, self.settings.profiles),
            transports,
        )
        # the clients, one per profile and mode, lent for each call (leases.py)
        self.clients = Clients(
            keys,
            health,
            self.guard,
            self.budgets,
            self.tasks,
            lambda: self.settings.profiles,
            self._remember_lookup_path,
            self.recheck_service,
            transports,  # how each origin is reached (transports.py)
        )
        self._save_lock = asyncio.Lock()
        self._carried: set[str] = set()  # merchants this desk's own keys were carried to
        # which ledger this run uses, as it was chosen (desk/ledger_choice.py)
        self.ledger_choice = ledger_choice or Choice(None, "own")
        self.desk_name = computer_name()  # this desk's name, settled at open (desk/desk_name.py)
        # a shared ledger's check (desk/live.py): raises while it is out of reach
        self.ledger_down: Callable[[], Exception | None] = lambda: None
        # who checks payments, when not this desk (desk/live.py: another desk, or the shop's
        # notification receiver, holds the poller lease), and whether notifications bring a
        # profile's payments (desk/notified.py): the status bar's word on the connection
        self.checked_elsewhere: Callable[[], bool] = lambda: False
        self.notified_lately: Callable[[str, str], bool] = lambda profile_id, mode: False
        keys.on_changed = self._key_changed  # "No test secret key…" goes once one is kept

    def _key_changed(self, name: str) -> None:
        """A key of the key store kept or removed (entry ``profile/mode/kind``)."""
        self.health.keys_changed(name.partition("/")[0])

    def connection_words(self) -> str:
        """The status bar's word on the active profile's connection: "Checked 12 s ago",
        "Offline since 14:02, retrying", what is wrong with its keys; but while another desk
        or the shop's receiver checks payments, nothing (the shared ledger's own words say
        who), and while notifications bring its payments, "PAID by notification": never an
        ageing "Checked 13 min ago" for checks this desk has no need to make."""
        profile = self.profile
        if profile is None:
            return ""
        health = self.health.get(profile.id, self.mode)
        if health.offline_since is None and not health.problem:
            if self.checked_elsewhere():
                return ""
            if self.notified_lately(profile.id, self.mode):
                return _(PAID_BY_NOTIFICATION)
        return health.text()

    async def load(self) -> None:
        """Read the profiles (off the loop's thread); draw this installation's id once."""
        self.settings = await asyncio.to_thread(self.file.load)
        self.settings.profiles = await self.store.load(self.settings.profiles)
        await self._carry_keys()
        if self.settings.active is None and self.settings.profiles:
            self.settings.active_profile = self.settings.profiles[0].id
        if not self.settings.installation_id:
            self.settings.installation_id = new_installation_id()
            await self._save()

    # -- what is active ---------------------------------------------------------------

    @property
    def profile(self) -> Profile | None:
        return self.settings.active

    @property
    def mode(self) -> str:
        return self.settings.active_mode

    def active(self) -> tuple[Profile, str]:
        """The active profile and mode (NoProfileError when there is no profile yet)."""
        profile = self.settings.active
        if profile is None:
            raise NoProfileError()
        return profile, self.settings.active_mode

    @property
    def installation_id(self) -> str:
        """This installation's id, in every reference it makes (drawn by ``load``)."""
        if not self.settings.installation_id:
            raise RuntimeError("the session's settings were not read yet (Session.load)")
        return self.settings.installation_id

    @property
    def is_test(self) -> bool:
        return self.mode == "test"

    @property
    def sandbox(self) -> SandboxServer | None:
        """The embedded sandbox's server when this session runs it."""
        return self.embedded.server

    def report(self, text: str) -> None:
        self.hub.call_finished.emit(text)

    async def key(self, mode: str | None = None, kind: str = "secret", profile: Profile | None = None) -> str | None:
        """A key of ``profile`` (default: the active one) for the user to see or publish: a
        secret one only for a person who may manage keys (NotAllowed)."""
        if kind == "secret":
            self.staff.require(Capability.PROFILES)
        profile = profile or self.profile
        if profile is None:
            return None
        return await self.keys.get(profile.id, mode or self.mode, kind)

    # -- clients ----------------------------------------------------------------------

    def lease(
        self, profile: Profile, mode: str, *, ask_first: bool = True
    ) -> AbstractAsyncContextManager[ServiceClient]:
        """The client of exactly this profile and mode, for the calls inside the block
        (``leases.Clients.lease``)."""
        return self.clients.lease(profile, mode, ask_first=ask_first)

    def _remember_lookup_path(self, profile_id: str, base_url: str, path: str) -> None:
        """A client found out where its deployment looks payments up: keep it with the
        profile (saved off the loop's thread), unless the profile moved to another address."""
        profile = self.settings.profile(profile_id)
        if profile is None or profile.base_url != base_url or profile.lookup_path == path:
            return
        profile.lookup_path = path
        log.info("%s looks payments up at %s", profile.name, path)
        self.tasks.spawn(self._save(), "save the profile's lookup path")
        if self.store.shared:
            self.tasks.spawn(self._share(profile), "share the profile's lookup path")

    async def _share(self, profile: Profile) -> None:
        """What a check learned about a merchant, told to the shop: a shared ledger out of
        reach now only delays it (this desk knows it, and learns it again next start)."""
        try:
            await self.store.save(profile)
        except LedgerError as error:
            log.warning("the lookup path of %s is not shared yet: %s", profile.name, error)

    # -- the embedded sandbox -----------------------------------------------------------

    async def verify_service(self, profile: Profile, mode: str) -> None:
        """Before a call: does the profile's address answer like the service (for the
        embedded sandbox served by another process: like this computer's sandbox)? Asked
        without a key unless known since the last doubt. Raises (and says in the status
        bar) NotTheServiceError when something else answers there (WrongServiceError for
        the embedded sandbox), ServiceUnavailableError when nothing does."""
        await self.guard.ask(profile, mode)

    async def recheck_service(self, profile: Profile, mode: str) -> None:
        """An answer there refused a key, or was not the service's: asked again now (see
        ``verify_service``)."""
        await self.guard.recheck(profile, mode)

    async def start_embedded_sandbox(self) -> Profile:
        """Start (or find) the embedded sandbox and make its profile point at it."""
        existing = next((p for p in self.settings.profiles if p.embedded_sandbox), None)
        profile, keys = await self.embedded.start(existing)
        first = existing is None
        if first:
            self.settings.active_mode = "test"
        await self._save_profile(profile, keys, activate=first or self.profile is None)
        return profile

    async def discover(self, profile: Profile, secret: str) -> Profile:
        """Find out from the service whether it has cards (adjusting the default currencies)
        and where it looks payments up (``discovery.py``): part of a profile's set-up."""
        self.staff.require(Capability.PROFILES)
        return await discover(self.guard, profile, secret)

    # -- shutdown -----------------------------------------------------------------------

    async def close(self) -> None:
        await self.tasks.cancel_all()
        await self.clients.close()
        await self.budgets.close()
        await self.ledger.close()
        await self.embedded.stop()
