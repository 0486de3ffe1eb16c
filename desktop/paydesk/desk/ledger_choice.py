"""Which ledger a desk uses, and the shop administrator's set-up of a shared one.

The choice (``config/shared_ledger.py``): ``paydesk --ledger URL``, else the address saved
in the settings file (Settings → Shared ledger…), else this computer's own SQLite ledger.
The address is saved without its password; the password is kept in the keyring (a password
typed in the address is moved there), and the redactor learns it (the key store tells it).
A changed choice takes effect at the next start.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from ..config.paths import Paths
from ..config.profiles import SettingsFile
from ..config.secrets import KeyStore
from ..config.shared_ledger import Choice, choose, password_entry, split_password, url_problem
from ..i18n import _

if TYPE_CHECKING:  # (light to import: the start reads its arguments before the window's frame)
    from .session import Session


class LedgerSetupError(ValueError):
    """The address cannot be used (the message says why, for the field it was typed in)."""


def _checked(url: str) -> str:
    problem = url_problem(url)
    if problem:
        raise LedgerSetupError(problem)
    return url


async def choose_ledger(paths: Paths, keys: KeyStore, given: str | None = None) -> tuple[Choice, str | None]:
    """The ledger this run uses and its password (None: none kept, or the desk's own ledger).
    ``given`` is ``--ledger``'s address; a password typed in it goes to the keyring. A shared
    ledger's password is read now, so the keyring is looked for before the window shows."""
    saved = None
    if not given:
        saved = (await asyncio.to_thread(SettingsFile(paths.profiles).load)).ledger_url
    choice = choose(given, saved)
    if choice.url is None:
        return choice, None
    _checked(choice.url)
    entry = password_entry(choice.url)
    typed = split_password(given)[1] if given else None
    if typed:
        await keys.set_secret(entry, typed)
        return choice, typed
    return choice, await keys.get_secret(entry)


def asks_password(error: Exception) -> bool:
    """Whether the shared ledger refused to open for want of the right password (the start
    dialog then asks for it): ``ledger/postgres/engine.py``'s ``LedgerRefused``."""
    return bool(getattr(error, "asks_password", False))


async def keep_password(keys: KeyStore, url: str, password: str) -> bool:
    """Keep ``password`` in the keyring for ``url``'s role (the entry named by the address
    without a password): the next start connects without asking. True when the system
    keyring holds it, False when it is kept for this session only."""
    return await keys.set_secret(password_entry(url), password)


async def saved_password(session: Session, url: str) -> str | None:
    """The password kept for ``url`` (the dialog shows it masked), None when there is none."""
    if url_problem(url):
        return None
    return await session.keys.get_secret(password_entry(url))


async def save_shared_ledger(session: Session, url: str, password: str) -> bool:
    """Keep ``url`` (without its password) in the settings file and the password in the
    keyring, for the next start. True when the keyring holds it (or none was given), False
    when it is kept for this session only. LedgerSetupError when the address is not usable.
    An Admin's, as every change of the shared ledger's settings (NotAllowed)."""
    from .staff import Capability

    session.staff.require(Capability.SHARED_LEDGER)
    clean, typed = split_password(url)
    _checked(clean)
    persisted = await session.keys.set_secret(password_entry(clean), typed or password)
    if not (typed or password.strip()):
        persisted = True  # nothing to keep (a role let in by its certificate, or peer)
    await session.save_ledger_url(clean)
    return persisted


async def use_own_ledger(session: Session) -> None:
    """Back to this computer's own ledger at the next start; the saved password is removed
    (NotAllowed unless the person may change the shared ledger's settings)."""
    from .staff import Capability

    session.staff.require(Capability.SHARED_LEDGER)
    saved = session.settings.ledger_url
    if saved and not url_problem(saved):
        await session.keys.set_secret(password_entry(saved), "")
    await session.save_ledger_url(None)


def ledger_arguments(args: argparse.Namespace) -> str | None:
    """What is wrong with ``--ledger`` (a password in it, no TLS to another computer), and
    ``--ledger-password-stdin``'s password read (``args.ledger_password``; None without it)."""
    from ..config.shared_ledger import IN_ARGUMENTS, read_password
    from ..logs import REDACTOR

    args.ledger_password = None
    if args.ledger:
        typed = split_password(args.ledger)[1]
        if typed:
            REDACTOR.add(typed)  # before anything is logged; and never kept
            return f"--ledger: {_(IN_ARGUMENTS)}"
        problem = url_problem(args.ledger)
        if problem:
            return f"--ledger: {problem}"
    if args.ledger_password_stdin:
        password = None
        if sys.stdin is not None and sys.stdin.isatty():  # typed: not echoed
            import getpass

            password = getpass.getpass(_("Password for the shared ledger: ")).strip() or None
        elif sys.stdin is not None:  # none at all under a windowed Windows program
            password = read_password(sys.stdin)
        if password is None:
            return _("--ledger-password-stdin: no password on standard input")
        REDACTOR.add(password)
        args.ledger_password = password
    return None
