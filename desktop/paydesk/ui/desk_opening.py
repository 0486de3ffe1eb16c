"""The desk opened on the chosen ledger at start-up, while the window's frame is shown; a
shared ledger that cannot be opened is said in ``ledger_problem.py``'s dialog."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from shiboken6 import isValid

from .. import logs
from ..config.shared_ledger import Choice
from ..desk.ledger_choice import asks_password, keep_password

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ..config.paths import Paths
    from ..config.secrets import KeyStore
    from ..desk.build import Desk
    from .ledger_problem import LedgerProblemDialog

log = logging.getLogger("paydesk.app")


async def opened_desk(
    paths: Paths,
    keys: KeyStore,
    choice: Choice,
    password: str | None,
    *,
    typed: bool = False,
    parent: QWidget | None = None,
) -> Desk | None:
    """The desk, opened, on the chosen ledger (the one composition root; the window is handed
    it). A shared ledger that cannot be opened is said in a dialog that tries again every few
    seconds by itself, until it opens (the desk), the person quits (None), or chooses this
    computer's own ledger for this session. When the server asks for the password (none kept,
    or the kept one refused) the dialog asks for it; one typed there is tried at once and
    kept in the keyring once it opened the ledger, as is one given on standard input
    (``typed``). The dialog is ``parent``'s (the window's frame, shown meanwhile)."""
    from ..desk.build import build_desk  # (imported once the window's frame has painted)
    from ..ledger import LedgerError

    dialog: LedgerProblemDialog | None = None
    try:
        while True:
            desk = build_desk(paths, keys, choice=choice, ledger_password=password)
            try:
                await desk.open()
            except LedgerError as error:
                await desk.close()
                if choice.url is None:  # this computer's own ledger
                    raise
                log.warning("the shared ledger cannot be opened: %s", error)
                why, asks = str(error), asks_password(error)
                if parent is not None and not parent.isVisible():
                    return None  # the window was closed while the ledger opened: nothing to ask
            except BaseException:  # not the ledger's refusal (a cancel, a defect): the desk goes
                await desk.close()
                raise
            else:
                try:  # typed: the password was given or typed, kept once it opened the ledger
                    if typed and choice.url is not None and password is not None:
                        await keep_password(keys, choice.url, password)
                except BaseException:
                    await desk.close()
                    raise
                return desk
            # (the dialog's module imported when a shared ledger first refuses: not on every start)
            from .ledger_problem import CONNECT, OWN, QUIT, WAITING, LedgerProblemDialog

            if dialog is None:
                dialog = LedgerProblemDialog(why, choice.url, parent, asks_password=asks)
                dialog.open()
            elif typed and asks:
                dialog.refused(why)  # the password typed: said beside it
            else:
                dialog.say(why, asks_password=asks)
            await dialog.next_try()
            if dialog.choice == QUIT:
                return None
            if dialog.choice == OWN:
                choice, password = Choice(None, "own"), None
                dialog.hide()
            elif dialog.choice == CONNECT:
                password, typed = dialog.typed_password(), True
                logs.REDACTOR.add(password)  # tried, if not kept: never in a log line
                dialog.choice = WAITING
    finally:
        if dialog is not None and isValid(dialog):  # not already gone with the application
            dialog.deleteLater()
