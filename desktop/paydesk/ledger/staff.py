"""The staff book: the shop's people, their roles, and their PINs as argon2id hashes.

Who may do what is named here, below the desk (``Capability``, ``Role``, ``Person``), so the
book can hand out people; ``desk/staff.py`` gives them to the rest of PayDesk with the desk's
``Staff`` (who is signed in) and its refusal, ``NotAllowed``.

A PIN is never stored, nor sent to the store. The desk hashes it (argon2id, a random salt
per person, the parameters stored beside the hash: ``pin_hash``, run off the loop's thread)
and the store *compares and counts*: ``check`` compares in constant time, counts a wrong
PIN, and refuses every PIN while the person's wait runs (``wait_after``: none for the first
three wrong PINs, then 2 s doubling at each one to 5 minutes). The wait is kept in the
store, so restarting PayDesk does not reset it. On a shared PostgreSQL ledger the table is
its owner's alone: a counter's database role checks a PIN through ``SECURITY DEFINER``
functions and cannot read a hash (``postgres/staff_schema.py``).

``StaffBook`` is the interface; ``SqliteStaffBook`` (beside a desk's SQLite ledger) and
``PostgresStaffBook`` (on a shop's shared ledger) implement it (``books/staff.py``).
"""

from __future__ import annotations

import abc
import asyncio
import enum
import re
from dataclasses import dataclass

from ..i18n import N_, NP_, _, pgettext
from .errors import LedgerError


class Capability(enum.Enum):
    """One thing a person may do. Its value is how it is named in the ledger and the docs;
    ``words``, on screen, in the staff's language."""

    # the counter
    SELL = N_("sell")
    VOID_OWN_SALE = N_("void own sale")  # void their own open sale, decide after it
    CLOSE_SHIFT = N_("close shift")
    # finance
    LINKS = N_("payment links")
    BULK_LINKS = N_("bulk links")
    TRANSACTIONS = N_("transactions")
    EXPORT = N_("export")
    RECEIPTS = N_("receipts")
    END_OF_DAY = N_("end of day")
    CHECK_ALL_OPEN = N_("check all open")
    # admin
    CARDS = N_("cards")
    PROFILES = N_("profiles and keys")
    GO_LIVE = N_("switch to live")
    SHARED_LEDGER = N_("shared ledger settings")
    STAFF = N_("staff")

    @property
    def words(self) -> str:
        """The capability in a sentence, in the staff's language ("payment links")."""
        return _(self.value)


class Role(enum.Enum):
    COUNTER = "counter"
    FINANCE = "finance"
    ADMIN = "admin"

    @property
    def title(self) -> str:
        """The role as the screens name it, in the staff's language ("Counter": a person at the
        till, not the Counter tab; hence the context)."""
        return pgettext(ROLE, _ROLE_TITLES[self])


ROLE = "role"  # the context of a role's name (the role "Counter", a person; not the tab): as NP_ says it
_ROLE_TITLES = {
    Role.COUNTER: NP_("role", "Counter"),
    Role.FINANCE: NP_("role", "Finance"),
    Role.ADMIN: NP_("role", "Admin"),
}


_COUNTER = frozenset({Capability.SELL, Capability.VOID_OWN_SALE, Capability.CLOSE_SHIFT})
_FINANCE = frozenset(
    {
        Capability.LINKS,
        Capability.BULK_LINKS,
        Capability.TRANSACTIONS,
        Capability.EXPORT,
        Capability.RECEIPTS,
        Capability.END_OF_DAY,
        Capability.CHECK_ALL_OPEN,
    }
)
CAPABILITIES: dict[Role, frozenset[Capability]] = {
    Role.COUNTER: _COUNTER,
    Role.FINANCE: _FINANCE,
    Role.ADMIN: frozenset(Capability),  # an Admin may do everything
}


@dataclass(frozen=True)
class Person:
    """A member of staff as the desk knows them: never their PIN nor its hash."""

    id: str
    name: str
    role: Role

    def may(self, capability: Capability) -> bool:
        return capability in CAPABILITIES[self.role]

    @property
    def label(self) -> str:
        """How the status bar names them: "Ana · Counter"."""
        return f"{self.name} · {self.role.title}"


# -- PINs -------------------------------------------------------------------------------

PIN_FEWEST, PIN_MOST = 4, 8  # digits
NAME_MOST = 40  # characters: the sign-in list, the status bar, "who did it"
_DIGITS = re.compile(r"[0-9]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")

FREE_TRIES = 3  # wrong PINs before any wait
FIRST_WAIT = 2  # seconds, after the first wrong PIN past them; doubling at each one more
LONGEST_WAIT = 300  # seconds: 5 minutes


def wait_after(failures: int) -> int:
    """Seconds a person waits after ``failures`` wrong PINs in a row: 0 for the first three,
    then 2, 4, 8... up to 300."""
    if failures <= FREE_TRIES:
        return 0
    return min(LONGEST_WAIT, FIRST_WAIT << min(failures - FREE_TRIES - 1, 16))


