"""paydesk-receiver: the notification receiver as a command (a desk without windows).

    paydesk-receiver --ledger (postgresql://USER@HOST/DB | PATH/ledger.sqlite3)
                     [--host 127.0.0.1] [--port 8470] [--data-dir DIR] [--keys-file FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from .keysource import KEYS, KEYS_FILE, LEDGER_PASSWORD, KeySourceError, choose

if TYPE_CHECKING:
    from ..desk.build import Desk

log = logging.getLogger("paydesk.receiver")
DEFAULT_PORT = 8470

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
mode or its webhook secret). See docs/RECEIVER.md."""


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="paydesk-receiver",
        description="Receive the payment service's signed notifications into a PayDesk ledger: "
                    "verify, keep, answer, then look the payment up again at the service.",
        epilog=KEYS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ledger", required=True, metavar="URL|PATH",
                   help="the ledger to write into: a shared ledger's postgresql://USER@HOST/DB "
                        "(its password from the keys, never in the URL), or the path of a "
                        "desk's ledger.sqlite3 (its profiles are read beside it)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"the port to listen on (default: {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--data-dir", metavar="DIR",
                   help="the receiver's own folder (its log; its settings on a shared ledger); "
                        "default: the desk's data folder ($PAYDESK_HOME or the platform's), or "
                        "the ledger file's folder")
    p.add_argument("--keys-file", metavar="FILE",
                   help=f"the keys, from this JSON file (default: ${KEYS_FILE}; see below)")
    p.add_argument("--list-profiles", action="store_true",
                   help="list the ledger's profiles (the ids the key file names) and which of "
                        "their keys were found, then exit")
    p.add_argument("--version", action="version", version=f"paydesk-receiver {__version__}")
    return p.parse_args(argv)


def _is_url(ledger: str) -> bool:
    return ledger.startswith(("postgresql://", "postgres://"))


async def run(args: argparse.Namespace) -> int:
    from ..desk.build import open_desk
    from .serve import Receiver

    try:
        backend = choose(args.keys_file)
    except KeySourceError as error:
        print(f"paydesk-receiver: {error}", file=sys.stderr)
        return 2
    ledger_file = None if _is_url(args.ledger) else Path(args.ledger).expanduser().resolve()
    if ledger_file is not None and not ledger_file.is_file():
        print(f"paydesk-receiver: no ledger at {ledger_file} (give a desk's ledger.sqlite3 "
              "or a postgresql:// URL)", file=sys.stderr)
        return 2
    data_dir = args.data_dir or (ledger_file.parent if ledger_file is not None else None)
    priority = 0
    if ledger_file is None:  # on a shop's shared ledger it takes the poller lease from a desk
        from ..ledger.postgres.lease import RECEIVER

        priority = RECEIVER
    desk = await open_desk(data_dir, ledger_url=args.ledger if ledger_file is None else None,
                           ledger_file=ledger_file, keyring=backend, lease_priority=priority)
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
        receiver = Receiver(desk, args.host, args.port)
        try:
            await receiver.start()
        except OSError as error:
            print(f"paydesk-receiver: cannot listen at {args.host} port {args.port}: "
                  f"{error.strerror or error}", file=sys.stderr)
            return 1
        desk.receiver = receiver
        desk.start_background()
        profiles = len(desk.session.settings.profiles)
        print(f"paydesk-receiver: listening at {receiver.url} for {profiles} profile(s); keys "
              f"from {desk.keys.backend_name}", flush=True)
        waiting = asyncio.ensure_future(stop.wait())
        serving = asyncio.ensure_future(receiver.serving())
        await asyncio.wait({waiting, serving}, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        serving.cancel()
        if not stop.is_set():  # the server stopped of itself: a failure (restarted by systemd)
            failure = serving.result() if serving.done() and not serving.cancelled() else None
            log.error("the receiver's server stopped: %s", failure or "it ended of itself",
                      exc_info=failure)
            print(f"paydesk-receiver: the server stopped: {failure or 'it ended of itself'}",
                  file=sys.stderr, flush=True)
            return 1
        log.info("paydesk-receiver stopping")
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.remove_signal_handler(signum)
            except (NotImplementedError, RuntimeError):
                pass
        await desk.close()
    return 0


async def _list_profiles(desk: Desk) -> None:
    """One line per profile: its id, which keys were found (never the keys), its name."""
    from .signature import WEBHOOK, WEBHOOK_MODE

    keys = desk.keys
    for profile in desk.session.settings.profiles:
        found = [name for name, mode, kind in (("test", "test", "secret"), ("live", "live", "secret"),
                                               ("webhook", WEBHOOK_MODE, WEBHOOK))
                 if await keys.get(profile.id, mode, kind)]
        print(f"{profile.id}\t{','.join(found) or 'no keys'}\t{profile.name}\t{profile.base_url}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130
    except OSError as error:  # the port taken, the folder not writable
        print(f"paydesk-receiver: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
