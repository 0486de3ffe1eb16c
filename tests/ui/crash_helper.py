"""A PayDesk process for test_crash_recovery.py: starts on the embedded sandbox, makes the
service drop every answer after committing, and creates a link from the form like a user.
The test kills it while the create is in flight."""

import asyncio
import json
import sys

import httpx
from PySide6.QtWidgets import QApplication

from paydesk import app as paydesk_app
from paydesk.config.paths import default_paths
from paydesk.config.secrets import KeyStore
from paydesk.ui.loop import EventLoop
from tests.ui import press
from tests.waiting import until_async

qapp = QApplication([sys.argv[0]])
paths = default_paths().ensure()


def ready(window, session):
    async def act():
        # start-up is over and the links tab has put its reference in the form
        await until_async(
            lambda: window.started and window.links_tab.loaded, 120, "start-up and the links tab", every=0.05
        )
        key = await session.key()
        async with httpx.AsyncClient() as http:
            r = await http.put(
                f"{session.profile.base_url}/_sandbox/faults",
                json={"drop_after_commit_rate": 1.0},
                headers={"Authorization": f"Bearer {key}"},
            )
            r.raise_for_status()
        tab = window.links_tab
        form = tab.form
        for name, text in dict(
            amount="77", email="kim@example.com", first_name="Kim", last_name="Lee", title="Crash test"
        ).items():
            press.type_into(getattr(form, name), text)
        print(json.dumps({"creating": form.tx_ref.text()}), flush=True)
        press.click(form.create_button)

    session.tasks.spawn(act())


args = paydesk_app.parse_args(["--sandbox"])
with asyncio.Runner(loop_factory=EventLoop) as runner:
    runner.run(paydesk_app.run(qapp, args, paths, KeyStore(None), window_ready=ready))
