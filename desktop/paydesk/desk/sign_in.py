"""Signing in, the lock, and the staff list (Qt-free): ``desk.sign_in``.

- ``load()`` reads whether the shop has staff (the ledger's staff book): none, and the desk
  works as before, nobody signs in;
- ``sign_in(person, pin)``: the desk hashes the PIN (argon2id, off the loop's thread), the
  store compares and counts (``ledger/staff.py``); a wrong PIN raises ``WrongPin``, one plain
  sentence with the wait (none for three wrong PINs, then 2 s doubling to 5 minutes, kept in
  the store: a restart does not end it);
- ``lock()``; ``switch(person, pin)``: another person at a locked counter. Neither closes the
  counter's shift nor touches the customer display: the shift is the counter's, not the
  person's;
- ``idle_lock_minutes``: the window locks after this many idle minutes (per computer, in
  counter.json; 0: never), changed by ``set_idle_lock_minutes`` (an Admin's, when staff are
  set up);
- ``add_person`` / ``change_person`` / ``remove_person``: an Admin's (Capability.STAFF). The
  first person, when the shop has none, must be an Admin, and is signed in at once; the book
  refuses removing or demoting the last Admin.

Every refusal is a ``ServiceError`` whose message is one plain sentence for the screen.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol, TypeVar

from ..config.counter import IDLE_LOCK_MOST, CounterSettings
from ..config.paths import Paths
from ..i18n import _, ngettext
from ..ledger.staff import LastAdmin, NameTaken, NoSuchPerson, PinRefused, StaffBook
from ..service.errors import ServiceError
from .staff import Capability, Person, Role, Staff

if TYPE_CHECKING:
    from ..ledger import Ledger
    from ..ledger.postgres.engine import PgEngine

T = TypeVar("T")


def staff_book(engine: PgEngine | None, ledger: Ledger) -> StaffBook:
    """The staff book beside the desk's ledger: the shared ledger's (``engine``), else the
    desk's own file's (psycopg loads only for a shared ledger)."""
    if engine is not None:
        from ..ledger.postgres.staff import PostgresStaffBook

        return PostgresStaffBook(engine)
    from ..ledger import SqliteLedger
    from ..ledger.sqlite.staff import SqliteStaffBook

    assert isinstance(ledger, SqliteLedger)
    return SqliteStaffBook.beside(ledger)


class WrongPin(ServiceError):
    """The PIN was not the person's, or was not checked because their wait runs."""

    def __init__(self, wait_s: float, *, waiting: bool = False) -> None:
        self.wait_s = wait_s
        self.waiting = waiting
        seconds = max(1, math.ceil(wait_s))
        minutes = math.ceil(seconds / 60)
        if wait_s <= 0 and not waiting:
            text = _("Wrong PIN. Try again.")
        elif waiting and seconds < 90:
            text = ngettext(
                "Too many wrong PINs. Try again in {n} second.",
                "Too many wrong PINs. Try again in {n} seconds.",
                seconds,
            ).format(n=seconds)
        elif waiting:
            text = ngettext(
                "Too many wrong PINs. Try again in {n} minute.",
                "Too many wrong PINs. Try again in {n} minutes.",
                minutes,
            ).format(n=minutes)
        elif seconds < 90:
            text = ngettext(
                "Wrong PIN. Try again in {n} second.", "Wrong PIN. Try again in {n} seconds.", seconds
            ).format(n=seconds)
        else:
            text = ngettext(
                "Wrong PIN. Try again in {n} minute.", "Wrong PIN. Try again in {n} minutes.", minutes
            ).format(n=minutes)
        super().__init__(text)


class StaffRefused(ServiceError):
    """A change to the staff list refused (a PIN or a name not taken, the last Admin...)."""


class HasSettings(Protocol):
    """Whoever keeps this computer's counter.json (desk/counter.py's controller): the idle
    minutes are written through it, so its own saves keep them."""

    settings: CounterSettings


