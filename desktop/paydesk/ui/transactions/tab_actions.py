"""What the Transactions tab does, apart from its layout (``tab.py``): the lookup, the
actions on one record (details panel, context menu and keyboard alike), "Check all open" and
the export of the list. The standard dialogs they open are in ``actions.py``."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QMenu

from ...desk.formats import number_in
from ...desk.lookup import read
from ...desk.staff import NotAllowed
from ...i18n import _, ngettext, staff
from ...ledger import LedgerError, LinkQuery, LinkRecord
from . import actions

if TYPE_CHECKING:  # what the tab it is mixed into holds, for the type check
    from pathlib import Path

    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QLineEdit, QPushButton, QTableView, QWidget

    from ...desk.session import Session
    from ...desk.tasks import TaskSet
    from ...desk.transactions import Lookup, Progress, TransactionsController
    from ..field_message import FieldMessage
    from ..passing import Passing
    from .details import DetailsPanel
    from .model import LedgerModel
    from .workbar import WorkBar

    _Tab = QWidget
else:
    _Tab = object


class TabActions(_Tab):
    """The action handlers of ``TransactionsTab`` (mixed into it): they use the tab's
    session, controller, tasks and widgets (lookup box and message, table, model, details
    panel, work bar) and its ``showQrRequested`` signal."""

    if TYPE_CHECKING:
        showQrRequested: SignalInstance
        session: Session
        controller: TransactionsController
        tasks: TaskSet
        lookup_box: QLineEdit
        lookup_button: QPushButton
        lookup_message: FieldMessage
        model: LedgerModel
        table: QTableView
        work: WorkBar
        details: DetailsPanel
        passing: Passing

        def requery(self) -> None: ...
        def current_query(self) -> LinkQuery: ...
        def selected(self) -> LinkRecord | None: ...

    # -- keyboard and context menu -----------------------------------------------------------

    def _actions(self) -> None:
        """Keyboard and context menu on the table: the same actions as the details panel."""
        self.menu_actions: dict[str, QAction] = {}
        for key, text, shortcut in (
            ("copy-reference", _("Copy reference"), QKeySequence.StandardKey.Copy),
            ("copy-link", _("Copy link"), QKeySequence("Ctrl+Shift+C")),
            ("show-qr", _("Show QR"), QKeySequence("Ctrl+Shift+Q")),
            ("check", _("Check now"), QKeySequence("Ctrl+R")),
            ("receipt-print", _("Print receipt…"), QKeySequence("Ctrl+P")),
        ):
            action = QAction(text, self.table)
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(lambda _checked=False, k=key: self._on_selected(k))
            self.table.addAction(action)
            self.menu_actions[key] = action
        refresh = QAction(_("Refresh"), self)
        refresh.setShortcut(QKeySequence("F5"))
        refresh.triggered.connect(self.requery)
        self.addAction(refresh)

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

    async def lookup(self, text: str) -> Lookup:
        self.lookup_button.setEnabled(False)
        try:
            found = await self.controller.lookup(text)
        finally:
            self.lookup_button.setEnabled(True)
        # the list's selection and the pane agree: the row of what was found is selected,
        # and no other (nothing found, or not listed): an old row left selected under a
        # blank pane, or another record's, would take Ctrl+P or Ctrl+R to a payment the
        # user has moved away from
        row = None if found.record is None else self.model.row_of(found.record.key)
        if row is None:
            self.table.clearSelection()
        if found.record is None:
            self.lookup_message.say(found.message)
            self.passing.said(self.lookup_message, found.message, found.refused)
            self.details.show_record(None)
            self._enable_actions(None)
            return found
        self.lookup_message.say(None)
        self.details.show_record(found.record, found.message)
        self._enable_actions(found.record)
        if row is not None:
            self.table.selectRow(row)
        return found

    # -- actions on one record --------------------------------------------------------------

    def _on_selected(self, key: str) -> None:
        record = self.selected() or self.details.record
        if record is not None:
            self.act(key, record)

    def _menu(self, point: QPoint) -> None:
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
        link = record is not None and bool(record.checkout_url)
        paid = record is not None and record.state == "success"
        for key, enabled in (
            ("copy-reference", has),
            ("copy-link", link),
            ("show-qr", link),
            ("check", has),
            ("receipt-print", paid),
        ):
            self.menu_actions[key].setEnabled(enabled)

    def act(self, key: str, record: LinkRecord) -> None:
        profile = self.session.settings.profile(record.profile_id) or self.session.active()[0]
        merchant = profile.shown_name  # as customers know it, not the profile's own name
        if key == "copy-reference":
            QGuiApplication.clipboard().setText(record.tx_ref)
        elif key == "copy-link" and record.checkout_url:
            QGuiApplication.clipboard().setText(record.checkout_url)
        elif key == "show-qr" and record.checkout_url:
            self.showQrRequested.emit(record)
        elif key == "check":
            self.tasks.replace("lookup", self._check(record))
        elif key in ("receipt-print", "receipt-pdf") and record.state == "success":
            # the ledger's word on it may be out of date (a refund since): no receipt then
            if self.passing.refused_now(self.details.message, self.details.say, lambda: self.details.say(None)):
                return
            self.tasks.replace("receipt", self._receipt(key, record, merchant, profile.customer_language))

    async def _receipt(self, key: str, record: LinkRecord, merchant: str, language: str) -> str | None:
        """Print receipt… or Save receipt as PDF…, in the customer's language: where it went,
        said in the details pane (the desk refuses a person who may not give receipts: its
        sentence, no dialog)."""
        try:
            self.controller.receipt(record, merchant, language)
        except NotAllowed as refused:
            self.details.say(refused.message)
            return refused.message
        test = record.mode == "test"
        said = await (
            actions.print_receipt(self, record, merchant, test, language)
            if key == "receipt-print"
            else actions.save_receipt(self, record, merchant, test, language)
        )
        if said is not None:
            self.details.say(said)
        return said

    async def _check(self, record: LinkRecord) -> None:
        found = await self.controller.check(record.tx_ref)
        self.details.show_record(found.record or record, found.message)
        self.passing.said(self.details.message, found.message, found.refused, lambda: self.details.say(None))

    # -- reconcile and export ------------------------------------------------------------------

    def start_reconcile(self) -> None:
        if self.work.busy:
            return
        task = self.tasks.replace("reconcile", self.reconcile())
        self.work.start(task)

    async def reconcile(self) -> Progress | None:
        latest: list[Progress] = []

        def progress_made(progress: Progress) -> None:
            latest[:] = [progress]
            self.work.reconciling(progress)

        try:
            progress = await self.controller.reconcile(progress_made)
        except LedgerError as refused:  # a shared ledger out of reach: nothing asked
            self._work_refused(refused)
            return None
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

    async def export(self) -> Path | None:
        if self.work.busy or self.exporting:
            return None
        self.exporting = True
        try:
            return await self._export()
        finally:
            self.exporting = False

    def _work_refused(self, refused: LedgerError) -> None:
        self.work.say(str(refused))
        self.passing.said(self.work.report, str(refused), refused, lambda: self.work.say(""))

    async def _export(self) -> Path | None:
        profile, mode = self.session.active()
        if self.passing.refused_now(self.work.report, self.work.say, lambda: self.work.say("")):
            return None  # the save dialog is not opened
        path = await actions.save_path(
            self,
            _("Export the list"),
            [actions.name_filter(*actions.CSV), actions.name_filter(*actions.XLSX)],
            f"paydesk-{profile.name}-{mode}-{date.today()}.csv".replace(" ", "-"),
        )
        if path is None:
            return None
        query, total = self.current_query(), self.model.total
        task = self.tasks.replace(
            "exporting",
            self.controller.export(query, path, lambda n: self.work.exporting(n, total)),
            expected=(LedgerError,),
        )
        self.work.start(task, total)
        try:
            written = await task
        except LedgerError as refused:  # gone meanwhile: the previous file stays
            self._work_refused(refused)
            return None
        self.work.say(
            ngettext("Exported {n} record to {path}", "Exported {n} records to {path}", written).format(
                n=number_in(written, staff()), path=path
            )
        )
        return path
