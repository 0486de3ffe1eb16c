"""The Payment links tab: the form, the link on screen, recent links. (Counter sales have
their own tab, ui/counter.)"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QSystemTrayIcon,
    QVBoxLayout,
    QWidget,
)

from ...desk.budget_words import waiting_text
from ...desk.formats import money_in
from ...desk.leases import NoKeyError
from ...desk.links import LinksController
from ...desk.scheduler import Scheduler
from ...desk.session import Session
from ...desk.staff import Capability
from ...desk.states import state_words
from ...i18n import _, customer, pgettext, staff
from ...ledger import LedgerError, LinkRecord
from ...service.call_class import waits_shown_by
from ...service.errors import ServiceError, ValidationError
from ..as_of import AsOf
from ..scrolled import DownScrollArea
from ..signals import signals_of
from .form import LinkForm
from .panel import LinkPanel
from .recent import RecentLinks

if TYPE_CHECKING:
    from .website import SnippetsDialog  # (imported when first asked for)

log = logging.getLogger("paydesk.links.tab")


class LinksTab(QWidget):
    notified = Signal(str)  # the desktop notification just given (PayDesk in the background)
    bulkRequested = Signal()  # "Bulk links…": the main window opens its window

    def __init__(self, session: Session, controller: LinksController, scheduler: Scheduler):
        super().__init__()
        self.setObjectName("tab-links")
        self.setAccessibleName(pgettext("tab", "Payment links"))
        self.session, self.controller, self.scheduler = session, controller, scheduler
        self.tasks = session.tasks.child(self)
        column = QVBoxLayout(self)
        tools = QHBoxLayout()
        self.website = QPushButton(_("For your website…"))
        self.website.setObjectName("website-snippets-button")
        self.website.setAccessibleName(_("For your website"))
        self.website.clicked.connect(lambda: self.tasks.spawn(self.show_snippets(), "snippets"))
        tools.addWidget(self.website)
        self.bulk = QPushButton(_("Bulk links…"))
        self.bulk.setObjectName("bulk-links-button")
        self.bulk.setAccessibleName(_("Bulk links"))
        self.bulk.setToolTip(_("A link for every row of a spreadsheet (Ctrl+Shift+B)"))
        self.bulk.clicked.connect(self.bulkRequested.emit)
        tools.addWidget(self.bulk)
        tools.addStretch(1)
        # batches left with rows not sent (PayDesk stopped half-way): offered, never resumed
        # silently (the main window's ui/bulk/entry.py says how many)
        self.unfinished = QPushButton("")
        self.unfinished.setObjectName("unfinished-batches")
        self.unfinished.setStyleSheet("background: #fff4ce; color: #3d2e00;")
        self.unfinished.hide()
        tools.addWidget(self.unfinished)
        column.addLayout(tools)

        split = QSplitter(Qt.Orientation.Horizontal)
        self.form = LinkForm()
        split.addWidget(DownScrollArea(self.form, _("Link form")))  # never scrolled sideways
        self.panel = LinkPanel(self.tasks)
        self.panel.said.connect(session.report)
        split.addWidget(self.panel)
        split.setSizes([520, 480])
        vertical = QSplitter(Qt.Orientation.Vertical)
        vertical.addWidget(split)
        recent_box = QWidget()
        recent_column = QVBoxLayout(recent_box)
        recent_column.setContentsMargins(0, 0, 0, 0)
        # a shared ledger out of reach: the list is what it was then
        self.recent_as_of = QLabel("")
        self.recent_as_of.setObjectName("recent-links-as-of")
        self.recent_as_of.hide()
        recent_column.addWidget(self.recent_as_of)
        self.recent = RecentLinks()
        recent_column.addWidget(self.recent, 1)
        vertical.addWidget(recent_box)
        vertical.setSizes([560, 180])
        column.addWidget(vertical, 1)

        self.creating = False  # one create at a time
        self.form.createRequested.connect(lambda: self.tasks.spawn(self.create_from_form(), "create"))
        self.form.newReference.connect(lambda: self.tasks.replace("reference", self.new_reference()))
        self.recent.chosen.connect(self.show_link)
        self.as_of = AsOf(session, self)
        self.as_of.changed.connect(self._reachable)
        self._show_as_of()
        self.form.set_refused(session.refusal())  # nothing is made while it would be refused
        signals = signals_of(session.hub)
        signals.linkChanged.connect(self._changed)
        signals.linkSettled.connect(self._settled)
        signals.changed.connect(self.reload)
        signals.profileDeleted.connect(self._forget)
        self._tray: QSystemTrayIcon | None = None
        self._ref_for: tuple[str, str] | None = None  # the profile and mode the reference is for
        self._proposed: str | None = None  # the reference PayDesk last put in the form
        self._proposal_taken = False  # taken while the tab was hidden: a new one when shown
        # what was typed in the form, per profile and mode: each has its own, and a switch
        # to LIVE never carries a test one (nor one profile's customer into another's)
        self._drafts: dict[tuple[str, str], dict] = {}
        self._showing: tuple[str, str] | None = None  # whose form is shown
        self.loaded = False  # the first reload has filled the form and the list
        self.reload()

    # -- state ----------------------------------------------------------------------------

    def reload(self) -> None:
        """The profile or mode changed: fill the form's choices, the list and the reference."""
        profile = self.session.profile
        self.setEnabled(profile is not None)
        self.panel.set_test(self.session.is_test)
        self.panel.customer = customer(profile.customer_language if profile is not None else None)
        shown_record = self.panel.record
        if shown_record and (
            profile is None or shown_record.profile_id != profile.id or shown_record.mode != self.session.mode
        ):
            self.show_link(None)
        if profile is None:
            self.recent.load([])
            return
        self.form.set_currencies(profile.currencies)
        showing = (profile.id, self.session.mode)
        if showing != self._showing:
            if self._showing is not None:
                self._drafts[self._showing] = self.form.draft()
            self.form.restore(self._drafts.pop(showing, None), profile.callback_url, profile.return_url)
            self._showing = showing
            self.loaded = False  # until this profile's list and reference are read
        else:
            self.form.set_defaults(profile.callback_url, profile.return_url)
        self.tasks.replace("reload", self._reload(profile.id, self.session.mode))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._proposal_taken:
            self._proposal_taken = False
            if self.form.tx_ref.text() == self._proposed:  # still the one taken, not one typed
                self.tasks.replace("reference", self.new_reference())

    def _forget(self, profile_id: str) -> None:
        """A profile deleted: what was typed for it goes too."""
        for key in [k for k in self._drafts if k[0] == profile_id]:
            del self._drafts[key]

    async def _reload(self, profile_id: str, mode: str) -> None:
        try:
            records = await self.controller.ledger.recent(profile_id, mode)
        except LedgerError as error:  # a shared ledger out of reach: the list stays, as of
            log.info("could not read the recent links: %s", error)
            return
        self.recent.load(records)
        self.recent.follow(self.panel.record)
        typed = self.form.tx_ref.text()
        if not typed or typed == self._proposed or self._ref_for != (profile_id, mode):
            await self.new_reference()
        self.loaded = True

    async def new_reference(self) -> None:
        profile = self.session.profile
        if profile is not None:
            try:
                self._proposed = await self.controller.next_reference(profile)
            except LedgerError as error:  # a shared ledger out of reach: the form says so
                self._ledger_refused(error)
                return
            self.form.tx_ref.setText(self._proposed)
            self._ref_for = (profile.id, self.session.mode)

    def show_link(self, record: LinkRecord | None) -> None:
        self.panel.show_record(record)
        self.recent.follow(record)
        self.scheduler.focus("panel", record)

    def _show_as_of(self) -> None:
        text = _("Recent links {as_of}").format(as_of=self.as_of.text) if self.as_of.text else ""
        self.recent_as_of.setText(text)
        self.recent_as_of.setAccessibleName(text or _("Recent links"))
        self.recent_as_of.setVisible(bool(text))

    def _reachable(self) -> None:
        self._show_as_of()
        self.form.set_refused(self.session.refusal())
        if not self.as_of.text and not self.loaded:  # opened while it was out of reach
            self.reload()

    def _changed(self, record: LinkRecord) -> None:
        profile = self.session.profile
        if profile and record.profile_id == profile.id and record.mode == self.session.mode and record.origin == "link":
            self.recent.upsert(record)
            if not self.creating and record.tx_ref == self._proposed and self.form.tx_ref.text() == self._proposed:
                # the reference proposed here was taken (a counter sale, another window):
                # the form proposes the next free one, never a used one; asked when the form
                # is next seen if it is hidden now (a sale at the counter does not wait on it)
                if self.isVisible():
                    self.tasks.replace("reference", self.new_reference())
                else:
                    self._proposal_taken = True
        self.panel.update_record(record)

    def _settled(self, record: LinkRecord) -> None:
        """Tell the user when a link is paid (or fails) while PayDesk is in the background."""
        window = self.window()
        if window.isActiveWindow():
            return
        text = _("{amount} {title} ({reference}): {state}").format(
            amount=money_in(record.amount, record.currency, staff()),
            title=record.title,
            reference=record.tx_ref,
            state=state_words(record).words,
        )
        if QSystemTrayIcon.isSystemTrayAvailable():
            if self._tray is None:
                self._tray = QSystemTrayIcon(QApplication.windowIcon(), self)
                self._tray.show()
            self._tray.showMessage("PayDesk", text)
        QApplication.alert(window)
        self.notified.emit(text)

    # -- actions --------------------------------------------------------------------------

    async def create_from_form(self) -> LinkRecord | None:
        """Create the link the form describes. One at a time: while a create is under way the
        button is disabled."""
        if self.creating:
            return None
        if self.form.revalidate():
            self.form.show_all()
            return None
        request = self.form.request()
        profile = self.session.profile
        if profile is None:  # (the form has no currency then: refused above)
            return None
        self.creating = True
        self.form.set_busy(True)
        refused: LedgerError | None = None
        try:
            with waits_shown_by(self._service_wait):  # a person's create never fails on a 429
                record = await self.controller.create(request)
        except ServiceError as error:
            failure: ServiceError | None = error
        except LedgerError as error:  # a shared ledger out of reach: refused before sending
            failure, refused = None, error
        else:
            failure = None
        finally:
            self.creating = False
            self.form.set_busy(False)  # the form's messages below are said after this
        try:
            stored = await self.controller.ledger.get(profile.id, request.tx_ref) if failure else None
        except LedgerError as error:
            refused = error
        if refused is not None:
            self._ledger_refused(refused)
            return None
        if isinstance(failure, NoKeyError) or (
            failure is not None and stored is None and not isinstance(failure, ValidationError)
        ):
            self.form.why_disabled.setText(failure.message)  # nothing was written or sent
            self.form.why_disabled.setAccessibleName(failure.message)
            return None
        if isinstance(failure, ValidationError):
            self.form.show_service_errors(failure.errors, failure.message)
            self.show_link(stored)
            return None
        if failure is not None:
            # the outcome is unknown: the record stays "creating" and the scheduler settles
            # it with the same reference; the form moves on to a new one
            self.show_link(stored)
            await self.new_reference()
            return None
        self.show_link(record)
        await self.new_reference()
        return record

    def _ledger_refused(self, error: LedgerError) -> None:
        """The ledger refused (out of reach: the button waits for it, the reason beside it;
        another refusal is said there once)."""
        refusal = self.session.refusal()
        self.form.set_refused(refusal)
        if refusal is None:
            self.form.why_disabled.setText(str(error))
            self.form.why_disabled.setAccessibleName(str(error))

    def _service_wait(self, seconds: float | None) -> None:
        if self.creating:
            self.form.set_waiting(waiting_text(seconds) if seconds is not None else "")

    async def show_snippets(self) -> SnippetsDialog | None:
        from ..dialogs import run_dialog
        from .website import PER_ORDER, SnippetsDialog

        # the reference, amount and customer are placeholders: only the merchant's own
        # fields (title, description, addresses, extra information) must be right
        if any(key not in PER_ORDER for key in self.form.revalidate()):
            self.form.show_all()
            return None
        public = await self.session.key(kind="public")
        if not public:
            self.form.why_disabled.setText(_("Add this mode's public key to the profile first"))
            return None
        # the secret key goes in the server-side snippets only for whom may see keys
        secret = await self.session.key() if self.session.staff.allows(Capability.PROFILES) else None
        dialog = SnippetsDialog(self.form.merchant_request(), public, self.session.active()[0].base_url, secret, self)
        self.snippets = dialog
        await run_dialog(dialog)
        return dialog
