"""Bringing a desk's own ledger (``ledger.sqlite3``) into the shop's shared ledger
(docs/SHARED_LEDGER.md, "Bringing each desk's existing ledger in").

- ``import_desk_ledger(engine, paths, keys, path=None, dry_run=False)`` is the one call, of
  the command line and of Settings → Shared ledger: the desk's profiles (its settings file)
  are mapped to their merchants (``merchant_map``: the service's address and the public key
  in this desk's keyring), and ``ledger/postgres/importer.py`` does the rest, in one
  transaction; the desk's keys are then carried over to the merchants' ids
  (``key_carry.py``). It returns the report (``ImportReport.lines()`` says it).
- ``import_command(args)`` is ``paydesk --ledger URL --import-ledger [PATH] [--dry-run]``: the
  shared ledger chosen as for a window (``--ledger``, else the saved one), its password from
  ``--ledger-password-stdin``, else the keyring, else asked on the terminal (one given or
  asked is kept in the keyring once it opened the ledger), the counts printed; no window.
"""

from __future__ import annotations

import asyncio
import getpass
import sys
from pathlib import Path
from typing import Any, TextIO

from .. import logs
from ..config.paths import Paths
from ..config.profiles import SettingsFile
from ..config.secrets import KeyStore
from ..i18n import _, set_language, system_language
from ..ledger.errors import LedgerError
from ..ledger.postgres.engine import PgEngine
from ..ledger.postgres.importer import ImportReport, import_ledger
from .key_carry import carry_keys, merchant_map

LEDGER_FILE = "ledger.sqlite3"


async def import_desk_ledger(
    engine: PgEngine, paths: Paths, keys: KeyStore, *, path: Path | None = None, dry_run: bool = False
) -> ImportReport:
    """Import this desk's ledger file (or the copy of it at ``path``) into ``engine``'s shared
    ledger; with ``dry_run``, only count. Raises LedgerError (ImportRefused: the file cannot
    be imported; LedgerUnreachable...) with nothing written."""
    settings = await asyncio.to_thread(SettingsFile(paths.profiles).load)
    merchants = await merchant_map(settings.profiles, keys)
    report = await import_ledger(
        engine,
        path or paths.data / LEDGER_FILE,
        merchants,
        dry_run=dry_run,
        installation=settings.installation_id or engine.desk,
    )
    if not dry_run:  # the records are the merchants' now: so are this desk's keys
        await carry_keys(keys, merchants)
    return report


async def _password(entry_password: str | None, where: str) -> str | None:
    """The keyring's password, else one typed on the terminal (none when there is none)."""
    if entry_password or not sys.stdin.isatty():
        return entry_password
    typed = await asyncio.to_thread(getpass.getpass, _("Password for the shared ledger {where}: ").format(where=where))
    if typed:
        logs.REDACTOR.add(typed)
    return typed or None


async def import_command(args: Any, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """``paydesk --import-ledger``: the exit code (0 imported or counted, 1 refused, 2 no
    shared ledger named). ``args``: app.parse_args's."""
    from ..config.shared_ledger import parse
    from .ledger_choice import choose_ledger, keep_password
    from .start import open_folders, open_keys

    paths, _log = open_folders(args.data_dir, args.sandbox_dir)
    settings = await asyncio.to_thread(SettingsFile(paths.profiles).load)
    # the staff's language, as the window chooses it: --language, Settings → Language, the system's
    set_language(getattr(args, "language", None) or settings.language or system_language())
    keys = await open_keys(not args.no_keyring, on_secret=logs.REDACTOR.add)
    choice, kept = await choose_ledger(paths, keys, args.ledger)
    if choice.url is None:
        print(
            _(
                "paydesk: --import-ledger: name the shop's shared ledger with --ledger URL "
                "(or save it in Settings → Shared ledger…)"
            ),
            file=err,
        )
        return 2
    if not settings.installation_id:  # drawn at the desk's first start
        print(
            _(
                "paydesk: --import-ledger: PayDesk was never started with {folder}: "
                "there is no ledger of this desk to import"
            ).format(folder=paths.data),
            file=err,
        )
        return 1
    given = getattr(args, "ledger_password", None)  # --ledger-password-stdin's
    password = given or await _password(kept, parse(choice.url).where)
    engine = PgEngine(choice.url, password=password, desk=settings.installation_id)
    path = Path(args.import_ledger) if args.import_ledger else None
    try:
        await engine.opened()
        if password and password != kept:  # given or typed, and it opened the ledger
            await keep_password(keys, choice.url, password)
        report = await import_desk_ledger(engine, paths, keys, path=path, dry_run=args.dry_run)
    except LedgerError as error:
        print(_("paydesk: --import-ledger: {why}").format(why=error), file=err)
        return 1
    finally:
        await engine.close()
    print("\n".join(report.lines()), file=out)
    return 0


__all__ = ["LEDGER_FILE", "import_command", "import_desk_ledger", "merchant_map"]
