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

``Capability``, ``Role`` and ``Person`` are named in ``ledger/staff.py`` (the staff book hands
out people) and given to the rest of PayDesk from here. Signing in, locking and the staff
list are ``desk/sign_in.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable

from ..i18n import _
from ..ledger.staff import CAPABILITIES, Capability, Person, Role
from ..service.errors import ServiceError


class NotAllowed(ServiceError):
    """The person signed in may not do this (or nobody is signed in while staff are set up).
    Its message is one plain sentence for where the person acted."""

    def __init__(self, capability: Capability, person: Person | None, text: str = "") -> None:
        if not text and person is None:
            text = _("Sign in first: this desk is locked.")
        elif not text and person is not None:
            text = _("{name} ({role}) may not use {capability}.").format(
                name=person.name, role=person.role.title, capability=capability.words
            )
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

    def require_own(self, capability: Capability, made_by: str | None) -> None:
        """``require(capability)``, for something made by the person signed in (``made_by``:
        who made it, as ``actor`` named them then): a Counter voids only a sale they made;
        an Admin may act on anyone's."""
        self.require(capability)
        person = self.person
        if person is None or person.role is Role.ADMIN or made_by == person.name:
            return
        if made_by:
            text = _("{name} may void only their own sales: this one was made by {maker}.")
        else:
            text = _("{name} may void only their own sales: this one was made before anyone signed in.")
        raise NotAllowed(capability, person, text.format(name=person.name, maker=made_by))

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


__all__ = ["CAPABILITIES", "Capability", "NotAllowed", "Person", "Role", "Staff"]
