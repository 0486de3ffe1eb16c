"""The Cards tab: the wallet (the list beside a card's page) and the audit log, or, for a
profile whose service has no cards (or, in test mode, no test cards), a plain explanation."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from decimal import Decimal

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShowEvent
from PySide6.QtWidgets import QLabel, QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from ...desk.cards import words
from ...desk.cards.controller import CardsController
from ...desk.formats import number_in
from ...desk.leases import KeylessDesk
from ...desk.session import Session
from ...i18n import N_, _, ngettext, staff
from ...ledger import LedgerError
from ...ledger.cards import CardOperation, CardQuery, CardRecord
from ...service.errors import NotFoundError, ServiceError
from ..dialogs import run_dialog
from ..passing import Passing
from ..scrolled import DownScrollArea
from ..signals import signals_of
from .audit import AuditView
from .dialogs import AmountDialog, CreateCardDialog, OperationDialog, TerminateDialog
from .page import CardPage
from .wallet import WalletList

log = logging.getLogger("paydesk.cards.tab")
NO_CARDS = N_(
    "This profile's service has no virtual cards.\n\n"
    "The service offers cards on its first deployment only, and this profile connects "
    "to a deployment without them, so there is no wallet to show here. Payment links "
    "and transactions work as usual."
)


def reading(when: datetime | None) -> str:
    """The wallet's "as of" line while the service is being read."""
    if when is None:
        return _("Reading the cards from the service…")
    return _("As of {when}: reading the service again…").format(when=words.when(when))


