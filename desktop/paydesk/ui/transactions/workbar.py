"""The strip under the ledger browser for long work (checking every open record, exporting):
a progress bar with counts, Cancel, and what came of it."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QWidget

from ...desk.formats import number_in
from ...desk.reconcile import Progress
from ...i18n import _, staff
from ..elided import ElidedLabel


def counted(**counts: int) -> dict[str, str]:
    """Counts as the staff's language writes them ("1,200" in English, "1 200" in French)."""
    words = staff()
    return {name: number_in(n, words) for name, n in counts.items()}


class WorkBar(QWidget):
    showChanged = Signal(object)  # the tx_refs to show only (what a check changed); empty: all

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("work-bar")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.bar = QProgressBar()
        self.bar.setObjectName("work-progress")
        self.bar.setAccessibleName(_("Progress"))
        # "Checked 40 of 120 · 3 changed · …": shortened where the row has no room for it (a
        # longer language), the whole on hover, never widening the window
        self.counts = ElidedLabel("")
        self.counts.setObjectName("work-counts")
        self.cancel = QPushButton(_("Cancel"))
        self.cancel.setObjectName("work-cancel")
        self.cancel.setAccessibleName(_("Cancel"))
        # what came of it: an export's long path shortened in its middle (the file's name
        # whole, the whole on hover), never widening the window
        self.report = ElidedLabel("", mode=Qt.TextElideMode.ElideMiddle)
        self.report.setObjectName("work-report")
        self.show_these = QPushButton(_("Show these"))
        self.show_these.setObjectName("work-show")
        self.show_these.setAccessibleName(_("Show these"))
        self.show_these.setCheckable(True)
        self.show_these.setToolTip(
            _("Show exactly the records this check changed or could not check; press again to show all")
        )
        for widget in (self.bar, self.counts, self.cancel, self.report, self.show_these):
            row.addWidget(widget)
        row.addStretch(1)
        self._task: asyncio.Task | None = None
        self._changed: set[str] = set()
        self.cancel.clicked.connect(self.stop)
        self.show_these.toggled.connect(self._show_toggled)
        self.idle()

    def _show_toggled(self, on: bool) -> None:
        self.show_these.setText(_("Show all") if on else _("Show these"))
        self.show_these.setAccessibleName(self.show_these.text())
        self.showChanged.emit(frozenset(self._changed) if on else frozenset())

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def idle(self) -> None:
        for widget in (self.bar, self.counts, self.cancel):
            widget.hide()
        self.show_these.setVisible(bool(self._changed))

    def start(self, task: asyncio.Task, total: int | None = None) -> None:
        if self.show_these.isChecked():
            self.show_these.setChecked(False)  # back to everything
        self._task = task
        self._changed = set()
        self.report.setText("")
        self.bar.setRange(0, total or 0)
        self.bar.setValue(0)
        for widget in (self.bar, self.counts, self.cancel):
            widget.show()
        self.show_these.hide()
        task.add_done_callback(lambda _task: self.idle())

    def stop(self) -> None:
        """Cancel: the work stops at once (calls in flight are abandoned)."""
        if self._task is not None and not self._task.done():  # busy
            self.say(_("Cancelled"))
            self._task.cancel()

    def reconciling(self, progress: Progress) -> None:
        self.bar.setRange(0, max(progress.total, 1))
        self.bar.setValue(progress.done)
        text = _("Checked {checked} of {total} · {changed} changed · {failed} could not be checked").format(
            **counted(checked=progress.checked, total=progress.total, changed=progress.changed, failed=progress.failed)
        )
        self.counts.setText(text)
        self.counts.setAccessibleName(text)

    def reconciled(self, progress: Progress, cancelled: bool = False) -> None:
        self._changed = set(progress.changed_refs)
        if cancelled:
            self.say(
                _("Cancelled after checking {checked} of {total}: {report}").format(
                    **counted(checked=progress.checked, total=progress.total), report=progress.report()
                )
            )
        else:
            self.say(progress.report())
        self.show_these.setVisible(bool(self._changed))

    def exporting(self, written: int, total: int) -> None:
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(written)
        text = _("Exported {written} of {total}").format(**counted(written=written, total=total))
        self.counts.setText(text)
        self.counts.setAccessibleName(text)

    def say(self, text: str) -> None:
        self.report.setText(text)
        self.report.setAccessibleName(text or _("No report"))
