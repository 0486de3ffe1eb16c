"""The baseline: a bare PySide6 window with three empty tabs, started the same way
(QApplication, qasync's loop through asyncio.Runner), printing at its first paint."""

import asyncio
import os
import sys

import qasync
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QMainWindow, QTabWidget, QWidget


class Watch(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            print("first-paint", flush=True)
            obj.removeEventFilter(self)
        return False


async def main(app) -> int:
    window = QMainWindow()
    tabs = QTabWidget()
    for name in ("Payment links", "Transactions", "Cards"):
        tabs.addTab(QWidget(), name)
    window.setCentralWidget(tabs)
    window.resize(1100, 720)
    watch = Watch(window)
    window.installEventFilter(watch)
    window.show()
    await asyncio.sleep(float(os.environ.get("PAYDESK_QUIT_AFTER", "3")))
    window.close()
    return 0


app = QApplication([sys.argv[0]])
with asyncio.Runner(loop_factory=qasync.QEventLoop) as runner:
    sys.exit(runner.run(main(app)))
