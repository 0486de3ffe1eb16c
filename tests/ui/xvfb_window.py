"""Run by test_real_window.py under Xvfb (xcb platform): start PayDesk on the sandbox, grab
what the X server shows where the window is, save it, print the window's geometry."""

import asyncio
import json
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from paydesk import app as paydesk_app
from paydesk.config.paths import default_paths
from paydesk.config.secrets import KeyStore
from paydesk.ui.loop import EventLoop
from tests.waiting import until_async

shot = Path(sys.argv[1])
qapp = QApplication([sys.argv[0]])
qapp.setQuitOnLastWindowClosed(False)
paths = default_paths().ensure()
result = {}


def ready(window, session):
    async def grab():
        await until_async(lambda: session.sandbox is not None, 120, "the embedded sandbox", every=0.05)
        await asyncio.sleep(1.0)  # let it paint
        geo = window.frameGeometry()
        image = window.screen().grabWindow(0, geo.x(), geo.y(), geo.width(), geo.height())
        image.save(str(shot))
        result.update(
            platform=QApplication.platformName(),
            width=window.width(),
            height=window.height(),
            title=window.windowTitle(),
            visible=window.isVisible(),
            exposed=window.windowHandle().isExposed(),
        )
        window.close()

    session.tasks.spawn(grab())


args = paydesk_app.parse_args(["--sandbox"])
with asyncio.Runner(loop_factory=EventLoop) as runner:
    code = runner.run(paydesk_app.run(qapp, args, paths, KeyStore(None), window_ready=ready))
print(json.dumps(result))
sys.exit(code)
