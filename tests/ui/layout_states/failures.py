"""The layout audit's states of the dialogs a failure shows (no press brings them): the
shared ledger out of reach at start, and the crash dialog of an unexpected error, each as
the app shows it (the same start-up and exception hook as tests/ui/test_shared_ledger_start.py
and tests/ui/test_crash.py)."""

from __future__ import annotations

import asyncio

from paydesk.i18n import _
from paydesk.ui.crash import CrashDialog, ExceptionHook
from tests.helpers import free_port
from tests.ui import press
from tests.ui.layout_states.reach import LONG_PROFILE


def test_the_shared_ledger_out_of_reach_at_start(loop, qapp, paths, keys, seen):
    from tests.ui.test_shared_ledger_start import problem_dialog, start

    url = (
        f"postgresql://paydesk-counter-and-back-office@127.0.0.1:{free_port()}/"
        "the_shops_shared_ledger_for_every_counter?sslmode=disable"
    )
    task, _ = start(loop, qapp, paths, keys, url)
    seen.look(problem_dialog(), "the shared ledger out of reach at start")
    press.click(problem_dialog().quit)
    assert loop.run(asyncio.wait_for(asyncio.shield(task), 15), 16) == 0


def test_the_crash_dialog(app, loop, qapp, paths, seen):
    hook = ExceptionHook(paths.logs / "paydesk.log").install()
    try:

        async def broken():
            await asyncio.sleep(0)
            raise RuntimeError(
                f"an unexpected problem while saving {LONG_PROFILE}'s "
                "profile, with a message longer than the dialog is wide"
            )

        app.session.tasks.spawn(broken(), "broken")
        loop.until(
            lambda: any(isinstance(w, CrashDialog) and w.isVisible() for w in qapp.topLevelWidgets()),
            message="the crash dialog",
        )
        dialog = next(w for w in qapp.topLevelWidgets() if isinstance(w, CrashDialog) and w.isVisible())
        seen.look(dialog, "the crash dialog")
        press.click(press.button(dialog, _("Close")))
    finally:
        hook.uninstall()