@dataclass(frozen=True)
class PinCost:
    """argon2id's parameters, stored beside each hash (a later PayDesk may raise them for
    new PINs; an old hash is checked with its own). OWASP's first choice for argon2id:
    19 MiB, two passes, one lane (about 20 ms on a desk's core)."""

    time_cost: int = 2
    memory_cost: int = 19 * 1024  # KiB
    parallelism: int = 1


COST = PinCost()
SALT_BYTES = 16
HASH_BYTES = 32


@dataclass(frozen=True)
class PinSalt:
    """What the store tells a desk to hash a person's PIN with (no secret in it)."""

    salt: bytes
    cost: PinCost


@dataclass(frozen=True)
class PinAnswer:
    """A PIN checked: ``ok``, the person (when ok), and the seconds to wait before the next
    try (0: none). ``waiting``: refused without being compared, the person's wait running."""

    ok: bool
    person: Person | None
    wait_s: float
    waiting: bool = False


class PinRefused(LedgerError):
    """A PIN, or a name, the book will not take; its message is one plain sentence."""


class LastAdmin(LedgerError):
    """The change would leave the shop with no Admin: nothing was changed."""

    def __init__(self) -> None:
        super().__init__(_("The shop must keep at least one Admin: make someone else an Admin first."))


class NoSuchPerson(LedgerError):
    def __init__(self) -> None:
        super().__init__(_("That person is no longer on the staff list."))


class NameTaken(LedgerError):
    def __init__(self, name: str) -> None:
        super().__init__(_("There is already someone called {name} on the staff list.").format(name=name))


def pin_problem(pin: str) -> str | None:
    """What is wrong with a PIN as typed, in one plain sentence, or None."""
    if not _DIGITS.fullmatch(pin) or not PIN_FEWEST <= len(pin) <= PIN_MOST:
        return _("A PIN is {fewest} to {most} digits.").format(fewest=PIN_FEWEST, most=PIN_MOST)
    return None


def name_problem(name: str) -> str | None:
    """What is wrong with a person's name as typed, or None."""
    text = name.strip()
    if not text:
        return _("Give the person a name.")
    if len(text) > NAME_MOST:
        return _("A name is at most {most} characters.").format(most=NAME_MOST)
    if _CONTROL.search(text):
        return _("A name is one line of text.")
    return None


def name_key(name: str) -> str:
    """What makes two names the same person's on the list (case and outer spaces aside)."""
    return name.strip().casefold()


def _hash(pin: str, salt: bytes, cost: PinCost) -> bytes:
    # imported here, on the worker thread of the first PIN: not on the way to the first paint
    from argon2.low_level import Type, hash_secret_raw

    return hash_secret_raw(
        pin.encode("ascii"),
        salt,
        time_cost=cost.time_cost,
        memory_cost=cost.memory_cost,
        parallelism=cost.parallelism,
        hash_len=HASH_BYTES,
        type=Type.ID,
    )


async def pin_hash(pin: str, salt: bytes, cost: PinCost) -> bytes:
    """argon2id of ``pin`` with ``salt`` and ``cost``, off the loop's thread (it takes tens
    of milliseconds, by design). A PIN that is not 4 to 8 digits is refused first."""
    problem = pin_problem(pin)
    if problem:
        raise PinRefused(problem)
    return await asyncio.to_thread(_hash, pin, salt, cost)


class StaffBook(abc.ABC):
    """The shop's staff. Every method is a coroutine; nothing returns a hash."""

    @abc.abstractmethod
    async def people(self) -> list[Person]:
        """Everyone, by name (case aside)."""

    @abc.abstractmethod
    async def add(self, name: str, role: Role, pin: str) -> Person: ...

    @abc.abstractmethod
    async def change(
        self, person_id: str, *, name: str | None = None, role: Role | None = None, pin: str | None = None
    ) -> Person:
        """A new name, role or PIN (a new PIN also ends any wait); refused (``LastAdmin``)
        when it would leave no Admin."""

    @abc.abstractmethod
    async def remove(self, person_id: str) -> None:
        """Refused (``LastAdmin``) for the last Admin."""

    @abc.abstractmethod
    async def salt(self, person_id: str) -> PinSalt | None:
        """The person's salt and cost (None: no such person)."""

    @abc.abstractmethod
    async def check(self, person_id: str, digest: bytes) -> PinAnswer:
        """Compare ``digest`` with the person's hash in constant time, count a wrong one,
        and refuse without comparing while the person's wait runs."""

    async def check_pin(self, person_id: str, pin: str) -> PinAnswer:
        """The whole check: the salt, the hash (off the loop's thread), the store's answer.
        A PIN that is not 4 to 8 digits raises ``PinRefused`` and counts nothing."""
        problem = pin_problem(pin)
        if problem:
            raise PinRefused(problem)
        found = await self.salt(person_id)
        if found is None:
            raise NoSuchPerson()
        return await self.check(person_id, await pin_hash(pin, found.salt, found.cost))


__all__ = [
    "CAPABILITIES",
    "COST",
    "Capability",
    "LastAdmin",
    "NameTaken",
    "NoSuchPerson",
    "Person",
    "PinAnswer",
    "PinCost",
    "PinRefused",
    "PinSalt",
    "Role",
    "StaffBook",
    "name_key",
    "name_problem",
    "pin_hash",
    "pin_problem",
    "wait_after",
]
