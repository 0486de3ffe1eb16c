"""The last step of Bulk links: the batch being created, row by row: a progress bar, what was
created, refused and is left, and Pause, Resume and Cancel. The figures are the ledger's
(``BulkController.progress``), read again when the batch changes."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QVBoxLayout, QWidget

from ...desk.bulk.progress import outcome
from ...desk.formats import number_in
from ...i18n import _, staff
from ...ledger.batch import BatchFigures
from .. import widgets
from .steps import say


def left_of(figures: BatchFigures) -> int:
    return figures.left


def figures_text(figures: BatchFigures) -> str:
    words = staff()
    made = figures.created + figures.paid
    parts = [
        _("Created {made}").format(made=number_in(made, words)),
        _("refused {refused}").format(refused=number_in(figures.refused, words)),
    ]
    if figures.failed:
        parts.append(_("failed {failed}").format(failed=number_in(figures.failed, words)))
    parts.append(_("left {left}").format(left=number_in(left_of(figures), words)))
    if figures.skipped:
        parts.append(_("skipped {skipped} (rows with problems)").format(skipped=number_in(figures.skipped, words)))
    if figures.paid:
        parts.append(_("paid so far {paid}").format(paid=number_in(figures.paid, words)))
    return ", ".join(parts)


class ProgressStep(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("bulk-progress-step")
        self.setAccessibleName(_("Progress"))
        column = QVBoxLayout(self)
        self.title = QLabel("")
        self.title.setObjectName("bulk-batch-title")
        self.title.setStyleSheet("font-weight: 600;")
        column.addWidget(self.title)
        self.bar = QProgressBar()
        self.bar.setObjectName("bulk-progress")
        self.bar.setAccessibleName(_("Links created"))
        self.bar.setFormat(_("%v of %m"))
        column.addWidget(self.bar)
        self.figures = widgets.label("bulk-figures")
        column.addWidget(self.figures)
        # "about 2 h 50 min at the service's 60 calls a minute, shared with the counters"
        self.time_left = widgets.label("bulk-time-left")
        column.addWidget(self.time_left)
        self.paused = widgets.label("bulk-paused")
        self.paused.setStyleSheet("color: #3d2e00; background: #fff4ce; padding: 4px;")
        column.addWidget(self.paused)
        self.outcome = widgets.label("bulk-outcome")
        self.outcome.setStyleSheet("font-weight: 600;")
        column.addWidget(self.outcome)
        column.addStretch(1)
        buttons = QHBoxLayout()
        self.pause = widgets.button(_("&Pause"), "bulk-pause")
        self.resume = widgets.button(_("&Resume"), "bulk-resume")
        self.cancel = widgets.button(_("Cancel"), "bulk-cancel")
        self.batches = widgets.button(_("Show in &Batches…"), "bulk-show-batches")
        self.again = widgets.button(_("&Another file…"), "bulk-another-file")
        for button in (self.pause, self.resume, self.cancel):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.batches)
        buttons.addWidget(self.again)
        column.addLayout(buttons)
        self.to_do = 0
        for label in (self.paused, self.outcome, self.time_left):
            say(label, "")

    def start(self, name: str, rows: int) -> None:
        """A batch of ``rows`` rows to create (those sent before not counted)."""
        self.title.setText(name)
        self.title.setAccessibleName(name)
        self.to_do = rows
        self.bar.setRange(0, max(rows, 1))
        self.bar.setValue(0)
        say(self.outcome, "")
        say(self.paused, "")
        self.running(True, paused=False)

    def show_figures(self, figures: BatchFigures) -> None:
        left = left_of(figures)
        total = max(figures.rows - figures.skipped, 1)
        self.bar.setRange(0, total)
        self.bar.setValue(total - left if figures.rows - figures.skipped else 0)
        say(self.figures, figures_text(figures))
        self.bar.setAccessibleDescription(self.figures.text())

    def say_time_left(self, text: str) -> None:
        """How long the rows left take at what the service's budget leaves the batch ("" when
        the service sets no limit)."""
        say(self.time_left, _("Time left: {text}").format(text=text) if text else "")

    def say_status(self, status: str, *, creating: bool = False) -> None:
        """The runner's word while it runs: "Paused by the service for 3 s", "Paused", why it
        paused, "Cancelling…"; nothing while it simply creates links (``creating``)."""
        say(self.paused, "" if creating else status)

    def refused(self, message: str) -> None:
        """The runner refused the batch before any call (all or nothing with a problem)."""
        say(self.outcome, message)
        self.running(False, paused=False)

    def running(self, running: bool, *, paused: bool) -> None:
        self.pause.setEnabled(running and not paused)
        self.resume.setEnabled(paused or not running)
        self.cancel.setEnabled(running)

    def finished(
        self, figures: BatchFigures, *, cancelled: bool, report: str = "", before: BatchFigures | None = None
    ) -> None:
        """The run ended: how far it got (``before``: the batch when the run started)."""
        self.show_figures(figures)
        say(self.paused, "")
        say(self.time_left, "")
        text = outcome(figures, cancelled=cancelled, before=before)
        say(self.outcome, text)
        self.outcome.setAccessibleDescription(report)  # the runner's own account
        self.outcome.setToolTip(report)
        self.running(False, paused=False)
        self.resume.setEnabled(figures.waiting > 0)