class CardsTab(QWidget):
    def __init__(self, session: Session, controller: CardsController):
        super().__init__()
        self.setObjectName("tab-cards")
        self.setAccessibleName(_("Cards"))
        self.session, self.controller = session, controller
        self.ledger = session.card_ledger
        self.tasks = session.tasks.child(self)
        self.passing = Passing(session, self)  # the wallet's refusal goes with its cause
        self._refreshed: set[tuple[str, str]] = set()  # read from the service this session
        # being read from the service now, and by how many readings (a replaced one may
        # end after its successor began)
        self._reading: dict[tuple[str, str], int] = {}
        self._read_at: dict[tuple[str, str], datetime | None] = {}  # as the ledger last said
        self._without_cards: set[str] = set()  # profiles whose service answered 404
        self.dialog: OperationDialog | None = None
        self.loaded = False
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.stack = QStackedWidget()
        column.addWidget(self.stack)
        self.no_cards = QLabel(_(NO_CARDS))
        self.no_cards.setObjectName("cards-unavailable")
        self.no_cards.setAccessibleName(_(NO_CARDS).split("\n")[0])
        self.no_cards.setWordWrap(True)
        self.no_cards.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack.addWidget(self.no_cards)
        self.no_test_cards = QLabel(_(words.NO_TEST_CARDS))  # a service whose cards are live only
        self.no_test_cards.setObjectName("cards-live-only")
        self.no_test_cards.setAccessibleName(_(words.NO_TEST_CARDS))
        self.no_test_cards.setWordWrap(True)
        self.no_test_cards.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack.addWidget(self.no_test_cards)
        self.no_keys = QLabel(KeylessDesk().message)  # a key-less counter: no card operations
        self.no_keys.setObjectName("cards-no-keys")
        self.no_keys.setAccessibleName(KeylessDesk().message)
        self.no_keys.setWordWrap(True)
        self.no_keys.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack.addWidget(self.no_keys)
        self.sections = QTabWidget()
        self.sections.setObjectName("card-sections")
        self.sections.setAccessibleName(_("Card sections"))
        split = QSplitter(Qt.Orientation.Horizontal)
        self.wallet = WalletList(self.ledger, self.tasks)
        split.addWidget(self.wallet)
        self.page = CardPage(session, controller, self.ledger, self.tasks)
        split.addWidget(DownScrollArea(self.page, _("Card")))  # never scrolled sideways
        split.setSizes([620, 480])
        self.sections.addTab(split, _("Wallet"))
        self.audit = AuditView(self.ledger, self.tasks, session)
        self.sections.addTab(self.audit, _("Audit log"))
        self.stack.addWidget(self.sections)

        self.refresh_action = QAction(_("Refresh cards"), self)
        self.refresh_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Refresh))
        self.refresh_action.triggered.connect(self.request_refresh)
        self.create_action = QAction(_("Create card"), self)
        self.create_action.setShortcut(QKeySequence.StandardKey.New)
        self.create_action.triggered.connect(self.request_create)
        for action in (self.refresh_action, self.create_action):
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.addAction(action)

        self.wallet.refreshRequested.connect(self.request_refresh)
        self.wallet.createRequested.connect(self.request_create)
        self.wallet.chosen.connect(self.page.show_card)
        self.wallet.search.textChanged.connect(lambda _text: self.reload_list())
        self.wallet.state_filter.currentIndexChanged.connect(lambda _index: self.reload_list())
        self.page.fundRequested.connect(lambda: self._amount("fund"))
        self.page.withdrawRequested.connect(lambda: self._amount("withdraw"))
        self.page.terminateRequested.connect(self._terminate)
        signals = signals_of(session.hub)
        signals.cardsRefreshed.connect(self._list_refreshed)
        signals.cardChanged.connect(self._card_changed)
        signals.auditAdded.connect(self.audit.added)
        signals.changed.connect(self.reload)
        self.reload()

    # -- which wallet -------------------------------------------------------------------

    def scope(self) -> tuple[str, str] | None:
        profile = self.session.profile
        if self.session.clients.keyless:  # a key-less counter reads no wallet either
            return None
        return (profile.id, self.session.mode) if profile else None

    def has_cards(self) -> bool:
        """Has this profile's service cards? (Unknown is tried: a 404 says no.)"""
        profile = self.session.profile
        return profile is not None and profile.has_cards is not False and profile.id not in self._without_cards

    def available(self) -> bool:
        """Is there a wallet to show: the service has cards, in this mode (a service that
        keeps no test cards has them in live mode only)?"""
        profile = self.session.profile
        if self.session.clients.keyless:
            return False
        return profile is not None and self.has_cards() and (self.session.mode == "live" or profile.test_cards)

    def reload(self) -> None:
        """The profile or mode changed (or a profile was edited)."""
        available = self.available()
        self.stack.setCurrentWidget(
            self.sections
            if available
            else self.no_keys
            if self.session.clients.keyless
            else self.no_test_cards
            if self.has_cards()
            else self.no_cards
        )
        for action in (self.refresh_action, self.create_action):
            action.setEnabled(available)
        self.setEnabled(self.session.profile is not None)
        scope = self.scope()
        if self.page.record is not None and self.page.record.key[:2] != scope:
            self.page.show_card(None)
        elif self.page.record is not None:
            self.page.update_card(self.page.record)  # an edited profile: its currency map
        self.audit.set_scope(*(scope or (None, "test")))
        self.reload_list()
        if available and self.isVisible() and scope not in self._refreshed:
            self.request_refresh()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.available() and self.scope() not in self._refreshed:
            self.request_refresh()  # the cache is on screen meanwhile

    def query(self) -> CardQuery | None:
        scope = self.scope()
        if scope is None or not self.available():
            return None
        return CardQuery(*scope, text=self.wallet.search.text(), states=self.wallet.state_filter.currentData())

    def reload_list(self) -> None:
        query = self.query()
        if query is not None:
            self.tasks.replace("list", self._load(query))
        else:
            self.loaded = True

    async def _load(self, query: CardQuery) -> None:
        """The list read again (a search, a filter, a refresh ended); a shared ledger out of
        reach leaves the cards listed as they were and says why on the wallet's line, until
        it answers (the list read again then)."""
        try:
            await self._read_list(query)
        except LedgerError as error:
            self.wallet.say_as_of(str(error))
            self.passing.said(self.wallet.as_of, str(error), error, self.reload_list)
            self.loaded = True

    async def _read_list(self, query: CardQuery) -> None:
        # the count is read first and set in the same turn as the rows (no moment where the
        # list shows the new rows beside the old count)
        count = await self.ledger.card_count(query)
        await self.wallet.model.load(self.session.active()[0], query)
        self.wallet.count.setText(ngettext("{n} card", "{n} cards", count).format(n=number_in(count, staff())))
        when = await self.ledger.refreshed_at(query.profile_id, query.mode)
        self._read_at[(query.profile_id, query.mode)] = when
        if (query.profile_id, query.mode) in self._refreshed:
            self.wallet.say_as_of(
                _("Up to date: read from the service at {when}").format(when=words.when(when, seconds=True))
            )
        elif (query.profile_id, query.mode) in self._reading:
            self.wallet.say_as_of(reading(when))
        elif when is not None:
            self.wallet.say_as_of(
                _("As of {when}: saved earlier; Refresh (F5) reads the service again").format(when=words.when(when))
            )
        else:
            self.wallet.say_as_of(_("Not read from the service yet: Refresh (F5)"))
        if self.page.record is not None:
            self.wallet.select(self.page.record.card_hash)
        self.loaded = True

    # -- refresh ------------------------------------------------------------------------

    def request_refresh(self) -> None:
        if self.available():
            self.tasks.replace("refresh", self.refresh())

    async def refresh(self) -> bool:
        profile, mode = self.session.profile, self.session.mode
        if profile is None or not self.available():
            return False
        self.wallet.refresh_button.setEnabled(False)
        scope = (profile.id, mode)
        self._reading[scope] = self._reading.get(scope, 0) + 1
        # the cache stays on screen, marked as of its last reading, until the answer
        self.wallet.say_as_of(reading(self._read_at.get(scope)))
        try:
            await self.controller.refresh(profile, mode)
        except NotFoundError:
            if profile.has_cards is not True:
                self._without_cards.add(profile.id)
                self.reload()
                return False
            self.wallet.say_as_of(_("The service answered that it has no cards."))
            return False
        except LedgerError as error:  # a shared ledger out of reach: not asked; said
            self.wallet.say_as_of(str(error))  # until it answers (the list's words then)
            self.passing.said(self.wallet.as_of, str(error), error, self.reload_list)
            return False
        except ServiceError as error:
            when = await self.ledger.refreshed_at(profile.id, mode)
            self.wallet.say_as_of(
                _("Could not refresh: {message}. Showing the cards as of {when}.").format(
                    message=error.message, when=words.when(when)
                )
                if when
                else _("Could not read the cards: {message}").format(message=error.message)
            )
            return False
        finally:
            self._reading[scope] -= 1
            if not self._reading[scope]:
                del self._reading[scope]
            self.wallet.refresh_button.setEnabled(True)
        self._refreshed.add((profile.id, mode))
        if self.page.record is not None:
            self.tasks.replace("card", self.page.reload())
        return True

    def _list_refreshed(self, profile_id: str, mode: str) -> None:
        if (profile_id, mode) == self.scope():
            self._refreshed.add((profile_id, mode))
            self.reload_list()

    def _card_changed(self, record: CardRecord) -> None:
        if record.key[:2] == self.scope() and not self.wallet.model.update(record):
            self.reload_list()  # a new card, or one the filters now show

    # -- operations ---------------------------------------------------------------------

    async def _open(self, dialog: OperationDialog) -> OperationDialog:
        """Show an operation's dialog until it closes; it follows its operation meanwhile
        (a lost answer settled in the background says so there)."""

        def follow(op: CardOperation) -> None:
            if dialog.operation is not None and op.id == dialog.operation.id:
                dialog.show_operation(op)

        self.dialog = dialog
        signals_of(self.session.hub).operationChanged.connect(follow)
        try:
            await run_dialog(dialog)
        finally:
            signals_of(self.session.hub).operationChanged.disconnect(follow)
            if self.dialog is dialog:
                self.dialog = None
        return dialog

    def request_create(self) -> None:
        if self.available() and self.dialog is None:
            self.tasks.spawn(self.create_card(), "create card")

    async def create_card(self) -> CardRecord | None:
        profile, mode = self.session.profile, self.session.mode
        if profile is None or not self.available():
            return None

        def run(
            amount: Decimal, currency: str, callback: str | None, first_name: str, last_name: str
        ) -> asyncio.Task[CardOperation]:
            return self.tasks.spawn(
                self.controller.create(
                    profile, mode, amount, currency, callback, first_name=first_name, last_name=last_name
                ),
                "create card",
                expected=(LedgerError, ServiceError),
            )

        dialog = CreateCardDialog(
            self, self.tasks.child, profile, run, lambda card_hash: self.ledger.card(profile.id, mode, card_hash)
        )
        await self._open(dialog)
        card = dialog.new_card
        query = self.query()
        if card is not None and query is not None:
            # the list's own reading: a search typed meanwhile replaces it, never the other way
            await asyncio.wait([self.tasks.replace("list", self._load(query))])
            self.page.show_card(card)
            self.wallet.select(card.card_hash)
        return card

    def _amount(self, kind: str) -> None:
        record = self.page.record
        if record is None:
            return
        profile = self.session.settings.profile(record.profile_id)
        if profile is None:  # its profile was removed meanwhile
            return
        operate = self.controller.fund if kind == "fund" else self.controller.withdraw
        dialog = AmountDialog(
            self,
            self.tasks.child,
            kind,
            record,
            profile,
            lambda amount: self.page.run(operate(record, amount)),
            lambda: self.ledger.card(*record.key),
        )
        self.tasks.spawn(self._open(dialog), kind)

    def _terminate(self) -> None:
        record = self.page.record
        if record is None:
            return
        profile = self.session.settings.profile(record.profile_id)
        if profile is None:  # its profile was removed meanwhile
            return
        dialog = TerminateDialog(
            self, self.tasks.child, record, profile, lambda: self.page.run(self.controller.terminate(record))
        )
        self.tasks.spawn(self._open(dialog), "terminate")


__all__ = ["CardsTab", "NO_CARDS"]
