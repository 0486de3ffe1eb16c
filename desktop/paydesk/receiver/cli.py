"""paydesk-receiver: the notification receiver as a command (a desk without windows).

    paydesk-receiver --ledger (postgresql://USER@HOST/DB?sslmode=require | PATH/ledger.sqlite3)
                     [--host 127.0.0.1] [--port 8470] [--data-dir DIR] [--keys-file FILE]

Its exit status tells a service manager what to do: 0 stopped when asked; 1 a failure that
may pass (the port taken, the ledger out of reach for now, the server stopped of itself):
started again; ``CONFIGURATION`` (78, EX_CONFIG) what it was given cannot work (an option,
the ledger's address, the key file, its folder, what the ledger's server refuses): said in
one line, and not started again until the administrator has changed it (the unit's
``RestartPreventExitStatus=``).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import os
import signal
import socket
import sys
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from .. import __version__
from ..ledger.inbox import REFUSED_KEPT
from .keysource import KEYS, KEYS_FILE, LEDGER_PASSWORD, KeySourceError, ReadOnlyKeys, choose

if TYPE_CHECKING:
    from ..desk.build import Desk

log = logging.getLogger("paydesk.receiver")
DEFAULT_PORT = 8470
FAILURE = 1  # may pass by itself: systemd's Restart=on-failure starts it again
CONFIGURATION = 78  # EX_CONFIG (sysexits.h; "78/CONFIG" in systemctl status): not again
NAME = "paydesk-receiver"
KEY_HOLDER = "paydesk-keyholder"  # the same command: on a shared ledger it is the shop's key holder
KEEP_REFUSED = "PAYDESK_RECEIVER_KEEP_REFUSED"  # --keep-refused's default, in days

KEYS_HELP = f"""\
keys (the first that is given is used):
  --keys-file FILE, or ${KEYS_FILE}: a JSON file readable by its owner alone (chmod 600;
      a file its group or others may read is refused), shaped:
        {{"profiles": {{"<profile id>": {{"test": "<test secret key>",
                                      "live": "<live secret key>",
                                      "webhook": "<webhook secret>"}}}},
         "ledger_password": "<the shared ledger's password>"}}
      every part optional; a profile's id is the merchant's id on a shared ledger, or the
      "id" of the profile in the desk's profiles.json: --list-profiles lists them.
  ${KEYS}: the same JSON, and/or ${LEDGER_PASSWORD}: the shared ledger's password.
  otherwise the system keyring, as PayDesk keeps the keys for this user.

It answers POST / and POST /notifications (application/json, at most 64 KB, a Signature
header: the hex HMAC-SHA256 of the raw body keyed with a profile's secret key of either
mode or its webhook secret). See docs/RECEIVER.md.

