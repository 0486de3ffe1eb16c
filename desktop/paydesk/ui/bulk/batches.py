"""The Batches window (View > Batches…): the profile and mode's batches of bulk links, newest
first, with what was created, refused and paid so far, kept live as links are created and
paid; a batch's rows below, paged like the ledger; "Check all open" for a batch, and
"Resume" for one with rows left."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from collections.abc import Set as AbstractSet

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFontMetrics, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...desk.bulk.runner import BatchRefused, BulkController
from ...desk.formats import number_in
from ...desk.session import Session
from ...i18n import N_, _, ngettext, staff
from ...ledger import LedgerError, LinkRecord
from ...ledger.batch import Batch, BatchBook
from .. import widgets
from ..elided import ElidedLabel
from ..fixed_text import OneLineDelegate, fixed_font
from ..signals import signals_of
from ..table import TIME_SAMPLE, fit_columns
from . import batch_actions as actions
from .batch_models import NAME, POLICY, STATE_WORDS, BatchesModel, BatchRowsModel, state_word
from .steps import say

log = logging.getLogger("paydesk.ui.bulk.batches")
TITLE = N_("Batches — PayDesk")
LIVE_EVERY_MS = 400  # figures counted again at most this often while links change
REFS_AT_ONCE = 50  # links changed between two counts whose batch is looked for
REF_CHARS = 40  # a reference column grows to show this many characters whole
CELL_PADDING = 16  # px: a cell's margins and focus frame beside its text
ROOM = 8  # px left beside the widest reference: it is not flush against the next column


class BatchesWindow(widgets.OwnWindow):
    """A window of its own (closing it hides it; it ends with the main window)."""

    def __init__(self, session: Session, book: BatchBook, controller: BulkController, parent: QWidget | None = None):
        super().__init__(parent, "batches-window", _(TITLE), (1100, 700), _("Batches"))
        self.session, self.book, self.controller = session, book, controller
        self.tasks = session.tasks.child(self)
        column = QVBoxLayout(self)
        split = QSplitter(Qt.Orientation.Vertical)
        self.model = BatchesModel(book, self.tasks)
        self.table = widgets.record_table("batches-table", self.model, _("Batches"))
        # the file's name, the batch's and its policy share what the figures leave (elided, each
        # whole in its tooltip): the list never scrolls sideways, in a longer language too
        fit_columns(
            self.table,
            ("", "", TIME_SAMPLE, "accounts", *["9,999"] * 5, ""),
            1,
        )
        for shared in (NAME, POLICY):
            self.table.horizontalHeader().setSectionResizeMode(shared, QHeaderView.ResizeMode.Stretch)
        self.table.setWordWrap(False)  # a file's name is never broken at its hyphens
        split.addWidget(self.table)
        below = QWidget()
        below_column = QVBoxLayout(below)
        below_column.setContentsMargins(0, 0, 0, 0)
        self.rows_caption = QLabel(_("&Rows of the batch:"))
        below_column.addWidget(self.rows_caption)
        self.rows_model = BatchRowsModel(book, self.tasks)
        self.rows = widgets.record_table(
            "batch-rows", self.rows_model, _("Rows of the batch"), (50, 80, 200, 170, 70, 60, 190, 150, 140, 260, 160)
        )
        self.rows_caption.setBuddy(self.rows)
        # each heading whole, and each state's word, however long the staff's language says them
        heads, metrics = self.rows.horizontalHeader(), self.rows.fontMetrics()
        for col in range(self.rows_model.columnCount()):
            self.rows.setColumnWidth(col, max(self.rows.columnWidth(col), heads.sectionSizeHint(col)))
        states = max(metrics.horizontalAdvance(state_word(state)) for state in STATE_WORDS) + CELL_PADDING
        self.rows.setColumnWidth(BatchRowsModel.STATE, max(self.rows.columnWidth(BatchRowsModel.STATE), states))
        self.rows.setWordWrap(False)  # one line a row: elided, the whole text in its tooltip
        self._one_line = OneLineDelegate(self.rows)
        for col in BatchRowsModel.FIXED:  # references: elided in the middle, never broken
            self.rows.setItemDelegateForColumn(col, self._one_line)
        self.rows_model.loaded.connect(self._fit_references)
        below_column.addWidget(self.rows, 1)
        split.addWidget(below)
        split.setSizes([300, 340])
        column.addWidget(split, 1)

        bottom = QHBoxLayout()
        self.check_all = widgets.button(_("Check all open"), "batch-check-all-open")
        self.resume = widgets.button(_("Resume"), "batch-resume")
        self.resume.setToolTip(_("Send the rows of this batch not sent yet"))
        self.results = widgets.button(_("Save results…"), "batch-save-results")
        self.qr = widgets.button(_("QR sheet…"), "batch-qr-sheet")
        self.email = widgets.button(_("E-mail links…"), "batch-email-links")
        for button in (self.check_all, self.resume, self.results, self.qr, self.email):
            bottom.addWidget(button)
        bottom.addStretch(1)
        column.addLayout(bottom)
        # what was done, on a line of its own kept while empty: nothing moves when it comes; a
        # saved file's long path shortened in its middle (its name whole, the whole on hover)
        self.said = ElidedLabel("", mode=Qt.TextElideMode.ElideMiddle, keep_room=True)
        self.said.setObjectName("batches-said")
        column.addWidget(self.said)

        close = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)  # as a dialog closes
        close.activated.connect(self.close)
        self.table.selectionModel().selectionChanged.connect(self._selected)
        self.model.loaded.connect(self._select_first)
        self.check_all.clicked.connect(lambda: self.tasks.replace("check batch", self.check_all_open()))
        self.resume.clicked.connect(lambda: self.tasks.replace("resume batch", self.resume_batch()))
        self.results.clicked.connect(
            lambda: self._out("results", lambda batch: actions.results(self, self.book, batch))
        )
        self.qr.clicked.connect(
            lambda: self._out("qr-sheet", lambda batch: actions.qr_sheet(self, self.session, self.book, batch))
        )
        self.email.clicked.connect(lambda: self._out("email", self._email))
        signals = signals_of(session.hub)
        signals.batchChanged.connect(self._batch_changed)
        signals.linkChanged.connect(self._link_changed)
        signals.changed.connect(self.reload)
        self._dirty: set[int] = set()  # batches whose figures are to be counted again
        self._refs: set[str] = set()  # references of links that changed: whose batch?
        self._live = QTimer(self)
        self._live.setSingleShot(True)
        self._live.setInterval(LIVE_EVERY_MS)
        self._live.timeout.connect(self._count_again)
        self.shown_batch: Batch | None = None
        say(self.said, "")
        self._enable()
        self.reload()

    # -- the lists -------------------------------------------------------------------------

    def reload(self, *_args: object) -> None:
        profile = self.session.profile
        if profile is None:
            return
        self.tasks.replace("batches", self._load((profile.id, self.session.mode)))

    async def _load(self, query: tuple[str, str]) -> None:
        try:
            await self.model.load(query)
            unfinished = [b for b in await self.book.unfinished(*query) if not self.controller.running(b.id)]
        except LedgerError as error:  # a shared ledger out of reach: the list stays
            say(self.said, _("Could not read the batches: {error}").format(error=error))
            return
        n = len(unfinished)
        say(
            self.said,
            ngettext(
                "{n} batch has rows not sent yet (PayDesk was stopped, or it was cancelled): "
                "choose it and press Resume",
                "{n} batches have rows not sent yet (PayDesk was stopped, or they were cancelled): "
                "choose one and press Resume",
                n,
            ).format(n=number_in(n, staff()))
            if n
            else "",
        )

    def _select_first(self) -> None:
        if self.shown_batch is None and self.model.rowCount():
            self.table.selectRow(0)
        elif self.shown_batch is not None:
            row = self.model.row_of(self.shown_batch.id)
            if row is not None:
                self.table.selectRow(row)

    def _selected(self, *_args: object) -> None:
        rows = self.table.selectionModel().selectedRows()
        batch = self.model.at(rows[0].row()) if len(rows) == 1 else None
        if batch is not None and self.shown_batch is not None and batch.id == self.shown_batch.id:
            self.shown_batch = batch
            self._enable()
            return
        self.shown_batch = batch
        self.rows_caption.setText(
            _("&Rows of {batch}:").format(batch=batch.name) if batch else _("&Rows of the batch:")
        )
        self.tasks.replace("batch rows", self._load_rows(batch.id if batch else None))
        self._enable()

    def _fit_references(self) -> None:
        """The reference columns as wide as the references shown (up to REF_CHARS
        characters; a longer one is elided in the middle, whole in its tooltip)."""
        most = QFontMetrics(fixed_font(self.rows.font())).horizontalAdvance("0" * REF_CHARS)
        for col in BatchRowsModel.REFERENCES:
            wanted = min(self.rows.sizeHintForColumn(col) + ROOM, most + CELL_PADDING)
            if wanted > self.rows.columnWidth(col):
                self.rows.setColumnWidth(col, wanted)

    async def _load_rows(self, batch_id: int | None) -> None:
        try:
            await self.rows_model.load(batch_id)
        except LedgerError as error:
            say(self.said, _("Could not read the batch's rows: {error}").format(error=error))

    def _enable(self) -> None:
        batch = self.shown_batch
        row = self.model.row_of(batch.id) if batch is not None else None
        figures = self.model.rows[row][1] if row is not None else None
        running = batch is not None and self.controller.running(batch.id)
        left = figures is not None and figures.waiting + figures.creating > 0
        self.resume.setEnabled(batch is not None and left and not running)
        for button in (self.check_all, self.results, self.qr, self.email):
            button.setEnabled(batch is not None)

    # -- live ------------------------------------------------------------------------------

    def _batch_changed(self, batch_id: int) -> None:
        self._dirty.add(batch_id)
        if not self._live.isActive():
            self._live.start()

    def _link_changed(self, record: LinkRecord) -> None:
        """A link changed (created, paid): the batches shown may count it."""
        query = self.model.query
        if query is None or (record.profile_id, record.mode) != query:
            return
        if len(self._refs) < REFS_AT_ONCE:
            self._refs.add(record.tx_ref)
        else:  # a flood of changes: the newest batches, where payments come in
            self._dirty.update(self.model.ids()[:20])
        if not self._live.isActive():
            self._live.start()

    def _count_again(self) -> None:
        dirty, self._dirty = self._dirty, set()
        refs, self._refs = self._refs, set()
        self.tasks.spawn(self._recount(dirty, refs), "batches: count again")

    async def _recount(self, batch_ids: set[int], refs: AbstractSet[str] = frozenset()) -> None:
        query = self.model.query
        try:
            for ref in refs:  # the batch of a link that changed (if it is a batch's)
                found = await self.book.batch_of(query[0], ref) if query else None
                if found is not None:
                    batch_ids.add(found)
            for batch_id in sorted(batch_ids):
                batch = await self.book.batch(batch_id)
                if batch is None:
                    continue
                self.model.changed(batch, await self.book.figures(batch_id))
            if self.shown_batch is not None and self.shown_batch.id in batch_ids:
                await self.rows_model.refresh()
        except LedgerError as error:
            log.info("could not count the batches again: %s", error)
        self._enable()

    # -- actions ---------------------------------------------------------------------------

    async def check_all_open(self) -> object:
        batch = self.shown_batch
        if batch is None:
            return None
        self.check_all.setEnabled(False)
        say(self.said, _("Checking the open links of {batch}…").format(batch=batch.name))
        try:
            result = await self.controller.check_all_open(batch.id)
        except LedgerError as error:  # a shared ledger out of reach: nothing asked
            say(self.said, str(error))
            return None
        finally:
            self.check_all.setEnabled(True)
        say(
            self.said, _("Checked the open links of {batch}: {report}").format(batch=batch.name, report=result.report())
        )
        await self._recount({batch.id})
        return result

    async def resume_batch(self) -> None:
        batch = self.shown_batch
        if batch is None or self.controller.running(batch.id):
            return
        self.resume.setEnabled(False)
        try:
            await self.controller.start(batch)
        except BatchRefused as error:
            say(self.said, error.message)
        except LedgerError as error:  # a shared ledger out of reach: nothing sent
            say(self.said, str(error))
        else:
            say(self.said, _("Sending the rows of {batch} not sent yet…").format(batch=batch.name))
        self._enable()

    def _out(self, name: str, work: Callable[[Batch], Awaitable[str | None]]) -> None:
        """Save results…, QR sheet…, E-mail links…: read from the ledger, so refused (before
        their dialog opens) while a shared ledger is out of reach."""
        refusal = self.session.refusal()
        batch = self.shown_batch
        if batch is None or refusal is not None:
            if refusal is not None:
                say(self.said, refusal)
            return
        self.tasks.replace(name, self._said_after(work(batch)))

    async def _said_after(self, work: Awaitable[str | None]) -> None:
        said = await work
        if isinstance(said, str):
            say(self.said, said)

    async def _email(self, batch: Batch) -> None:
        await actions.email(self, self.session, self.book, batch)
        await self._recount({batch.id})  # the E-mail sent column
