"""The Bulk links window: a payment link for every row of a spreadsheet, in four steps.

1. the file (CSV or XLSX; or the template, downloaded), read off the GUI thread;
2. which column holds which field, with the first rows as they will be read;
3. the dry run: every row checked before any call, problems fixed in the grid (each edit
   checks the rows again, off the GUI thread), the policy, "Create N links";
4. the batch written to the ledger and created by the desk's ``BulkController``: progress,
   Pause, Resume, Cancel. The batch is the desk's: closing this window does not stop it (the
   Batches window shows it).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ...desk.bulk.check import BulkRow, check_rows
from ...desk.bulk.keep import ChangedRows
from ...desk.bulk.mapping import Mapping, guess_mapping
from ...desk.bulk.read import read_sheet
from ...desk.bulk.runner import BatchRefused, BulkController
from ...desk.bulk.sheet import BulkFileError, Sheet
from ...desk.bulk.template import write_template
from ...desk.session import Session
from ...i18n import N_, _
from ...ledger import LedgerError
from ...ledger.batch import Batch
from .. import files, widgets
from ..dialogs import shown
from ..passing import Passing
from ..signals import signals_of
from ..transactions.actions import save_path
from .batch_actions import CSV, XLSX, name_filter
from .mapping_step import MappingStep
from .progress import ProgressStep
from .steps import CheckStep, FileStep, say

log = logging.getLogger("paydesk.ui.bulk")
TITLE = N_("Bulk links")
FILTERS = [(N_("Spreadsheets"), " ".join((CSV[1], XLSX[1]))), CSV, XLSX]
FILE, COLUMNS, CHECK, PROGRESS = range(4)


class BulkWindow(widgets.OwnWindow):
    """A window of its own; closing it hides it."""

    batchesRequested = Signal()

    def __init__(self, session: Session, controller: BulkController, parent: QWidget | None = None):
        super().__init__(parent, "bulk-window", _(TITLE), (1100, 720))
        self.session, self.controller = session, controller
        self.tasks = session.tasks.child(self)
        column = QVBoxLayout(self)
        self.stack = QStackedWidget()
        self.file_step, self.mapping_step = FileStep(), MappingStep()
        self.check_step, self.progress_step = CheckStep(), ProgressStep()
        for step in (self.file_step, self.mapping_step, self.check_step, self.progress_step):
            self.stack.addWidget(step)
        column.addWidget(self.stack, 1)
        bottom = QHBoxLayout()
        self.back = self._button(_("< &Back"), "bulk-back", _("Back"))
        self.next = self._button(_("&Check the rows >"), "bulk-next", _("Check the rows"))
        self.close_button = self._button(_("Close"), "bulk-close", _("Close"))
        for button in (self.back, self.next):
            bottom.addWidget(button)
        bottom.addStretch(1)
        bottom.addWidget(self.close_button)
        column.addLayout(bottom)

        self.file_step.choose.clicked.connect(lambda: self.tasks.replace("choose file", self.choose_file()))
        self.file_step.template.clicked.connect(lambda: self.tasks.replace("template", self.download_template()))
        self.back.clicked.connect(self.go_back)
        self.next.clicked.connect(lambda: self.tasks.replace("check", self.check()))
        self.close_button.clicked.connect(self.close)
        self.check_step.model.edited.connect(self._edited)
        self.check_step.policyChanged.connect(self.check_step.update_counts)
        self.check_step.createRequested.connect(lambda: self.tasks.replace("create", self.create_batch()))
        progress = self.progress_step
        progress.pause.clicked.connect(lambda: self.tasks.spawn(self.pause(), "pause"))
        progress.resume.clicked.connect(lambda: self.tasks.spawn(self.resume(), "resume"))
        progress.cancel.clicked.connect(lambda: self.tasks.spawn(self.cancel(), "cancel"))
        progress.batches.clicked.connect(self.batchesRequested.emit)
        progress.again.clicked.connect(self.start_over)
        self.passing = Passing(session, self)  # a refusal said goes when its cause goes
        signals = signals_of(session.hub)
        signals.batchChanged.connect(self._batch_changed)
        signals.changed.connect(self._profile_changed)
        self._tick = QTimer(self)  # the service's pause counts down while nothing changes
        self._tick.setInterval(500)
        self._tick.timeout.connect(self._show_progress)

        self.sheet: Sheet | None = None
        self.mapping: Mapping = {}
        self.known: set[str] = set()  # references of this file the ledger has (not this batch's)
        self.own: set[str] = set()  # references of the batch this file joins
        self.found: Batch | None = None  # the earlier batch of this file name, joined
        self._to_ask: set[str] = set()  # references typed in the grid, not asked of the ledger
        self._edits = 0  # edits made in the grid: the check of the latest is shown
        self.batch: Batch | None = None  # the batch being created
        self.cancelled = False
        self.go(FILE)
        self._profile_changed()

    def _profile_changed(self) -> None:
        """The links are the main window's profile and mode: said in the title; a dry run
        shown is checked again by the new profile's rules."""
        profile = self.session.profile
        mode = _("TEST") if self.session.is_test else _("LIVE")
        title = _(TITLE)
        self.setWindowTitle(
            _("{title} — {profile} — {mode}").format(title=title, profile=profile.name, mode=mode) if profile else title
        )
        if profile is not None and self.stack.currentIndex() == CHECK:
            self.tasks.replace("check", self.check())

    def _button(self, text: str, name: str, accessible: str) -> QPushButton:
        return widgets.button(text, name, accessible)

    # -- the steps -----------------------------------------------------------------------

    def go(self, step: int) -> None:
        self.stack.setCurrentIndex(step)
        self.back.setVisible(step in (COLUMNS, CHECK))
        self.next.setVisible(step == COLUMNS)
        focus = {
            FILE: self.file_step.choose,
            COLUMNS: self.next,
            CHECK: self.check_step.grid,
            PROGRESS: self.progress_step.cancel,
        }[step]
        if focus.isEnabled():
            focus.setFocus(Qt.FocusReason.OtherFocusReason)

    def start_over(self) -> None:
        """Another file (the batch shown goes on; the Batches window shows it)."""
        self.batch, self.sheet, self.found = None, None, None
        self._tick.stop()
        self.file_step.complain("")
        self.go(FILE)

    def go_back(self) -> None:
        self.go(max(self.stack.currentIndex() - 1, FILE))

    async def choose_file(self) -> Sheet | None:
        dialog = QFileDialog(self, _("Choose the spreadsheet"))
        dialog.setObjectName("bulk-open-dialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilters([name_filter(*f) for f in FILTERS])
        dialog.setDirectory(str(await files.start_folder()))
        async with shown(dialog) as code:
            if not code or not dialog.selectedFiles():
                return None
            path = Path(dialog.selectedFiles()[0])
        files.remember(path)
        return await self.load(path)

    async def load(self, path: Path) -> Sheet | None:
        self.file_step.complain(_("Reading {file}…").format(file=path.name), ok=True)
        self.file_step.choose.setEnabled(False)
        try:
            sheet = await asyncio.to_thread(read_sheet, path)
        except BulkFileError as error:
            self.file_step.complain(_("{file}: {problem}").format(file=path.name, problem=error.message))
            return None
        except OSError as error:
            self.file_step.complain(
                _("Could not read {file}: {reason}").format(file=path.name, reason=error.strerror or error)
            )
            return None
        finally:
            self.file_step.choose.setEnabled(True)
        self.file_step.complain("")
        self.sheet = sheet
        self.mapping_step.show_sheet(sheet, guess_mapping(sheet.headers))
        self.go(COLUMNS)
        return sheet

    async def download_template(self) -> Path | None:
        profile = self.session.profile
        if profile is None:
            return None
        path = await save_path(
            self,
            _("Save the template"),
            [name_filter(*f) for f in FILTERS[1:]],
            f"paydesk-bulk-template-{profile.name}.csv".replace(" ", "-"),
        )
        if path is None:
            return None
        try:
            await asyncio.to_thread(write_template, path, profile)
        except OSError as error:
            self.file_step.complain(
                _("Could not save {file}: {reason}").format(file=path.name, reason=error.strerror or error)
            )
            return None
        self.file_step.complain(_("Template saved as {path}").format(path=path), ok=True)
        return path

    # -- the dry run ---------------------------------------------------------------------

    async def check(self) -> list[BulkRow] | None:
        """Check every row of the file with the chosen columns (step 3)."""
        profile, mode, sheet = self.session.profile, self.session.mode, self.sheet
        if profile is None or sheet is None:
            return None
        missing = self.mapping_step.missing()
        if missing:
            self.mapping_step.complain(_("Choose the column of: {fields}").format(fields=", ".join(missing)))
            return None
        self.mapping = self.mapping_step.mapping()
        self.next.setEnabled(False)
        try:
            earlier = await self.controller.earlier(profile, mode, sheet.file_name)
            self.found, already, self.own = earlier.batch, earlier.sent, set(earlier.refs)
            self.known = await self.controller.known_references(profile, self._refs()) - self.own
            rows = await asyncio.to_thread(check_rows, sheet, self.mapping, profile, known_refs=self.known)
        except LedgerError as error:
            self.mapping_step.complain(_("Could not read the ledger: {error}").format(error=error))
            return None
        finally:
            self.next.setEnabled(True)
        self.check_step.show_rows(self._fields(), rows, sheet.blank, fresh=True, already=already)
        self.go(CHECK)
        return rows

    def _fields(self) -> list[str]:
        return sorted(self.mapping, key=lambda field: self.mapping[field])

    def _refs(self) -> list[str]:
        column = self.mapping.get("tx_ref")
        if column is None or self.sheet is None:
            return []
        return [
            cells[column].strip() for _row, cells in self.sheet.rows if column < len(cells) and cells[column].strip()
        ]

    def _edited(self, number: int, field: str, text: str) -> None:
        sheet, column = self.sheet, self.mapping.get(field)
        if sheet is None or column is None:
            return
        sheet.edit(number, column, text)
        if field == "tx_ref" and text.strip() and text.strip() not in self.own:
            self._to_ask.add(text.strip())  # asked of the ledger before the check
        self.check_step.set_checking(True)
        self._edits += 1
        self.tasks.replace("recheck", self._recheck(self._edits))

    async def _recheck(self, edit: int) -> None:
        """The rows checked again after an edit (the latest edit's check wins: an earlier one
        still under way is cancelled)."""
        profile, sheet = self.session.profile, self.sheet
        if profile is None or sheet is None:
            return
        try:
            if self._to_ask:
                asked = set(self._to_ask)
                self.known |= await self.controller.known_references(profile, asked)
                self._to_ask -= asked
            rows = await asyncio.to_thread(check_rows, sheet, self.mapping, profile, known_refs=self.known)
        except LedgerError as error:
            say(self.check_step.why, _("Could not read the ledger: {error}").format(error=error))
            return
        finally:
            if edit == self._edits:
                self.check_step.checking = False
        if edit != self._edits:
            return
        self.check_step.show_rows(self._fields(), rows, sheet.blank, fresh=False, already=self.check_step.already)

    # -- creating ------------------------------------------------------------------------

    async def create_batch(self) -> Batch | None:
        profile, sheet = self.session.profile, self.sheet
        step = self.check_step
        if profile is None or sheet is None or step.checking or step.to_create() == 0:
            return None
        step.create_links.setEnabled(False)
        try:  # a corrected file joins the batch of its name: only what is missing is made;
            # kept by the desk's controller (its references carry the installation's id)
            batch, _joined = await self.controller.keep(sheet.file_name, step.model.rows, step.chosen_policy())
        except ChangedRows as error:  # rows moved or edited since sent: said by the file choice
            self.file_step.complain(error.message)
            step.update_counts()
            self.go(FILE)
            return None
        except (LedgerError, ValueError) as error:  # a shared ledger out of reach: its
            step.update_counts()  # one sentence, said after the counts' own words
            say(step.why, str(error))
            self.passing.said(step.why, str(error), error, lambda: step.update_counts())
            return None
        self.batch, self.found, self.cancelled = batch, batch, False
        self.progress_step.start(batch.name, step.to_create())
        self.go(PROGRESS)
        await self._run(batch)
        return batch

    async def _run(self, batch: Batch) -> bool:
        """The desk's runner starts the batch (it returns at once; the batch goes on in the
        desk's tasks, whatever this window does)."""
        try:
            await self.controller.start(batch)
        except BatchRefused as error:  # all or nothing with a problem; another profile shown
            self.progress_step.refused(error.message)
            return False
        except LedgerError as error:  # a shared ledger out of reach: nothing sent
            self._refused(error)
            return False
        self._tick.start()
        self._show_progress()
        return True

    def _batch_changed(self, batch_id: int) -> None:
        if self.batch is not None and batch_id == self.batch.id:
            self._show_progress()

    def _show_progress(self) -> None:
        if self.batch is not None:
            self.tasks.replace("bulk progress", self._progress(self.batch))

    async def _progress(self, batch: Batch) -> None:
        try:
            figures = await self.controller.progress(batch.id)
        except LedgerError as error:
            log.info("could not read the batch's progress: %s", error)
            return
        if batch is not self.batch:
            return
        status = self.controller.status(batch.id)
        if self.controller.running(batch.id):
            self.progress_step.show_figures(figures)
            paused = self.controller.paused(batch.id) or self.controller.service_pause(batch.id) is not None
            self.progress_step.say_status(status, creating=not paused and not self.cancelled)
            self.progress_step.say_time_left(self.controller.time_left(batch.id, figures.left))
            self.progress_step.running(True, paused=self.controller.paused(batch.id))
        else:
            if not figures.creating:  # else the figures follow the links being settled
                self._tick.stop()
            self.progress_step.finished(
                figures, cancelled=self.cancelled, report=status, before=self.controller.before(batch.id)
            )

    async def pause(self) -> None:
        if self.batch is not None:
            self.controller.pause(self.batch.id)
            self._show_progress()

    async def resume(self) -> None:
        batch = self.batch
        if batch is None:
            return
        if self.controller.running(batch.id):
            try:
                self.controller.resume(batch.id)
            except (BatchRefused, LedgerError) as error:  # still paused, and why
                self.progress_step.say_status(getattr(error, "message", None) or str(error))
                return
            self._show_progress()
            return
        # cancelled or stopped: the rows left are sent now
        try:
            self.session.refuse_while_down()
            figures = await self.controller.progress(batch.id)
        except LedgerError as error:  # a shared ledger out of reach: nothing sent
            self._refused(error)
            return
        self.cancelled = False
        self.progress_step.start(batch.name, figures.left)
        await self._run(batch)

    def _refused(self, error: LedgerError) -> None:  # not started: why, until the ledger is back
        outcome = self.progress_step.outcome
        self.progress_step.refused(str(error))
        self.passing.said(outcome, str(error), error, lambda: say(outcome, ""))

    async def cancel(self) -> str | None:
        if self.batch is None:
            return None
        self.cancelled = True
        self.progress_step.cancel.setEnabled(False)
        report = await self.controller.cancel(self.batch.id)
        self._show_progress()
        return report
