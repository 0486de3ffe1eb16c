"""The clients of a session, lent for each call (Qt-free): ``Clients.lease(profile, mode)``
gives the client of exactly that profile and mode (never the active one by default), made
once even when two first calls race (off the loop's thread), closed only after its last
call ends when a profile's keys or address change. What the service said (or that it could
not be reached) goes to the connection's health."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..config.profiles import MODES, Profile, address_problem
from ..config.secrets import KeyStore
from ..i18n import _
from ..service.budget import Budget
from ..service.errors import (
    AuthenticationError,
    NotTheServiceError,
    ServiceError,
    ServiceUnavailableError,
    UnexpectedAnswerError,
)
from .budgets import Budgets
from .guard import AddressGuard, Guarded
from .health import ConnectionHealth
from .tasks import TaskSet
from .transports import Transports

if TYPE_CHECKING:  # the client (and httpx) load after the first paint
    import httpx

    from ..service.client import ServiceClient

CREATE_DEADLINE = 30.0  # seconds a person waits for "Create link" before PayDesk settles it later


class NoKeyError(ServiceError):
    """This profile has no secret key for this mode (or the keyring could not give it)."""

    def __init__(self, profile: Profile, mode: str, why: str | None = None):
        if mode == "live":
            text = _("No live secret key for {profile}: add it in the profile editor")
            if why:
                text = _("The live secret key of {profile} could not be read ({why})")
        else:
            text = _("No test secret key for {profile}: add it in the profile editor")
            if why:
                text = _("The test secret key of {profile} could not be read ({why})")
        text = text.format(profile=profile.name, why=why)
        super().__init__(text)


class KeylessDesk(ServiceError):
    """This desk is a key-less counter: it never calls the service (desk/counter_keyless.py)."""

    def __init__(self) -> None:
        super().__init__(_("This counter holds no keys: cards, links and look-ups are made at a finance desk."))


class InsecureAddressError(ServiceError):
    """The profile's address would send its keys in the clear."""


def _new_client(
    profile: Profile,
    secret: str,
    on_lookup_path: Callable[[str], None],
    guard: Guarded | None,
    budget: Budget,
    transport: httpx.AsyncBaseTransport | None,
) -> ServiceClient:
    from ..service import ServiceClient  # httpx is imported after the first paint

    # a create gives up waiting after CREATE_DEADLINE (not counting its wait for the
    # budget): the ledger keeps the intent and the scheduler settles it in the background
    # with the same reference
    return ServiceClient(
        profile.base_url,
        secret,
        create_deadline=CREATE_DEADLINE,
        card_currencies=profile.card_currencies,
        lookup_path=profile.lookup_path,
        on_lookup_path=on_lookup_path,
        guard=guard,
        budget=budget,
        transport=transport,  # None: over the network (transports.py)
    )


@dataclass
class _Slot:
    client: ServiceClient
    fingerprint: tuple
    users: int = 0
    retired: bool = False


