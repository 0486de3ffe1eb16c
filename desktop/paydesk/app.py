"""``paydesk``: arguments, the QApplication, qasync's loop, start-up and shutdown."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from . import __version__
from .i18n import LANGUAGES, set_language, system_language

if TYPE_CHECKING:  # imported where they are used: the Qt-free part first, Qt after it
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication, QWidget

    from .config.paths import Paths
    from .config.secrets import KeyStore
    from .desk.build import Desk
    from .desk.session import Session
    from .ui.main_window import MainWindow

log = logging.getLogger("paydesk.app")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="paydesk", description="PayDesk: payment links, QR codes, transactions and virtual cards."
    )
    p.add_argument(
        "--sandbox", action="store_true", help="start the embedded sandbox and open its profile in test mode"
    )
    p.add_argument("--profile", metavar="NAME", help="open this profile (its name or id)")
    p.add_argument("--mode", choices=["test", "live"], help="open in this mode")
    p.add_argument(
        "--data-dir", metavar="DIR", help="PayDesk's data folder (default: the platform's, or $PAYDESK_HOME)"
    )
    p.add_argument(
        "--sandbox-dir",
        metavar="DIR",
        help="the embedded sandbox's data folder (default: $PAYDESK_SANDBOX_HOME "
        "or the platform's paydesk-sandbox folder)",
    )
    p.add_argument(
        "--ledger",
        metavar="URL",
        help="use the shop's shared ledger at this PostgreSQL URL for this run, e.g. "
        "postgresql://paydesk@ledger.shop.lan/paydesk?sslmode=require (default: "
        "the one saved in Settings → Shared ledger…, else this computer's own); "
        "never with its password: see --ledger-password-stdin",
    )
    p.add_argument(
        "--ledger-password-stdin",
        action="store_true",
        help="read the shared ledger's password from the first line of standard "
        "input (never from the command line, where every user of the computer "
        "could read it) and keep it in the keyring once it opened the ledger",
    )
    p.add_argument(
        "--no-keyring", action="store_true", help="keep keys in memory for this session only, even if a keyring exists"
    )
    p.add_argument(
        "--import-ledger",
        nargs="?",
        const="",
        metavar="PATH",
        help="import this desk's own ledger (or the copy of it at PATH) into the "
        "shared ledger, print what was added, already there or clashing, and "
        "exit without a window (docs/SHARED_LEDGER.md)",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="with --import-ledger: count what the import would do, write nothing"
    )
    p.add_argument(
        "--language",
        choices=sorted(LANGUAGES),
        help="the staff's language for this run (default: the one chosen in Settings → "
        "Language, else the system's); qps is the pseudo-language that shows untranslated "
        "and clipped text",
    )
    p.add_argument("--version", action="version", version=f"PayDesk {__version__}")
    args = p.parse_args(argv)
    if args.dry_run and args.import_ledger is None:
        p.error("--dry-run goes with --import-ledger")
    return args


NO_DISPLAY = "PayDesk needs a desktop session; no display was found"


def display_problem(env: Mapping[str, str] = os.environ, platform: str = sys.platform) -> str | None:
    """Why Qt could not open a window here (None: it can). Checked before Qt starts, which
    would otherwise abort with a message about its platform plugin."""
    if not platform.startswith("linux"):
        return None
    qpa = env.get("QT_QPA_PLATFORM", "")
    if qpa and not qpa.startswith(("xcb", "wayland")):
        return None  # offscreen, vnc, eglfs...: no desktop session needed
    if env.get("WAYLAND_DISPLAY") and not qpa.startswith("xcb"):
        return None
    display = env.get("DISPLAY", "")
    if not display:
        return f"{NO_DISPLAY} (neither DISPLAY nor WAYLAND_DISPLAY is set)."
    host, _, number = display.rpartition(":")
    number = number.split(".")[0]
    if host in ("", "unix") and number.isdigit():
        import socket

        try:
            with socket.socket(socket.AF_UNIX) as probe:
                probe.settimeout(2)
                probe.connect(f"/tmp/.X11-unix/X{number}")
        except OSError:
            return f"{NO_DISPLAY} (nothing answers on display {display})."
    return None


def _report_first_paint(window: QWidget) -> None:
    """For the start-up benchmark: print once the window has painted."""
    from PySide6.QtCore import QEvent, QObject

    class Watch(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                print("first-paint", flush=True)
                obj.removeEventFilter(self)
            return False

    window.installEventFilter(Watch(window))  # (the window its parent: kept while it lives)


FIRST_PAINT_WAIT = 0.5  # s: a window not painted by then (minimised, say) waits no longer


async def painted(window: QWidget, timeout: float = FIRST_PAINT_WAIT) -> None:  # noqa: ASYNC109 (returns after it)
    """Until ``window`` has painted once (or ``timeout`` has passed)."""
    from PySide6.QtCore import QEvent, QObject

    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    class Watch(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and not done.done():
                done.set_result(None)
            return False

    watch = Watch(window)
    window.installEventFilter(watch)
    try:
        await asyncio.wait_for(asyncio.shield(done), timeout)
    except TimeoutError:
        pass
    finally:
        window.removeEventFilter(watch)
        watch.deleteLater()


NO_SHARED_LEDGER = (
    "no shared ledger is named: give its address with --ledger URL (or save it in Settings → Shared ledger…)"
)


async def _as_asked(session: Session, change: Awaitable[None]) -> None:
    """A profile or mode asked for on the command line: with staff set up, nobody is signed
    in yet and the desk refuses it (NotAllowed), said in the status bar, not raised."""
    from .desk.staff import NotAllowed
    from .i18n import _

    try:
        await change
    except NotAllowed as refused:
        session.report(_("{refusal} (asked for on the command line)").format(refusal=refused.message))


async def run(
    app: QApplication,
    args: argparse.Namespace,
    paths: Paths,
    keys: KeyStore,
    *,
    window_ready: Callable[[MainWindow, Session], object] | None = None,
) -> int:
    """The whole life of the window; returns the exit code. Tests call it too.

    The window's frame is shown and painted first ("Opening the ledger…"); the desk is
    imported, built and opened after, and attached to it."""
    from .config.profiles import SettingsFile
    from .ui.language import install_qt_words
    from .ui.main_window import MainWindow

    # the staff's language, before any window is built (paydesk/i18n.py): --language, else
    # the one chosen in Settings → Language, else the system's
    chosen = getattr(args, "language", None) or await asyncio.to_thread(SettingsFile(paths.profiles).language)
    install_qt_words(app, set_language(chosen or system_language()).language)

    window = MainWindow(None, str(paths.window_state))  # the frame: painted while the ledger opens
    closed: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def window_closed() -> None:
        if not closed.done():
            closed.set_result(0)

    window.closed.connect(window_closed)
    if os.environ.get("PAYDESK_REPORT_PAINT"):
        _report_first_paint(window)
    window.show()
    try:
        await painted(window)
        desk = await _desk_for(window, args, paths, keys)
    except BaseException:
        _close(window)
        raise
    if isinstance(desk, int):  # refused, or the person quit: the window goes
        _close(window)
        return desk
    if closed.done():  # the window was closed while the ledger opened
        await desk.close()
        return closed.result()
    try:
        return await _attached(window, desk, closed, args, window_ready)
    finally:
        await desk.close()


def _close(window: QWidget) -> None:
    """Close the window (unless it has gone already, with the application)."""
    from shiboken6 import isValid

    if isValid(window):
        window.close()


async def _desk_for(window: MainWindow, args: argparse.Namespace, paths: Paths, keys: KeyStore) -> Desk | int:
    """The desk, open on the chosen ledger, or the exit code when there is none (the
    arguments refused, or the person quit while the shared ledger could not be opened)."""
    from .desk.ledger_choice import choose_ledger
    from .ui.desk_opening import opened_desk

    # --ledger, else the saved shared ledger, else this computer's own (a shared ledger's
    # password, from the keyring, is read now)
    choice, password = await choose_ledger(paths, keys, getattr(args, "ledger", None))
    given = getattr(args, "ledger_password", None)  # --ledger-password-stdin's
    if given is not None:
        if not choice.shared:
            print(f"paydesk: --ledger-password-stdin: {NO_SHARED_LEDGER}", file=sys.stderr)
            return 2
        password = given
    desk = await opened_desk(paths, keys, choice, password, typed=given is not None, parent=window)
    return 0 if desk is None else desk  # (None: the shared ledger could not be opened, and the person quit)


async def _attached(
    window: MainWindow,
    desk: Desk,
    closed: asyncio.Future[int],
    args: argparse.Namespace,
    window_ready: Callable[[MainWindow, Session], object] | None,
) -> int:
    """The window with its desk, from the first tab to the window closed: the exit code."""
    from .ui.dialogs import finished
    from .ui.first_run import CONNECT, SANDBOX, FirstRunDialog

    session = desk.session
    window.attach(desk)
    if args.profile:
        match = next((p for p in session.settings.profiles if args.profile in (p.id, p.name)), None)
        if match is None:
            print(f"paydesk: no profile named {args.profile!r}", file=sys.stderr)
            window.close()
            return 2
        await _as_asked(session, session.switch_profile(match.id))
    if window_ready is not None:
        window_ready(window, session)
    # what the first tab does not need comes after it has painted: the other tabs, the
    # keyring (only a shared ledger's password was read before: the key store waits for
    # it), the sandbox, the scheduler
    await painted(window)
    if os.environ.get("PAYDESK_REPORT_PAINT"):
        print("window-ready", flush=True)  # for the start-up benchmark: painted with its desk
    await window.build_tabs()
    await session.keys.settle()
    log.info("keys in %s", session.keys.backend_name)
    window.refresh()  # the keyring notice, now that the keyring has been looked for
    active = session.profile
    if args.sandbox or (active is not None and active.embedded_sandbox):
        session.report("Starting the sandbox…")
        profile = await session.start_embedded_sandbox()
        if args.sandbox:
            await session.switch_profile(profile.id)
        session.report(session.embedded.note or f"Sandbox running at {profile.base_url}")
    elif not session.settings.profiles:
        dialog = FirstRunDialog(window)
        window.first_run = dialog
        await finished(dialog)
        if dialog.choice == SANDBOX:
            profile = await session.start_embedded_sandbox()
            session.report(f"Sandbox running at {profile.base_url}")
        elif dialog.choice == CONNECT:
            await window.open_editor(None)
    if args.mode:
        await _as_asked(session, session.set_mode(args.mode))
    from .receiver.in_app import follow_in_app, serve_in_app  # the embedded sandbox: PAID
    # by notification

    await serve_in_app(desk)
    follow_in_app(desk)
    desk.start_background()
    window.start_up_done()
    gc.collect()
    gc.freeze()  # what start-up made lives on: full collections need not walk it again
    quit_after = os.environ.get("PAYDESK_QUIT_AFTER")  # benchmarks and headless checks
    if quit_after:
        asyncio.get_running_loop().call_later(float(quit_after), window.close)
    return await closed


def _import_ledger(args: argparse.Namespace) -> int:
    """``--import-ledger``: Qt-free, in a loop of its own (desk/ledger_import.py)."""
    from . import logs
    from .desk.ledger_import import import_command

    try:
        return asyncio.run(import_command(args))
    finally:
        logs.flush()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from .desk.ledger_choice import ledger_arguments

    problem = ledger_arguments(args)
    if problem:
        print(f"paydesk: {problem}", file=sys.stderr)
        return 2
    if args.import_ledger is not None:  # no window: the counts printed, then the exit
        return _import_ledger(args)
    problem = display_problem()
    if problem:
        print(f"paydesk: {problem}", file=sys.stderr)
        return 2
    os.environ.setdefault("QT_API", "pyside6")
    # what the window's frame needs before it paints; the desk and the ledger are imported
    # after it has painted
    from . import logs
    from .desk.start import keys_later, open_folders
    from .resources import path as resource

    paths, log_path = open_folders(args.data_dir, args.sandbox_dir)
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from .ui.crash import ExceptionHook

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0]])
    app.setApplicationName("PayDesk")
    app.setApplicationVersion(__version__)
    app.setOrganizationName("PayDesk")
    app.setDesktopFileName("paydesk")
    app.setWindowIcon(QIcon(str(resource("paydesk.svg"))))
    app.setQuitOnLastWindowClosed(False)
    ExceptionHook(log_path).install()

    async def start() -> int:
        # the keyring is looked for after the first paint (run() settles it before start-up
        # ends; a key read or written before then waits for it)
        keys = keys_later(not args.no_keyring, on_secret=logs.REDACTOR.add)
        log.info("PayDesk %s starting", __version__)
        return await run(app, args, paths, keys)

    from .ui.loop import EventLoop

    with asyncio.Runner(loop_factory=EventLoop) as runner:
        code = runner.run(start())
    log.info("PayDesk stopped")
    logs.flush()
    return code