class SignIn:
    """``SignIn(staff, book, counter, paths)``: the desk's person, over the shop's staff book."""

    def __init__(self, staff: Staff, book: StaffBook, counter: HasSettings, paths: Paths):
        self.staff = staff
        self.book = book
        self._counter = counter
        self._paths = paths

    async def load(self) -> None:
        """Whether the shop has staff (read when the desk opens)."""
        self.staff.set_up = bool(await self.book.people())

    async def people(self) -> list[Person]:
        """Everyone, by name: the sign-in screen's list (no hash leaves the store)."""
        found = await self.book.people()
        self.staff.set_up = bool(found)
        return found

    # -- signing in ------------------------------------------------------------------------

    async def sign_in(self, person_id: str, pin: str) -> Person:
        """The person signed in, or ``WrongPin`` (nothing changes)."""
        try:
            answer = await self.book.check_pin(person_id, pin)
        except (PinRefused, NoSuchPerson) as refused:
            raise StaffRefused(str(refused)) from None
        if not answer.ok or answer.person is None:
            raise WrongPin(answer.wait_s, waiting=answer.waiting)
        self.staff.signed_in(answer.person)
        return answer.person

    def lock(self) -> None:
        """Nobody signed in until a PIN is given; the counter's shift stays open."""
        self.staff.lock()

    async def switch(self, person_id: str, pin: str) -> Person:
        """Another person at this desk: locked first, so a wrong PIN leaves it locked."""
        self.lock()
        return await self.sign_in(person_id, pin)

    # -- the idle lock ---------------------------------------------------------------------

    @property
    def idle_lock_minutes(self) -> int:
        """Minutes without a key or a click before the window locks (0: never)."""
        return self._counter.settings.idle_lock_minutes

    async def set_idle_lock_minutes(self, minutes: int) -> None:
        self.staff.require(Capability.STAFF)
        if not 0 <= minutes <= IDLE_LOCK_MOST:
            raise StaffRefused(_("Lock after 1 to {most} idle minutes, or 0 for never.").format(most=IDLE_LOCK_MOST))
        self._counter.settings = replace(self._counter.settings, idle_lock_minutes=minutes)
        await self._counter.settings.save(self._paths)

    # -- the staff list --------------------------------------------------------------------

    async def add_person(self, name: str, role: Role, pin: str) -> Person:
        """Someone new on the staff list. The first one is an Admin and is signed in."""
        if not self.staff.set_up:
            await self.people()  # another desk of the shop may have set staff up meanwhile
        first = not self.staff.set_up
        if first and role is not Role.ADMIN:
            raise StaffRefused(_("The first person set up must be an Admin."))
        if not first:
            self.staff.require(Capability.STAFF)
        person = await self._asked(self.book.add(name, role, pin))
        if first:
            self.staff.signed_in(person)
        return person

    async def change_person(
        self, person_id: str, *, name: str | None = None, role: Role | None = None, pin: str | None = None
    ) -> Person:
        self.staff.require(Capability.STAFF)
        person = await self._asked(self.book.change(person_id, name=name, role=role, pin=pin))
        if self.staff.person is not None and self.staff.person.id == person.id:
            self.staff.signed_in(person)  # their new name or role, at once
        return person

    async def remove_person(self, person_id: str) -> None:
        self.staff.require(Capability.STAFF)
        if self.staff.person is not None and self.staff.person.id == person_id:
            raise StaffRefused(_("You cannot remove yourself: another Admin can."))
        await self._asked(self.book.remove(person_id))

    async def _asked(self, work: Awaitable[T]) -> T:
        try:
            return await work
        except (PinRefused, LastAdmin, NameTaken, NoSuchPerson) as refused:
            raise StaffRefused(str(refused)) from None


__all__ = ["SignIn", "StaffRefused", "WrongPin", "staff_book"]
