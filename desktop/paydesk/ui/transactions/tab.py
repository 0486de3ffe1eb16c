"""The Transactions tab: look any payment up, browse the ledger, check every open one,
export, print receipts, and the end-of-day figures. Here its layout and what it shows; what
it does (lookup, actions on a record, check all, export) is in ``tab_actions.py``."""

from __future__ import annotations

import logging
from dataclasses import replace

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...desk.formats import number_in
from ...desk.session import Session
from ...desk.transactions import TransactionsController
from ...i18n import _, ngettext, staff
from ...ledger import LedgerError, LinkQuery, LinkRecord
from ...ledger.counter import Sale
from .. import widgets
from ..as_of import AsOf
from ..field_message import FieldMessage
from ..fixed_text import use_fixed
from ..passing import Passing
from ..scrolled import DownScrollArea
from ..signals import signals_of
from .details import DetailsPanel
from .end_of_day import open_end_of_day
from .filters import FilterBar
from .follow import LedgerFollower
from .model import CREATED, LedgerModel
from .tab_actions import TabActions
from .workbar import WorkBar

log = logging.getLogger("paydesk.transactions.tab")


class TransactionsTab(TabActions, QWidget):
    showQrRequested = Signal(object)  # show this LinkRecord's QR on the links tab

    def __init__(self, session: Session, controller: TransactionsController):
        super().__init__()
        self.setObjectName("tab-transactions")
        self.setAccessibleName(_("Transactions"))
        self.session, self.controller = session, controller
        self.tasks = session.tasks.child(self)
        column = QVBoxLayout(self)

        lookup_row = QHBoxLayout()
        caption = QLabel(_("&Look up:"))
        self.lookup_box = QLineEdit()
        self.lookup_box.setObjectName("lookup-box")
        self.lookup_box.setAccessibleName(_("Look up"))
        self.lookup_box.setPlaceholderText(_("type, paste or scan a reference or a payment link, then Enter"))
        use_fixed(self.lookup_box)
        caption.setBuddy(self.lookup_box)
        self.lookup_button = QPushButton(_("Look up"))
        self.lookup_button.setObjectName("lookup-button")
        self.lookup_button.setAccessibleName(_("Look up"))
        lookup_row.addWidget(caption)
        lookup_row.addWidget(self.lookup_box, 1)
        lookup_row.addWidget(self.lookup_button)
        column.addLayout(lookup_row)
        self.lookup_message = FieldMessage("lookup-box")
        column.addWidget(self.lookup_message)

        split = QSplitter(Qt.Orientation.Horizontal)
        left = QWidget()
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        self.filters = FilterBar()
        left_column.addWidget(self.filters)
        self.model = LedgerModel(session.ledger, self.tasks)
        self.table = widgets.record_table("ledger-table", self.model, _("Ledger"), (230, 150, 210, 90, 70, 170, 140))
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(24)
        header = self.table.horizontalHeader()
        header.setSortIndicator(CREATED, Qt.SortOrder.DescendingOrder)
        self.table.setSortingEnabled(True)
        # each heading whole in any language: a column at least as wide as its heading, the
        # last (stretched) too when there is no room left to stretch it into
        for section in range(self.model.columnCount()):
            self.table.setColumnWidth(section, max(self.table.columnWidth(section), header.sectionSizeHint(section)))
        last = self.model.columnCount() - 1
        header.setDefaultSectionSize(max(header.defaultSectionSize(), header.sectionSizeHint(last)))
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        left_column.addWidget(self.table, 1)
        tools = QHBoxLayout()
        self.check_all = QPushButton(_("Check all open"))
        self.export_button = QPushButton(_("Export…"))
        self.end_of_day = QPushButton(_("End of day…"))
        for button, name in (
            (self.check_all, "check-all-open"),
            (self.export_button, "export"),
            (self.end_of_day, "end-of-day-button"),
        ):
            button.setObjectName(name)
            button.setAccessibleName(button.text().rstrip("…"))
            tools.addWidget(button)
        self.count = QLabel("")
        self.count.setObjectName("ledger-count")
        tools.addStretch(1)
        tools.addWidget(self.count)
        left_column.addLayout(tools)
        self.work = WorkBar()
        left_column.addWidget(self.work)
        split.addWidget(left)
        self.details = DetailsPanel()
        # scrolled up and down, not squeezed nor scrolled sideways: a long e-mail or title
        # wraps, never widens the window past the screen, nor is cut
        split.addWidget(DownScrollArea(self.details, _("Transaction details")))
        split.setSizes([760, 420])
        column.addWidget(split, 1)

        self._actions()
        self.lookup_box.textChanged.connect(self._typed)
        self.lookup_box.returnPressed.connect(self.start_lookup)
        self.lookup_button.clicked.connect(self.start_lookup)
        self.filters.changed.connect(self.requery)
        self.table.selectionModel().selectionChanged.connect(self._selected)
        self.table.customContextMenuRequested.connect(self._menu)
        self.model.modelAboutToBeReset.connect(self._remember_selection)
        self.model.queryLoaded.connect(self._loaded)
        self.model.countKnown.connect(self._show_count)
        # the count is what is listed, whatever changed it: a new link on top, a requery
        self.model.rowsInserted.connect(self._show_count)
        self.model.rowsRemoved.connect(self._show_count)
        self.details.actionRequested.connect(self.act)
        self.check_all.clicked.connect(self.start_reconcile)
        self.export_button.clicked.connect(self.start_export)
        self.end_of_day.clicked.connect(
            lambda: self.tasks.replace("end of day", open_end_of_day(controller, self.tasks, self))
        )
        self.work.showChanged.connect(self.show_only)
        self._enable_actions(None)
        signals = signals_of(session.hub)
        signals.linkChanged.connect(self._changed)
        signals.saleChanged.connect(self._sale_changed)  # voided at a counter: its state words
        signals.changed.connect(self.reload)
        # a shared ledger out of reach: the list is what it was then (it catches up once
        # the ledger is back: ``follow.py``)
        self.as_of = AsOf(session, self)
        self.as_of.changed.connect(self._show_count)
        self.passing = Passing(session, self)  # a refusal said goes when its cause goes
        self._only: frozenset[str] = frozenset()  # a reconcile's rows, when "Show these" is on
        self._kept: tuple[str, str] | None = None  # the selected record, across a new query
        self.loaded = False
        # another window's writes to the same ledger file (follow.py)
        self.follow = LedgerFollower(session.ledger, self.model, self.tasks)
        self.follow.stale.connect(self.requery)
        self.follow.changed.connect(self._changed)
        self._again = QTimer(self, singleShot=True, interval=300)  # a filtered list, after a change
        self._again.timeout.connect(self._look_again)
        self._requery_due = False
        self.reload()

    # -- state ---------------------------------------------------------------------------

    def reload(self) -> None:
        profile = self.session.profile
        self.setEnabled(profile is not None)
        if profile is None:
            self.model.clear()
            return
        self.filters.set_currencies(profile.currencies)
        if self.details.record and (self.details.record.profile_id, self.details.record.mode) != (
            profile.id,
            self.session.mode,
        ):
            self.details.show_record(None)
        self.requery()

    def current_query(self) -> LinkQuery:
        profile = self.session.active()[0]
        base = (
            self.model.query
            if self.model.query
            and (self.model.query.profile_id, self.model.query.mode) == (profile.id, self.session.mode)
            else None
        )
        query = self.filters.query(profile.id, self.session.mode, base)
        if self._only:
            query = replace(query, tx_refs=self._only)
        return query

    def requery(self) -> None:
        """The filters or the search changed: the previous query is cancelled, this one runs."""
        if self.session.profile is None:
            return
        if self.sender() is self.filters:
            self._only = frozenset()
        self.tasks.replace("query", self.model.set_query(self.current_query()))

    def show_only(self, tx_refs: frozenset[str]) -> None:
        """Only these records (what the last check changed or could not check); an empty
        set: everything again."""
        self._only = tx_refs
        self.tasks.replace("query", self.model.set_query(self.current_query()))

    def _remember_selection(self) -> None:
        record = self.selected() or self.details.record
        self._kept = record.key if record is not None else None

    def _show_count(self) -> None:
        total = self.model.rowCount()
        text = (
            ngettext("{n} record", "{n} records", total).format(n=number_in(total, staff()))
            if self.model.counted
            else _("counting…")
        )
        if self._only:
            text += _(" (what the last check changed or could not check)")
        text += self.as_of.suffix()
        self.count.setText(text)
        self.count.setAccessibleName(text)

    def _loaded(self) -> None:
        self._show_count()
        if self._kept is not None:  # the same record stays selected when it is still listed
            row = self.model.row_of(self._kept)
            if row is not None:
                self.table.selectRow(row)
        self.loaded = True

    def _changed(self, record: LinkRecord) -> None:
        if not self.model.update(record):
            return  # a word older than its row's, heard late (a shared ledger's reads)
        self.details.update_record(record)
        query = self.model.query
        if query is None or (record.profile_id, record.mode) != (query.profile_id, query.mode):
            return
        listed = self.model.row_of(record.key) is not None
        if (query.states or query.voided is not None) and listed != query.admits_state(record):
            self._soon(requery=True)  # it joined or left a list filtered by state
        elif not listed:  # perhaps new in a sorted, filtered or searched view (another desk's)
            self._soon(requery=False)

    def _sale_changed(self, sale: Sale) -> None:
        """A counter's sale was made, voided or decided (here or at another desk): its record,
        read with the sale, shows it."""
        if sale.record is not None:
            self._changed(sale.record)

    def _soon(self, *, requery: bool) -> None:
        """Read the list again within 300 ms (``requery``), or count it and read it again if
        the count differs. Not restarted while it waits: under a steady stream of changes
        the list is still read at most every 300 ms, never starved."""
        self._requery_due = self._requery_due or requery
        if not self._again.isActive():
            self._again.start()

    def _look_again(self) -> None:
        due, self._requery_due = self._requery_due, False
        if due:
            self.requery()
        else:
            self.tasks.replace("recount", self._recount())

    async def _recount(self) -> None:
        """A record not listed changed: read the list again when it holds a different number
        of records than the ledger has for the query (a new one that matches it)."""
        query = self.model.query
        if query is None or not self.model.counted:
            return  # a query on its way reads the ledger as it is now
        try:
            total = await self.session.ledger.count(query)
        except LedgerError as error:  # out of reach: the list stays, marked as of
            log.info("could not count the list: %s", error)
            return
        if query is self.model.query and total != self.model.rowCount():
            self.requery()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.follow.start()

    def hideEvent(self, event: QHideEvent) -> None:
        self.follow.stop()
        super().hideEvent(event)

    def _selected(self, *_unused: object) -> None:
        record = self.selected()
        self._enable_actions(record or self.details.record)
        if record is not None and (self.details.record is None or self.details.record.key != record.key):
            self.tasks.replace("details", self._show(record))

    async def _show(self, record: LinkRecord) -> None:
        try:
            full = await self.controller.ledger.get(record.profile_id, record.tx_ref)
        except LedgerError as error:  # out of reach: the row as listed (marked as of)
            log.info("the chosen payment could not be read again: %s", error)
            full = None
        self.details.show_record(full or record)

    def selected(self) -> LinkRecord | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.record_at(rows[0].row()) if len(rows) == 1 else None
