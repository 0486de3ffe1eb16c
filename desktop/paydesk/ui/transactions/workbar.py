"""The strip under the ledger browser for long work (checking every open record, exporting):
a progress bar with counts, Cancel, and what came of it."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from ...reconcile import Progress


class WorkBar(QWidget):
    showChanged = Signal(object)  # the tx_refs a reconcile changed or could not check

    def __init__(self):
        super().__init__()
        self.setObjectName("work-bar")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.bar = QProgressBar()
        self.bar.setObjectName("work-progress")
        self.bar.setAccessibleName("Progress")
        self.counts = QLabel("")
        self.counts.setObjectName("work-counts")
        self.cancel = QPushButton("Cancel")
        self.cancel.setObjectName("work-cancel")
        self.cancel.setAccessibleName("Cancel")
        self.report = QLabel("")
        self.report.setObjectName("work-report")
        self.report.setTextFormat(Qt.TextFormat.PlainText)
        self.show_these = QPushButton("Show these")
        self.show_these.setObjectName("work-show")
        self.show_these.setAccessibleName("Show these")
        self.show_these.setToolTip("Show exactly the records this check changed or could not check")
        for widget in (self.bar, self.counts, self.cancel, self.report, self.show_these):
            row.addWidget(widget)
        row.addStretch(1)
        self._task: asyncio.Task | None = None
        self._changed: set[str] = set()
        self.cancel.clicked.connect(self.stop)
        self.show_these.clicked.connect(lambda: self.showChanged.emit(frozenset(self._changed)))
        self.idle()

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def idle(self) -> None:
        for widget in (self.bar, self.counts, self.cancel):
            widget.hide()
        self.show_these.setVisible(bool(self._changed))

    def start(self, task: asyncio.Task, total: int | None = None) -> None:
        self._task = task
        self._changed = set()
        self.report.setText("")
        self.bar.setRange(0, total or 0)
        self.bar.setValue(0)
        for widget in (self.bar, self.counts, self.cancel):
            widget.show()
        self.show_these.hide()
        task.add_done_callback(lambda _: self.idle())

    def stop(self) -> None:
        """Cancel: the work stops at once (calls in flight are abandoned)."""
        if self.busy:
            self._task.cancel()
            self.say("Cancelled")

    def reconciling(self, progress: Progress) -> None:
        self.bar.setRange(0, max(progress.total, 1))
        self.bar.setValue(progress.done)
        text = (f"Checked {progress.checked} of {progress.total} · {progress.changed} changed · "
                f"{progress.failed} failed")
        self.counts.setText(text)
        self.counts.setAccessibleName(text)

    def reconciled(self, progress: Progress) -> None:
        self._changed = set(progress.changed_refs)
        self.say(progress.report())
        self.show_these.setVisible(bool(self._changed))

    def exporting(self, written: int, total: int) -> None:
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(written)
        text = f"Exported {written} of {total}"
        self.counts.setText(text)
        self.counts.setAccessibleName(text)

    def say(self, text: str) -> None:
        self.report.setText(text)
        self.report.setAccessibleName(text or "No report")
