"""Who may be sent a profile's keys: only an address that answers like the service.

Before the first key goes to an address, again whenever an answer there was not the
service's own shape (a page, another program's JSON, a refusal of the key, a connection
that failed), and at the first call ``TRUSTED_FOR`` s after it last answered, the address
is asked a question without any key (``service/probe.py``); every call waits for it, so it
takes its call of the budget as a person's create does, whoever asked. When
another program answers, the connection's state says so (``FOREIGN``), no key is called
wrong, and nothing more is sent there: every call is refused before it is sent
(``NotTheServiceError``) until the address answers like the service again. It is asked
again in the background, with backoff (1 s, doubling, at most every ``LONGEST`` s), and at
every new call a person or the scheduler starts (``ask``: "Check now" asks at once); when
nothing listens there any more, the state says "Offline" at once.

The embedded sandbox served by another process is asked as before, at every call, by its
own public key (``EmbeddedSandbox.verify``); the one this session serves is not asked.
Qt-free: the session hands each client a ``Guarded`` of its profile (``client.AddressGuard``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from ..config.profiles import MODES, Profile
from ..i18n import N_, _
from ..service.budget import Budget
from ..service.call_class import CallClass, calls_as
from ..service.errors import NotTheServiceError, ServiceUnavailableError
from .embedded import EmbeddedSandbox, WrongServiceError
from .health import ConnectionHealth
from .tasks import TaskSet
from .transports import Transports

log = logging.getLogger("paydesk.guard")
FOREIGN = N_("This address does not answer like the service: PayDesk sends it no key until it does")
UNREACHABLE = N_("The service cannot be reached")
FIRST = 1.0  # s: the first wait before the address is asked again (and the least between two)
LONGEST = 15.0  # s: the longest
TRUSTED_FOR = 300.0  # s: an address that answered like the service is asked again after this


class Verdict(Enum):
    UNKNOWN = "unknown"  # not asked since the last doubt
    SERVICE = "service"  # answers like the service
    FOREIGN = "foreign"  # another program answers


@dataclass
class _Address:
    verdict: Verdict = Verdict.UNKNOWN
    asked: int = 0  # how many times it was asked: a call that waited for another's asking uses its answer
    asked_at: float = -1e9  # monotonic: when it last answered
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    watch: asyncio.Task | None = None  # asking again in the background, while another program answers


def foreign_text(base_url: str) -> str:
    return _("{url} does not answer like the service: PayDesk sends it no key until it does").format(
        url=base_url.rstrip("/")
    )


class AddressGuard:
    """The verdict per address (a profile's ``base_url``), shared by every profile there."""

    def __init__(
        self,
        health: ConnectionHealth,
        embedded: EmbeddedSandbox,
        tasks: TaskSet,
        profiles: Callable[[], list[Profile]],
        budget_of: Callable[[Profile], Budget] | None = None,
        transports: Transports | None = None,
    ):
        self.health = health
        self.transports = transports if transports is not None else Transports()  # as the clients reach it
        self.budget_of = budget_of  # the address's call budget: the question is a call too
        self.embedded = embedded
        self.tasks = tasks
        self.profiles = profiles
        self._at: dict[str, _Address] = {}

    def _address(self, base_url: str) -> _Address:
        return self._at.setdefault(base_url.rstrip("/"), _Address())

    def verdict(self, base_url: str) -> Verdict:
        return self._address(base_url).verdict

    # -- the three times an address is asked ------------------------------------------------

    async def ask(self, profile: Profile, mode: str) -> None:
        """A new call (a person's, or the scheduler's): the address is asked unless it
        answered like the service since the last doubt. Raises NotTheServiceError (another
        program answers) or ServiceUnavailableError (nothing does)."""
        if profile.embedded_sandbox:
            await self._embedded(profile, mode)
        elif not self._trusted(self._address(profile.base_url)):
            await self._ask(profile)

    async def recheck(self, profile: Profile, mode: str) -> None:
        """An answer there refused the key, or was not the service's: is it still the
        service? Asked whatever was known."""
        if profile.embedded_sandbox:
            await self._embedded(profile, mode)
        else:
            await self._ask(profile, always=True)

    async def before_send(self, profile: Profile) -> None:
        """Before each request of a call: refused at once while another program answers
        there (asked again in the background, and at most every ``FIRST`` s here), asked
        after a doubt."""
        where = self._address(profile.base_url)
        if where.verdict is Verdict.FOREIGN and time.monotonic() - where.asked_at < FIRST:
            raise NotTheServiceError(foreign_text(profile.base_url))
        if not self._trusted(where):
            await self._ask(profile)

    @staticmethod
    def _trusted(where: _Address) -> bool:
        return where.verdict is Verdict.SERVICE and time.monotonic() - where.asked_at < TRUSTED_FOR

    def doubt(self, base_url: str) -> None:
        """An answer there was not the service's shape (or none came): ask before the next."""
        where = self._address(base_url)
        if where.verdict is Verdict.SERVICE:
            where.verdict = Verdict.UNKNOWN

    # -- asking -----------------------------------------------------------------------------

    async def _ask(self, profile: Profile, always: bool = False) -> None:
        where = self._address(profile.base_url)
        asked = where.asked
        async with where.lock:
            if where.asked == asked or always:  # else another call asked while this one waited
                await self._sound(profile, where)
        if where.verdict is Verdict.FOREIGN:
            raise NotTheServiceError(foreign_text(profile.base_url))
        if where.verdict is Verdict.UNKNOWN:
            raise ServiceUnavailableError(_(UNREACHABLE))

    async def _sound(self, profile: Profile, where: _Address) -> None:
        from ..service.probe import Sounding, sound  # httpx is imported after the first paint

        budget = self.budget_of(profile) if self.budget_of is not None else None
        with calls_as(CallClass.PERSON_CREATE):  # every call waits for it, a person's too
            said = await sound(
                profile.base_url,
                lookup_path=profile.lookup_path,
                budget=budget,
                transport=self.transports.of(profile.base_url),
            )
        where.asked += 1
        where.asked_at = time.monotonic()
        before, base = where.verdict, profile.base_url
        if said is Sounding.SERVICE:
            where.verdict = Verdict.SERVICE
            if before is Verdict.FOREIGN:
                log.info("%s answers like the service again", base)
                self._tell(base, self.health.ok)
        elif said is Sounding.OTHER:
            where.verdict = Verdict.FOREIGN
            if before is not Verdict.FOREIGN:
                log.warning("%s does not answer like the service: no key is sent to it", base)
            self._tell(base, lambda profile_id, mode: self.health.refused(profile_id, mode, _(FOREIGN)))
            if where.watch is None or where.watch.done():
                where.watch = self.tasks.spawn(self._watch(profile, where), "ask the address again")
        else:
            where.verdict = Verdict.UNKNOWN
            self._tell(base, self.health.unreachable)

    def _tell(self, base_url: str, say: Callable[[str, str], None]) -> None:
        """Every profile at this address, in each mode: the connection's state."""
        base = base_url.rstrip("/")
        for profile in self.profiles():
            if not profile.embedded_sandbox and profile.base_url.rstrip("/") == base:
                for mode in MODES:
                    say(profile.id, mode)

    async def _watch(self, profile: Profile, where: _Address) -> None:
        """While another program answers there: ask again, with backoff, until the service
        answers or nothing does (then "Offline", at once). Survives any error."""
        wait, base = FIRST, profile.base_url.rstrip("/")
        while where.verdict is Verdict.FOREIGN:
            await asyncio.sleep(wait)
            wait = min(LONGEST, wait * 2)
            if where.verdict is not Verdict.FOREIGN:
                break  # a call asked meanwhile
            if not any(p.base_url.rstrip("/") == base for p in self.profiles()):
                break  # no profile is there any more (its address was corrected, or it went)
            try:
                async with where.lock:
                    await self._sound(profile, where)
            except Exception:  # asked again at the next turn
                log.exception("asking %s again failed", profile.base_url)

    # -- the embedded sandbox ----------------------------------------------------------------

    async def _embedded(self, profile: Profile, mode: str) -> None:
        """Served by another process: is it still this computer's sandbox? (each call)"""
        try:
            await self.embedded.verify(profile)
        except WrongServiceError as error:
            self.health.refused(profile.id, mode, error.message)
            raise
        except ServiceUnavailableError:
            self.health.unreachable(profile.id, mode)
            raise


class Guarded:
    """One profile's address, as its client asks it before each request."""

    def __init__(self, guard: AddressGuard, profile: Profile):
        self.guard, self.profile = guard, profile

    async def before_send(self) -> None:
        await self.guard.before_send(self.profile)

    def doubt(self) -> None:
        self.guard.doubt(self.profile.base_url)
