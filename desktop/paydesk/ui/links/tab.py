"""The Payment links tab: the form, the link on screen, recent links, the counter display."""

from __future__ import annotations

import logging

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (QApplication, QComboBox, QHBoxLayout, QLabel, QPushButton,
                               QScrollArea, QSplitter, QSystemTrayIcon, QVBoxLayout, QWidget)
from PySide6.QtCore import Qt

from ...ledger import LinkRecord
from ...service.errors import ServiceError, ValidationError
from ..session import NoKeyError, Session
from .controller import LinksController
from .counter import CounterWindow
from .form import LinkForm
from .panel import LinkPanel
from .recent import RecentLinks
from .states import money, shown
from .watcher import LinkWatcher

log = logging.getLogger("paydesk.links.tab")


class LinksTab(QWidget):
    def __init__(self, session: Session, controller: LinksController, watcher: LinkWatcher):
        super().__init__()
        self.setObjectName("tab-links")
        self.setAccessibleName("Payment links")
        self.session, self.controller, self.watcher = session, controller, watcher
        column = QVBoxLayout(self)
        tools = QHBoxLayout()
        self.website = QPushButton("For your website…")
        self.website.setObjectName("website-snippets-button")
        self.website.setAccessibleName("For your website")
        self.website.clicked.connect(lambda: session.tasks.spawn(self.show_snippets()))
        tools.addWidget(self.website)
        tools.addStretch(1)
        screen_caption = QLabel("Counter display on:")
        tools.addWidget(screen_caption)
        self.screens = QComboBox()
        self.screens.setObjectName("counter-screen")
        self.screens.setAccessibleName("Counter display on")
        screen_caption.setBuddy(self.screens)
        tools.addWidget(self.screens)
        self.open_counter = QPushButton("Open counter display")
        self.open_counter.setObjectName("open-counter")
        self.open_counter.setAccessibleName("Open counter display")
        self.open_counter.clicked.connect(self.show_counter)
        tools.addWidget(self.open_counter)
        column.addLayout(tools)

        split = QSplitter(Qt.Orientation.Horizontal)
        self.form = LinkForm()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.form)
        scroll.setAccessibleName("Link form")
        split.addWidget(scroll)
        self.panel = LinkPanel(session.tasks)
        split.addWidget(self.panel)
        split.setSizes([520, 480])
        vertical = QSplitter(Qt.Orientation.Vertical)
        vertical.addWidget(split)
        self.recent = RecentLinks()
        vertical.addWidget(self.recent)
        vertical.setSizes([560, 180])
        column.addWidget(vertical, 1)

        self.counter = CounterWindow()
        self.form.createRequested.connect(lambda: session.tasks.spawn(self.create_from_form()))
        self.form.newReference.connect(self.new_reference)
        self.panel.counterRequested.connect(self.show_counter)
        self.counter.createRequested.connect(lambda a: session.tasks.spawn(self.create_at_counter(a)))
        self.counter.cleared.connect(lambda: watcher.focus("counter", None))
        self.recent.chosen.connect(self.show_link)
        controller.linkChanged.connect(self._changed)
        controller.linkSettled.connect(self._settled)
        session.changed.connect(self.reload)
        self._tray: QSystemTrayIcon | None = None
        self.reload()

    # -- state ---------------------------------------------------------------

    def reload(self) -> None:
        profile = self.session.profile
        self.setEnabled(profile is not None)
        self.counter.set_test(self.session.is_test)
        self.panel.set_test(self.session.is_test)
        self.screens.clear()
        for screen in QGuiApplication.screens():
            self.screens.addItem(screen.name() or "Screen", screen)
        if profile is None:
            self.recent.load([])
            return
        self.form.set_currencies(profile.currencies)
        self.form.set_defaults(profile.callback_url, profile.return_url)
        if not self.form.tx_ref.text() or self._ref_profile != profile.id:
            self.new_reference()
        records = self.controller.ledger.recent(profile.id, self.session.mode)
        self.recent.load(records)
        shown_record = self.panel.record
        if shown_record and (shown_record.profile_id != profile.id or shown_record.mode != self.session.mode):
            self.show_link(None)
        for record in records:
            if not record.final and record.checkout_url:
                self.watcher.watch(record)

    _ref_profile: str | None = None  # the profile whose prefix the shown reference carries

    def new_reference(self) -> None:
        profile = self.session.profile
        if profile is not None:
            self.form.tx_ref.setText(self.controller.generator(profile).next())
            self._ref_profile = profile.id

    def show_link(self, record: LinkRecord | None) -> None:
        self.panel.show_record(record)
        self.watcher.focus("panel", record)

    def _changed(self, record: LinkRecord) -> None:
        profile = self.session.profile
        if profile and record.profile_id == profile.id and record.mode == self.session.mode \
                and record.origin == "link":
            self.recent.upsert(record)
        self.panel.update_record(record)
        self.counter.update_record(record)

    def _settled(self, record: LinkRecord) -> None:
        """Tell the user when a link is paid (or fails) while PayDesk is in the background."""
        window = self.window()
        if window.isActiveWindow() or self.counter.isActiveWindow():
            return
        words, _ = shown(record.state)
        text = f"{money(record)} {record.title} ({record.tx_ref}): {words}"
        if QSystemTrayIcon.isSystemTrayAvailable():
            if self._tray is None:
                self._tray = QSystemTrayIcon(QApplication.windowIcon(), self)
                self._tray.show()
            self._tray.showMessage("PayDesk", text)
        QApplication.alert(window)
        self.last_notification = text

    # -- actions ---------------------------------------------------------------

    async def create_from_form(self) -> LinkRecord | None:
        if self.form.revalidate():
            self.form.show_all()
            return None
        request = self.form.request()
        self.form.create_button.setEnabled(False)
        try:
            record = await self.controller.create(request)
        except NoKeyError as error:
            self.form.revalidate()
            self.form.why_disabled.setText(str(error))
            return None
        except ValidationError as error:
            self.form.revalidate()
            self.form.show_service_errors(error.errors, error.message)
            record = self.controller.ledger.get(self.session.profile.id, request.tx_ref)
            if record is not None:
                self.show_link(record)
            return None
        except ServiceError:
            # the outcome is unknown: the record stays "creating" and is settled with the
            # same reference; the form moves on to a new one
            self.form.revalidate()
            self.show_link(self.controller.ledger.get(self.session.profile.id, request.tx_ref))
            self.new_reference()
            return None
        self.form.revalidate()
        self.show_link(record)
        if self.counter.isVisible():
            self.counter.show_record(record)
            self.watcher.focus("counter", record)
        self.new_reference()
        return record

    async def create_at_counter(self, amount: str) -> LinkRecord | None:
        self.form.amount.setText(amount)
        problems = self.form.revalidate()
        if problems:
            self.counter.message.setText("Set the counter's customer details in the Payment links "
                                         "form first: " + next(iter(problems.values())))
            return None
        return await self.create_from_form()

    def show_counter(self) -> None:
        screen = self.screens.currentData()
        self.counter.set_test(self.session.is_test)
        if self.panel.record:
            self.counter.show_record(self.panel.record)
        self.counter.show_on(screen)

    async def show_snippets(self):
        from ..dialogs import finished
        from .website import SnippetsDialog

        if self.form.revalidate():
            self.form.show_all()
            return None
        public = await self.session.key(kind="public")
        if not public:
            self.form.why_disabled.setText("Add this mode's public key to the profile first")
            return None
        secret = await self.session.key()
        dialog = SnippetsDialog(self.form.request(), public, self.session.profile.base_url, secret, self)
        self.snippets = dialog
        await finished(dialog)
        dialog.deleteLater()
        return dialog
