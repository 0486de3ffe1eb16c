"""Who may do what: the shop's staff, their roles, and the person signed in at this desk.

Qt-free, so the window, a headless desk and the receiver obey the same rules. The window
hides what the person signed in may not do; the desk refuses it anyway: every controller
method that acts on the shop's behalf calls ``staff.require(capability)`` before anything
is written or sent.

A shop with no staff set up works as before: nobody signs in, ``require`` lets everything
through and ``actor`` is None. The first person set up (Settings → Staff…) is an Admin.

On one computer on its own (SQLite) this is a lock in the app, not a boundary against
someone with the computer's account: the boundary on a shared ledger is the database role
and the key, not this class (docs/SHARED_LEDGER.md).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from ..service.errors import ServiceError


class Capability(enum.Enum):
    """One thing a person may do. Its value is how it is named in the ledger and the docs."""

    # the counter
    SELL = "sell"
    VOID_OWN_SALE = "void own sale"  # void their own open sale, decide after it
    CLOSE_SHIFT = "close shift"
    # finance
    LINKS = "payment links"
    BULK_LINKS = "bulk links"
    TRANSACTIONS = "transactions"
    EXPORT = "export"
    RECEIPTS = "receipts"
    END_OF_DAY = "end of day"
    CHECK_ALL_OPEN = "check all open"
    # admin
    CARDS = "cards"
    PROFILES = "profiles and keys"
    GO_LIVE = "switch to live"
    SHARED_LEDGER = "shared ledger settings"
    STAFF = "staff"


class Role(enum.Enum):
    COUNTER = "counter"
    FINANCE = "finance"
    ADMIN = "admin"

    @property
    def title(self) -> str:
        return self.value.capitalize()


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


class NotAllowed(ServiceError):
    """The person signed in may not do this (or nobody is signed in while staff are set up).
    Its message is one plain sentence for where the person acted."""

    def __init__(self, capability: Capability, person: Person | None) -> None:
        if person is None:
            text = "Sign in first: this desk is locked."
        else:
            text = f"{person.name} ({person.role.title}) may not use {capability.value}."
        super().__init__(text)
        self.capability = capability
        self.person = person


class Staff:
    """The desk's staffing: whether staff are set up, and who is signed in now.

    ``set_up`` is True once the shop has at least one person (read from the ledger's staff
    book when the desk opens); ``person`` is who is signed in (None while locked or when
    no staff are set up). Listeners hear every change of person (sign-in, lock, switch).
    """

    def __init__(self) -> None:
        self.set_up = False
        self.person: Person | None = None
        self._listeners: list[Callable[[Person | None], None]] = []

    def on_change(self, listener: Callable[[Person | None], None]) -> None:
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener(self.person)

    def allows(self, capability: Capability) -> bool:
        if not self.set_up:
            return True
        return self.person is not None and self.person.may(capability)

    def require(self, capability: Capability) -> None:
        """Refuse (NotAllowed) unless the person signed in may do this."""
        if not self.allows(capability):
            raise NotAllowed(capability, self.person)

    @property
    def actor(self) -> str | None:
        """Who did it, as written beside each write: the person's name, or None when no
        staff are set up."""
        return self.person.name if self.person is not None else None

    def signed_in(self, person: Person) -> None:
        self.set_up = True
        self.person = person
        self._changed()

    def lock(self) -> None:
        if self.person is not None:
            self.person = None
            self._changed()
