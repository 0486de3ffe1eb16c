"""This desk's name (Qt-free): what the shop's status bars say ("Payments checked by …") and
what its counter's shifts are filed under, unless the counter was given a name of its own.

``DeskNaming.settle()`` (at open) finds the name: on a shared ledger it is claimed in the
ledger's ``desks`` table (``ledger/postgres/desks.py``: the person's name for the desk, else
the computer's name, with the installation's id when another desk of the shop goes by it
already); on this computer's own ledger it is the person's name, else the computer's.
``rename(name)`` (Settings → Shared ledger…) names the desk at once and keeps the name in
the installation's settings file; an empty name gives the desk its default name back.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from ..config.desk_name import computer_name, name_problem
from ..i18n import N_, _
from ..ledger import LedgerError
from .session import Session
from .staff import Capability

log = logging.getLogger("paydesk.desk_name")
# (installation id, computer's name, the person's name or None) -> the name claimed
Claim = Callable[[str, str, str | None], Awaitable[str]]
RENAMED = N_("This desk is called {name}")  # translated where it is said
SHIFT_HAS_SALES = N_(
    "The counter's open shift has sales and goes by the desk's name: close the shift first, then rename the desk"
)


class DeskNameRefused(ValueError):
    """The desk cannot take this name (the message says why, for the field it was typed in)."""


class Counter(Protocol):
    """What naming needs of the desk's counter (``counter.CounterController``)."""

    @property
    def follows_desk(self) -> bool: ...

    async def has_open_sales(self) -> bool: ...


class DeskNaming:
    """``claim``: the shared ledger's (``live.Live.claim_name``), None on the desk's own."""

    def __init__(self, session: Session, counter: Counter, claim: Claim | None = None):
        self.session, self.counter, self.claim = session, counter, claim

    async def _named(self, wanted: str | None) -> str:
        computer = computer_name()
        if self.claim is None:
            return wanted or computer
        return await self.claim(self.session.installation_id, computer, wanted)

    async def settle(self) -> str:
        """The desk's name from now on (a shared ledger that refuses the claim: its default
        name, unclaimed, for this run)."""
        wanted = self.session.settings.desk_name
        try:
            name = await self._named(wanted)
        except LedgerError as error:
            log.warning("this desk's name could not be claimed on the shared ledger: %s", error)
            name = wanted or computer_name()
        self.session.desk_name = name
        return name

    async def rename(self, typed: str) -> str:
        """Name the desk ``typed`` ("": its default name) now and at every start.
        DeskNameRefused when the name cannot be had; LedgerError when the shared ledger
        cannot be written (nothing changed then). A shop's setting (NotAllowed)."""
        self.session.staff.require(Capability.SHARED_LEDGER)
        problem = name_problem(typed)
        if problem:
            raise DeskNameRefused(problem)
        wanted = typed.strip() or None
        if wanted == self.session.settings.desk_name:
            return self.session.desk_name
        self.session.refuse_while_down()  # the shop's desks table: nothing asked nor kept
        if self.counter.follows_desk and await self.counter.has_open_sales():
            raise DeskNameRefused(_(SHIFT_HAS_SALES))
        name = await self._named(wanted)  # DeskNameRefused: another desk has it
        await self.session.save_desk_name(wanted)
        self.session.desk_name = name
        self.session.hub.session_changed.emit()
        log.info("this desk is called %s now", name)
        return name
