"""The Notifications window: every verified notification the receiver was sent (this
ledger's inbox), newest first, filtered by verdict and searched by reference or event; one
entry in full (its headers and raw body, to read and copy); above them, the refused
requests, one line per peer (``refused.py``); and "Send a test notification" for a profile
on the sandbox, in test mode."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...desk.formats import number_in
from ...desk.inbox_words import VERDICT_WORDS, entry_text
from ...desk.notify_test import NotificationTest, Outcome
from ...desk.session import Session
from ...i18n import N_, _, ngettext, staff
from ...ledger import LedgerError
from ...ledger.inbox import BAD_SIGNATURE, VERDICTS, Inbox, InboxEntry, InboxQuery
from ...service.errors import ServiceError
from .. import widgets
from ..fixed_text import use_fixed
from ..passing import Passing
from ..signals import signals_of
from .model import InboxModel
from .refused import RefusedLine

log = logging.getLogger("paydesk.ui.notifications")
TITLE = N_("Notifications — PayDesk")
NOT_OFFERED = N_(
    "The test is for a profile on the sandbox, in test mode: it pays a test link "
    "through the sandbox's control API, which a real service does not have."
)


class NotificationsWindow(widgets.OwnWindow):
    """A window of its own (closing it hides it; it ends with the main window)."""

    def __init__(self, session: Session, inbox: Inbox, tester: NotificationTest, parent: QWidget | None = None):
        super().__init__(parent, "notifications-window", _(TITLE), (1000, 640), _("Notifications"))
        self.session, self.inbox, self.tester = session, inbox, tester
        self.tasks = session.tasks.child(self)
        column = QVBoxLayout(self)

        filters = QHBoxLayout()
        caption = QLabel(_("&Verdict:"))
        self.verdict = QComboBox()
        self.verdict.setObjectName("notifications-verdict")
        self.verdict.setAccessibleName(_("Verdict"))
        self.verdict.addItem(_("All verdicts"), None)
        for verdict in VERDICTS:
            if verdict != BAD_SIGNATURE:  # refused requests are counted above the list
                self.verdict.addItem(_(VERDICT_WORDS[verdict]), verdict)
        caption.setBuddy(self.verdict)
        filters.addWidget(caption)
        filters.addWidget(self.verdict)
        caption = QLabel(_("&Search:"))
        self.search = QLineEdit()
        self.search.setObjectName("notifications-search")
        self.search.setAccessibleName(_("Search"))
        self.search.setPlaceholderText(_("reference or event"))
        self.search.setClearButtonEnabled(True)
        use_fixed(self.search)  # a reference, typed or pasted
        caption.setBuddy(self.search)
        filters.addWidget(caption)
        filters.addWidget(self.search, 1)
        column.addLayout(filters)
        self.refused = RefusedLine(session.hub, inbox, self.tasks)
        column.addWidget(self.refused)

        split = QSplitter(Qt.Orientation.Vertical)
        self.model = InboxModel(inbox, self.tasks, self._profile_name)
        self.table = widgets.record_table(
            "notifications-table", self.model, _("Notifications"), (140, 230, 150, 120, 160)
        )
        split.addWidget(self.table)
        below = QWidget()
        below_column = QVBoxLayout(below)
        below_column.setContentsMargins(0, 0, 0, 0)
        caption = QLabel(_("&Details:"))
        self.details = QPlainTextEdit()
        self.details.setObjectName("notification-details")
        self.details.setAccessibleName(_("Details"))
        self.details.setReadOnly(True)  # never edited; selected and copied, by mouse or keys
        self.details.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.details.setPlaceholderText(_("Choose a notification to see its headers and body"))
        use_fixed(self.details)  # a body and a signature: each character itself
        caption.setBuddy(self.details)
        below_column.addWidget(caption)
        below_column.addWidget(self.details, 1)
        split.addWidget(below)
        split.setSizes([380, 220])
        column.addWidget(split, 1)

        bottom = QHBoxLayout()
        self.test_button = QPushButton(_("Send a test notification"))
        self.test_button.setObjectName("send-test-notification")
        self.test_button.setAccessibleName(_("Send a test notification"))
        self.test_button.setToolTip(
            _(
                "Make a small test link, pay it on the sandbox, and watch the notification reach the ledger "
                "and this screen"
            )
        )
        bottom.addWidget(self.test_button)
        self.result = QLabel("")
        self.result.setObjectName("notification-test-result")
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.setAccessibleDescription(_("What the last test notification showed"))
        bottom.addWidget(self.result, 1)
        self.count = QLabel("")
        self.count.setObjectName("notifications-count")
        bottom.addWidget(self.count)
        column.addLayout(bottom)

        close = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)  # as a dialog closes
        close.activated.connect(self.close)
        self.verdict.currentIndexChanged.connect(self.reload)
        self.search.textChanged.connect(self.reload)
        self.table.selectionModel().selectionChanged.connect(self._selected)
        self.model.loaded.connect(self._count_later)
        self.test_button.clicked.connect(lambda: self.tasks.replace("test", self.send_test()))
        signals = signals_of(session.hub)
        signals.notificationChanged.connect(self.entry_changed)
        signals.changed.connect(self.offer)  # another profile, or mode: is the test offered?
        self.offered: bool | None = None  # not known yet
        self.passing = Passing(session, self)  # a refusal said goes when its cause goes
        self._probed: dict[tuple[str, str], bool] = {}  # (profile id, address): the sandbox?
        self.outcome: Outcome | None = None
        self._shown: InboxEntry | None = None
        self.say("")
        self.reload()
        self.offer()

    # -- the list --------------------------------------------------------------------------

    def query(self) -> InboxQuery:
        return InboxQuery(verdict=self.verdict.currentData(), text=self.search.text().strip())

    def reload(self, *_: object) -> None:
        self.tasks.replace("notifications", self._load(self.query()))

    async def _load(self, query: InboxQuery) -> None:
        try:
            await self.model.load(query)
        except LedgerError as error:  # a shared ledger out of reach: the list stays as it was,
            text = _("Could not read the notifications: {error}").format(error=error)  # read again once it answers
            self._show_count(text)
            self.passing.said(self.count, text, error, self.reload)

    def _count_later(self) -> None:
        self.tasks.replace("count", self._count(self.model.query))

    async def _count(self, query: InboxQuery) -> None:
        try:
            total = await self.inbox.count(query)
        except LedgerError as error:
            log.info("could not count the notifications: %s", error)
            return
        if query == self.model.query:
            n = number_in(total, staff())
            self._show_count(ngettext("{n} notification", "{n} notifications", total).format(n=n))

    def _show_count(self, text: str) -> None:
        self.count.setText(text)
        self.count.setAccessibleName(text)

    def entry_changed(self, entry: InboxEntry) -> None:
        """An entry kept or decided (here or by another process): in place or on top."""
        was = self.model.rowCount()
        listed = self.model.changed(entry)
        if self.model.rowCount() != was:
            self._count_later()
        if self._shown is not None and self._shown.id == entry.id:
            self._show(entry if listed else None)

    def _profile_name(self, profile_id: str) -> str:
        profile = self.session.settings.profile(profile_id)
        return profile.name if profile else _("a profile not on this desk")

    def _selected(self, *_: object) -> None:
        rows = self.table.selectionModel().selectedRows()
        self._show(self.model.entry_at(rows[0].row()) if len(rows) == 1 else None)

    def _show(self, entry: InboxEntry | None) -> None:
        self._shown = entry
        self.details.setPlainText(entry_text(entry) if entry is not None else "")

    # -- the test --------------------------------------------------------------------------

    def offer(self) -> None:
        """Find out (once per profile and mode shown) whether the test can run here."""
        self.tasks.replace("offer", self._offer())

    async def _offer(self) -> None:
        profile = self.session.profile
        self.offered = False
        if profile is not None and self.session.is_test:
            where = (profile.id, profile.base_url)
            if where not in self._probed:  # asked once per profile and address
                try:
                    self._probed[where] = await self.tester.offered(profile)
                except ServiceError as error:
                    log.info("could not find out whether the service is the sandbox: %s", error)
            self.offered = self._probed.get(where, False)
        self.test_button.setEnabled(self.offered)
        self.test_button.setToolTip("" if self.offered else _(NOT_OFFERED))
        if not self.offered and self.outcome is None:
            self.say(_(NOT_OFFERED))
        elif self.outcome is None and self.result.text() == _(NOT_OFFERED):
            self.say("")  # its own words only: a refusal said meanwhile stays until its cause goes

    async def send_test(self) -> Outcome | None:
        self.outcome = None
        # a shared ledger out of reach: the test link could not be written, nor its
        # notification kept; said until the ledger answers again, nothing made or sent
        if self.passing.refused_now(self.result, lambda text: self.say(text, ok=False), lambda: self.say("")):
            return None
        self.test_button.setEnabled(False)
        self.say(_("Sending a test notification: a test link is made and paid on the sandbox…"))
        try:
            outcome = await self.tester.run()
        except LedgerError as error:  # gone on the way: its one sentence, gone with its cause
            self.say(str(error), ok=False)
            self.passing.said(self.result, str(error), error, lambda: self.say(""))
            return None
        finally:
            self.test_button.setEnabled(bool(self.offered))
        self.outcome = outcome
        self.say(outcome.text, ok=outcome.ok)
        return outcome

    def say(self, text: str, ok: bool | None = None) -> None:
        self.result.setText(text)
        self.result.setAccessibleName(text)  # what it shows
        self.result.setVisible(bool(text))
        self.result.setStyleSheet(
            ""
            if ok is None
            else "color: #0b6b2b; font-weight: 600;"
            if ok
            else "color: #3d2e00; background: #fff4ce; padding: 4px;"
        )
