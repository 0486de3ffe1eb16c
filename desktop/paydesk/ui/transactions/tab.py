"""The Transactions tab: look any payment up, browse the ledger, check every open one,
export, print receipts, and the end-of-day figures."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import date

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QMenu, QPushButton, QSplitter, QTableView, QVBoxLayout, QWidget)

from ...ledger import LinkQuery, LinkRecord
from ..field_message import FieldMessage
from ..fixed_text import use_fixed
from ...desk.session import Session
from . import actions
from ...desk.transactions import TransactionsController
from .details import DetailsPanel
from .end_of_day import open_end_of_day
from .filters import FilterBar
from .follow import LedgerFollower
from .model import CREATED, LedgerModel
from ...desk.lookup import read
from .workbar import WorkBar
from ..signals import signals_of

log = logging.getLogger("paydesk.transactions.tab")


class TransactionsTab(QWidget):
    showQrRequested = Signal(object)  # show this LinkRecord's QR on the links tab

    def __init__(self, session: Session, controller: TransactionsController):
        super().__init__()
        self.setObjectName("tab-transactions")
        self.setAccessibleName("Transactions")
        self.session, self.controller = session, controller
        self.tasks = session.tasks.child(self)
        column = QVBoxLayout(self)

        lookup_row = QHBoxLayout()
        caption = QLabel("&Look up:")
        self.lookup_box = QLineEdit()
        self.lookup_box.setObjectName("lookup-box")
        self.lookup_box.setAccessibleName("Look up")
        self.lookup_box.setPlaceholderText("type, paste or scan a reference or a payment link, then Enter")
        use_fixed(self.lookup_box)
        caption.setBuddy(self.lookup_box)
        self.lookup_button = QPushButton("Look up")
        self.lookup_button.setObjectName("lookup-button")
        self.lookup_button.setAccessibleName("Look up")
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
        self.table = QTableView()
        self.table.setObjectName("ledger-table")
        self.table.setAccessibleName("Ledger")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(24)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for col, width in enumerate((230, 150, 210, 90, 70, 170, 140)):
            self.table.setColumnWidth(col, width)
        header.setStretchLastSection(True)
        header.setSortIndicator(CREATED, Qt.SortOrder.DescendingOrder)
        self.table.setSortingEnabled(True)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        left_column.addWidget(self.table, 1)
        tools = QHBoxLayout()
        self.check_all = QPushButton("Check all open")
        self.export_button = QPushButton("Export…")
        self.end_of_day = QPushButton("End of day…")
        for button, name in ((self.check_all, "check-all-open"), (self.export_button, "export"),
                             (self.end_of_day, "end-of-day-button")):
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
        split.addWidget(self.details)
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
        self.end_of_day.clicked.connect(lambda: self.tasks.replace(
            "end of day", open_end_of_day(controller, self.tasks, self)))
        self.work.showChanged.connect(self.show_only)
        self._enable_actions(None)
        signals = signals_of(session.hub)
        signals.linkChanged.connect(self._changed)
        signals.changed.connect(self.reload)
        self._only: frozenset[str] = frozenset()  # a reconcile's rows, when "Show these" is on
        self._kept: tuple[str, str] | None = None  # the selected record, across a new query
        self.loaded = False
        # another window's writes to the same ledger file (follow.py)
        self.follow = LedgerFollower(session.ledger, self.model, self.tasks)
        self.follow.stale.connect(self.requery)
        self.follow.changed.connect(self._changed)
        self._again = QTimer(self, singleShot=True, interval=300)  # a filtered list, after a change
        self._again.timeout.connect(self.requery)
        self.reload()

    def _actions(self) -> None:
        """Keyboard and context menu on the table: the same actions as the details panel."""
        self.menu_actions: dict[str, QAction] = {}
        for key, text, shortcut in (
                ("copy-reference", "Copy reference", QKeySequence.StandardKey.Copy),
                ("copy-link", "Copy link", "Ctrl+Shift+C"), ("show-qr", "Show QR", "Ctrl+Shift+Q"),
                ("check", "Check now", "Ctrl+R"), ("receipt-print", "Print receipt…", "Ctrl+P")):
            action = QAction(text, self.table)
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(lambda _=False, k=key: self._on_selected(k))
            self.table.addAction(action)
            self.menu_actions[key] = action
        refresh = QAction("Refresh", self)
        refresh.setShortcut(QKeySequence("F5"))
        refresh.triggered.connect(self.requery)
        self.addAction(refresh)

    # -- state ---------------------------------------------------------------------------

    def reload(self) -> None:
        profile = self.session.profile
        self.setEnabled(profile is not None)
        if profile is None:
            self.model.clear()
            return
        self.filters.set_currencies(profile.currencies)
        if self.details.record and (self.details.record.profile_id, self.details.record.mode) != (
                profile.id, self.session.mode):
            self.details.show_record(None)
        self.requery()

    def current_query(self) -> LinkQuery:
        profile = self.session.profile
        base = self.model.query if self.model.query and (
            self.model.query.profile_id, self.model.query.mode) == (profile.id, self.session.mode) else None
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
        text = f"{total:,} record{'s' if total != 1 else ''}" if self.model.counted else "counting…"
        if self._only:
            text += " (what the last check changed or could not check)"
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
        self.model.update(record)
        self.details.update_record(record)
        query = self.model.query
        if query is None or (record.profile_id, record.mode) != (query.profile_id, query.mode):
            return
        listed = self.model.row_of(record.key) is not None
        if query.states and listed != (record.state in query.states):
            self._again.start()  # it joined or left a list filtered by state: read it again

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.follow.start()

    def hideEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.follow.stop()
        super().hideEvent(event)

    def _selected(self, *_: object) -> None:
        record = self.selected()
        self._enable_actions(record or self.details.record)
        if record is not None and (self.details.record is None or self.details.record.key != record.key):
            self.tasks.replace("details", self._show(record))

    async def _show(self, record: LinkRecord) -> None:
        full = await self.controller.ledger.get(record.profile_id, record.tx_ref)
        self.details.show_record(full or record)

    def selected(self) -> LinkRecord | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.record_at(rows[0].row()) if len(rows) == 1 else None

    # -- lookup ---------------------------------------------------------------------------

    def focus_lookup(self) -> None:
        self.lookup_box.setFocus()
        self.lookup_box.selectAll()

    def _typed(self, text: str) -> None:
        """A mistyped PayDesk reference is said at once, before anything is sent."""
        prefixes = frozenset(p.txref_prefix.upper() for p in self.session.settings.profiles)
        problem = read(text, prefixes).problem if text.strip() else None
        self.lookup_message.say(problem)

    def start_lookup(self) -> None:
        self.tasks.replace("lookup", self.lookup(self.lookup_box.text()))

    async def lookup(self, text: str):
        self.lookup_button.setEnabled(False)
        try:
            found = await self.controller.lookup(text)
        finally:
            self.lookup_button.setEnabled(True)
        if found.record is None:
            self.lookup_message.say(found.message)
            self.details.show_record(None)
            return found
        self.lookup_message.say(None)
        self.details.show_record(found.record, found.message)
        self._enable_actions(found.record)
        row = self.model.row_of(found.record.key)
        if row is not None:
            self.table.selectRow(row)
        return found

    # -- actions on one record --------------------------------------------------------------

    def _on_selected(self, key: str) -> None:
        record = self.selected() or self.details.record
        if record is not None:
            self.act(key, record)

    def _menu(self, point) -> None:
        record = self.selected()
        if record is None:
            return
        self._enable_actions(record)
        menu = QMenu(self)
        menu.setObjectName("ledger-menu")
        for action in self.menu_actions.values():
            menu.addAction(action)
        menu.aboutToHide.connect(menu.deleteLater)
        menu.popup(self.table.viewport().mapToGlobal(point))

    def _enable_actions(self, record: LinkRecord | None) -> None:
        """What can be done with the selected record (menu and keyboard alike)."""
        has = record is not None
        link = has and bool(record.checkout_url)
        for key, enabled in (("copy-reference", has), ("copy-link", link), ("show-qr", link),
                             ("check", has), ("receipt-print", has and record.state == "success")):
            self.menu_actions[key].setEnabled(enabled)

    def act(self, key: str, record: LinkRecord) -> None:
        profile = self.session.settings.profile(record.profile_id) or self.session.profile
        merchant = profile.shown_name  # as customers know it, not the profile's own name
        if key == "copy-reference":
            QGuiApplication.clipboard().setText(record.tx_ref)
        elif key == "copy-link" and record.checkout_url:
            QGuiApplication.clipboard().setText(record.checkout_url)
        elif key == "show-qr" and record.checkout_url:
            self.showQrRequested.emit(record)
        elif key == "check":
            self.tasks.replace("lookup", self._check(record))
        elif key == "receipt-print" and record.state == "success":
            self.tasks.replace("receipt", self._print(record, merchant))
        elif key == "receipt-pdf" and record.state == "success":
            self.tasks.replace("receipt", actions.save_receipt(
                self, record, merchant, record.mode == "test"))

    async def _print(self, record: LinkRecord, merchant: str) -> bool | None:
        printed = await actions.print_receipt(self, record, merchant, record.mode == "test")
        if printed is False:
            self.details.say("Could not print: the printer refused the page")
        return printed

    async def _check(self, record: LinkRecord) -> None:
        found = await self.controller.check(record.tx_ref)
        self.details.show_record(found.record or record, found.message)

    # -- reconcile and export ------------------------------------------------------------------

    def start_reconcile(self) -> None:
        if self.work.busy:
            return
        task = self.tasks.replace("reconcile", self.reconcile())
        self.work.start(task)

    async def reconcile(self):
        latest = []

        def progress_made(progress) -> None:
            latest[:] = [progress]
            self.work.reconciling(progress)

        try:
            progress = await self.controller.reconcile(progress_made)
        except asyncio.CancelledError:
            if latest:  # what changed before Cancel can still be shown
                self.work.reconciled(latest[0], cancelled=True)
            raise
        self.work.reconciled(progress)
        return progress

    def start_export(self) -> None:
        if not self.work.busy and not self.exporting:  # a second click never cancels the first
            self.tasks.replace("export", self.export())

    exporting = False  # the save dialog or the export itself is under way

    async def export(self):
        if self.work.busy or self.exporting:
            return None
        self.exporting = True
        try:
            return await self._export()
        finally:
            self.exporting = False

    async def _export(self):
        profile, mode = self.session.profile, self.session.mode
        path = await actions.save_path(
            self, "Export the list", ["CSV (*.csv)", "Excel workbook (*.xlsx)"],
            f"paydesk-{profile.name}-{mode}-{date.today()}.csv".replace(" ", "-"))
        if path is None:
            return None
        query, total = self.current_query(), self.model.total
        task = self.tasks.replace("exporting", self.controller.export(
            query, path, lambda n: self.work.exporting(n, total)))
        self.work.start(task, total)
        written = await task
        self.work.say(f"Exported {written} records to {path.name}")
        return path