exit status:
  0: stopped by SIGTERM or Ctrl+C, after closing cleanly.
  {FAILURE}: a failure that may pass: it cannot listen (the port taken), the ledger cannot be
     reached for now, or its server stopped of itself (systemd starts it again).
  {CONFIGURATION}: a configuration error: an option, the ledger's address (a ledger on another
     computer needs ?sslmode=require), the keys, its folder, or what the ledger's server
     refuses (the password, the database): said in one line; the unit's
     RestartPreventExitStatus={CONFIGURATION} keeps systemd from starting it again until it is
     fixed."""


class ConfigurationError(Exception):
    """What the receiver was given cannot work: one line for the administrator."""


class _Unavailable(Exception):
    """The ledger cannot be reached now: it may pass (one line, then started again)."""


class _Parser(argparse.ArgumentParser):
    """argparse, its mistakes said in one line and ended with ``CONFIGURATION``."""

    def error(self, message: str) -> NoReturn:
        print(f"{NAME}: {message} ({NAME} --help lists the options)", file=sys.stderr)
        raise SystemExit(CONFIGURATION)


def _days(text: str) -> float:
    try:
        days = float(text)
    except ValueError:
        days = -1.0
    if not 0 < days <= 3650:
        raise argparse.ArgumentTypeError(f"expected a number of days above 0, not {text!r}")
    return days


def _port(text: str) -> int:
    if not text.strip().isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, not {text!r}")
    return int(text)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = _Parser(
        prog=KEY_HOLDER if Path(sys.argv[0]).name.startswith(KEY_HOLDER) else NAME,
        description="Receive the payment service's signed notifications into a PayDesk ledger: "
        "verify, keep, answer, then look the payment up again at the service. On a shop's shared "
        "ledger it is also the shop's key holder: it makes the sales of the counters that hold no "
        "secret key (docs/RECEIVER.md).",
        epilog=KEYS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--ledger",
        metavar="URL|PATH",
        help="the ledger to write into: a shared ledger's postgresql://USER@HOST/DB "
        "(its password from the keys, never in the URL), or the path of a "
        "desk's ledger.sqlite3 (its profiles are read beside it)",
    )
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1)")
    p.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=f"the port to listen on (default: {DEFAULT_PORT}; 0: any free port)",
    )
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        help="the receiver's own folder (its log; its settings on a shared ledger); "
        "default: the desk's data folder ($PAYDESK_HOME or the platform's), or "
        "the ledger file's folder",
    )
    p.add_argument(
        "--keys-file", metavar="FILE", help=f"the keys, from this JSON file (default: ${KEYS_FILE}; see below)"
    )
    kept = REFUSED_KEPT.days
    p.add_argument(
        "--keep-refused",
        metavar="DAYS",
        type=_days,
        default=os.environ.get(KEEP_REFUSED) or kept,
        help="how long the traces of refused requests (signatures no key "
        f"verifies) are kept, in days (default: ${KEEP_REFUSED}, or {kept})",
    )
    p.add_argument(
        "--list-profiles",
        action="store_true",
        help="list the ledger's profiles (the ids the key file names) and which of their keys were found, then exit",
    )
    p.add_argument(
        "--counter-role-sql",
        action="store_true",
        help="print the SQL script that gives a counter a database role of its own on the shop's "
        "shared ledger (docs/SHARED_LEDGER.md), then exit",
    )
    p.add_argument("--version", action="version", version=f"paydesk-receiver {__version__}")
    args = p.parse_args(argv)
    if args.ledger is None and not args.counter_role_sql:
        p.error("the following arguments are required: --ledger")
    return args


def _is_url(ledger: str) -> bool:
    return "://" in ledger


def _said(message: str, status: int) -> int:
    print(f"{NAME}: {message}", file=sys.stderr, flush=True)
    return status


async def run(args: argparse.Namespace) -> int:
    try:
        return await _run(args)
    except ConfigurationError as error:
        return _said(str(error), CONFIGURATION)
    except _Unavailable as error:
        return _said(str(error), FAILURE)


def _ledger_given(text: str) -> tuple[str | None, Path | None]:
    """``--ledger`` as (a shared ledger's URL, or a desk's SQLite file); ConfigurationError
    when it cannot be one."""
    from ..config.shared_ledger import url_problem

    ledger = text.strip()
    if not ledger:
        raise ConfigurationError(
            "no ledger given: --ledger URL|PATH (the systemd unit takes "
            "it from PAYDESK_LEDGER in /etc/paydesk/receiver.env)"
        )
    if _is_url(ledger):
        problem = url_problem(ledger)
        if problem:
            raise ConfigurationError(f"--ledger: {problem}")
        return ledger, None
    path = Path(ledger).expanduser().resolve()
    if not path.is_file():
        raise ConfigurationError(f"no ledger at {path} (give a desk's ledger.sqlite3 or a postgresql:// URL)")
    return None, path


async def _opened(args: argparse.Namespace) -> Desk:
    """The desk the receiver writes into, opened; ConfigurationError or _Unavailable (one
    line each) when it cannot be."""
    from ..desk.build import open_desk
    from ..desk.ledger_choice import LedgerSetupError
    from ..ledger import LedgerError

    try:
        backend = choose(args.keys_file)
    except KeySourceError as error:
        raise ConfigurationError(str(error)) from None
    url, ledger_file = _ledger_given(args.ledger)
    data_dir = args.data_dir or (ledger_file.parent if ledger_file is not None else None)
    priority = 0
    if url is not None:  # on a shop's shared ledger it takes the poller lease from a desk
        from ..ledger.postgres.lease import RECEIVER

        priority = RECEIVER
    try:
        return await open_desk(
            data_dir, ledger_url=url, ledger_file=ledger_file, keyring=backend, lease_priority=priority
        )
    except LedgerSetupError as error:
        raise ConfigurationError(f"--ledger: {error}") from None
    except OSError as error:  # its folders (the data folder, the log), the ledger's file
        where = f"{error.filename}: " if error.filename else ""
        raise ConfigurationError(f"cannot make or write its files: {where}{error.strerror or error}") from None
    except LedgerError as error:
        if url is None:
            raise ConfigurationError(f"{error} ({ledger_file})") from None
        raise await _refused_or_unreachable(url, backend, error) from None


async def _refused_or_unreachable(url: str, backend: ReadOnlyKeys | None, error: Exception) -> Exception:
    """Why the shared ledger did not open, found by connecting once more: refused (the
    password, the database, the server's rules: a configuration error), or not reached."""
    from ..config.secrets import KeyStore
    from ..config.shared_ledger import password_entry
    from ..desk.start import open_keys
    from ..ledger.postgres.probe import probe

    keys = KeyStore(backend) if backend is not None else await open_keys()
    password = await keys.get_secret(password_entry(url))
    found = await asyncio.to_thread(probe, url, password)
    if found.works:  # it answers now: started again, it opens
        return _Unavailable(f"the shared ledger could not be opened ({error}); it answers now")
    if found.reached:
        return ConfigurationError(f"the shared ledger refused: {found.message}")
    return _Unavailable(f"the shared ledger cannot be reached: {found.message}")


async def _run(args: argparse.Namespace) -> int:
    from .serve import Receiver

    desk = await _opened(args)
    if args.list_profiles:
        try:
            await _list_profiles(desk)
        finally:
            await desk.close()
        return 0
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(signum, stop.set)
        except (NotImplementedError, RuntimeError):  # Windows: Ctrl+C ends asyncio.run
            pass
    try:
        receiver = Receiver(desk, args.host, args.port, keep_refused=timedelta(days=args.keep_refused), key_holder=True)
        try:
            await receiver.start()
        except socket.gaierror as error:  # no such address: a mistake in --host
            return _said(f"--host {args.host}: {error.strerror or error}", CONFIGURATION)
        except OSError as error:
            status = CONFIGURATION if error.errno == errno.EACCES else FAILURE
            return _said(f"cannot listen at {args.host} port {args.port}: {error.strerror or error}", status)
        desk.receiver = receiver
        desk.start_background()
        profiles = len(desk.session.settings.profiles)
        print(
            f"paydesk-receiver: listening at {receiver.url} for {profiles} profile(s); keys "
            f"from {desk.keys.backend_name}",
            flush=True,
        )
        waiting = asyncio.ensure_future(stop.wait())
        serving = asyncio.ensure_future(receiver.serving())
        await asyncio.wait({waiting, serving}, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        serving.cancel()
        if not stop.is_set():  # the server stopped of itself: a failure (restarted by systemd)
            failure = serving.result() if serving.done() and not serving.cancelled() else None
            log.error("the receiver's server stopped: %s", failure or "it ended of itself", exc_info=failure)
            return _said(f"the server stopped: {failure or 'it ended of itself'}", FAILURE)
        log.info("paydesk-receiver stopping")
    finally:
        # the handlers stay while it closes: a signal handed on again (runuser, Ctrl+C to
        # the terminal's whole group) must not end the close half-way
        try:
            await desk.close()
        finally:
            for signum in (signal.SIGTERM, signal.SIGINT):
                try:
                    loop.remove_signal_handler(signum)
                except (NotImplementedError, RuntimeError):
                    pass
                else:  # closed: what is left (the loop's threads ending) is not cut short either
                    signal.signal(signum, signal.SIG_IGN)
    return 0


async def _list_profiles(desk: Desk) -> None:
    """One line per profile: its id, which keys were found (never the keys), its name."""
    from .signature import WEBHOOK, WEBHOOK_MODE

    keys = desk.keys
    for profile in desk.session.settings.profiles:
        found = [
            name
            for name, mode, kind in (
                ("test", "test", "secret"),
                ("live", "live", "secret"),
                ("webhook", WEBHOOK_MODE, WEBHOOK),
            )
            if await keys.get(profile.id, mode, kind)
        ]
        print(f"{profile.id}\t{','.join(found) or 'no keys'}\t{profile.name}\t{profile.base_url}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.counter_role_sql:
        from ..ledger.postgres.roles import counter_role_sql

        print(counter_role_sql(), end="")
        return 0
    try:
        return asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