class Clients:
    """``Clients(keys, health, guard, budgets, tasks, profiles, remember, recheck)``:
    ``profiles()`` every profile (a budget is per origin); ``remember(profile_id, base_url,
    path)`` where a client found its deployment looks payments up; ``recheck(profile,
    mode)`` asks the address again who answers there (``Session.recheck_service``);
    ``transports``: how each origin is reached (``transports.py``; default: the network)."""

    def __init__(
        self,
        keys: KeyStore,
        health: ConnectionHealth,
        guard: AddressGuard,
        budgets: Budgets,
        tasks: TaskSet,
        profiles: Callable[[], list[Profile]],
        remember: Callable[[str, str, str], None],
        recheck: Callable[[Profile, str], Awaitable[None]],
        transports: Transports | None = None,
    ):
        self.keys, self.health, self.guard, self.budgets = keys, health, guard, budgets
        self.transports = transports if transports is not None else Transports()
        self.tasks, self.profiles, self.remember, self.recheck = tasks, profiles, remember, recheck
        self.keyless = False  # a key-less counter's desk: every lease refused (KeylessDesk)
        self.slots: dict[tuple[str, str], _Slot] = {}
        self._slot_locks: dict[tuple[str, str], asyncio.Lock] = {}

    @asynccontextmanager
    async def lease(self, profile: Profile, mode: str, *, ask_first: bool = True) -> AsyncIterator[ServiceClient]:
        """The client of exactly this profile and mode, for the calls inside the block.
        What the service said (or that it could not be reached) goes to ``health``.

        The address is asked first whether it answers like the service (``guard.py``), and
        the client asks before each request. ``ask_first=False``: asked at the first
        request instead (a create writes its intent before it), but for the embedded
        sandbox another process serves, asked now as always."""
        if self.keyless:  # a key-less counter: nothing is sent, whatever asks
            raise KeylessDesk()
        try:
            problem = address_problem(profile.base_url)
            if problem:  # nothing goes there in the clear, not even a question
                raise InsecureAddressError(problem)
            if ask_first or profile.embedded_sandbox:
                await self.guard.ask(profile, mode)  # no key to another program
            slot = await self._slot(profile, mode)
        except (NoKeyError, InsecureAddressError) as error:
            self.health.refused(profile.id, mode, error.message)
            raise
        slot.users += 1
        try:
            yield slot.client
        except NotTheServiceError:
            raise  # said already (guard.py): not "offline", another program answers
        except ServiceUnavailableError:
            self.health.unreachable(profile.id, mode)
            raise
        except AuthenticationError as error:
            # the address may have changed hands since: a key is never called wrong for
            # whatever answers there now
            await self.recheck(profile, mode)
            refused = _("The live key was refused: {why}") if mode == "live" else _("The test key was refused: {why}")
            self.health.refused(profile.id, mode, refused.format(why=error.message))
            raise
        except UnexpectedAnswerError:
            await self.recheck(profile, mode)  # not the service's answer: who is it?
            self.health.ok(profile.id, mode)
            raise
        except ServiceError:
            self.health.ok(profile.id, mode)  # it answered; the request was the problem
            raise
        else:
            self.health.ok(profile.id, mode)
        finally:
            slot.users -= 1
            if slot.retired and slot.users == 0:
                self.tasks.spawn(slot.client.aclose(), "close a replaced client")

    async def _slot(self, profile: Profile, mode: str) -> _Slot:
        if mode not in MODES:
            raise ValueError(mode)
        problem = address_problem(profile.base_url)
        if problem:
            raise InsecureAddressError(problem)
        key = (profile.id, mode)
        transport = self.transports.of(profile.base_url)
        fingerprint = (
            profile.base_url.rstrip("/"),
            tuple(sorted(profile.card_currencies.items())),
            profile.calls_a_minute,
            transport,  # its origin reached another way since: a new client
        )
        async with self._slot_locks.setdefault(key, asyncio.Lock()):
            slot = self.slots.get(key)
            if slot is not None and slot.fingerprint == fingerprint:
                return slot
            secret = await self.keys.get(profile.id, mode, "secret")
            if not secret:
                raise NoKeyError(profile, mode, self.keys.problem if self.keys.persistent else None)
            # the client finds out where the deployment looks payments up (when the profile
            # does not know yet, or it changed) and says so; the profile keeps it
            remember = functools.partial(self.remember, profile.id, profile.base_url)
            # made off the loop's thread: httpx's import and its TLS context (the certificate
            # store read) would hold the window tens of milliseconds
            guard = None if profile.embedded_sandbox else Guarded(self.guard, profile)
            budget = self.budgets.of(profile, self.profiles())  # its origin's
            fresh = _Slot(
                await asyncio.to_thread(_new_client, profile, secret, remember, guard, budget, transport), fingerprint
            )
            if slot is not None:
                self._retire_slot(slot)
            self.slots[key] = fresh
            return fresh

    def retire(self, profile_id: str) -> None:
        """The profile's keys or address changed: its clients end after their last call."""
        for mode in MODES:
            slot = self.slots.pop((profile_id, mode), None)
            if slot is not None:
                self._retire_slot(slot)

    def _retire_slot(self, slot: _Slot) -> None:
        slot.retired = True
        if slot.users == 0:
            self.tasks.spawn(slot.client.aclose(), "close a replaced client")

    async def close(self) -> None:
        for slot in list(self.slots.values()):
            await slot.client.aclose()
        self.slots.clear()
