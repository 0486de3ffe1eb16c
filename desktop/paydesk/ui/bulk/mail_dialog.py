"""E-mail links… (the Batches window): each customer of a batch sent their link through the
merchant's own SMTP server. The settings are the profile's (desk/bulk/mail.py: smtp.json),
the password only in the keyring; a preview of the message the first customer gets, a test
sent to the user, then the batch's open links sent, each row's result noted (the rows list's
"E-mail sent" column)."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ...desk.bulk import mail
from ...desk.formats import number_in
from ...desk.session import Session
from ...desk.staff import NotAllowed
from ...i18n import N_, _, staff
from ...ledger import LedgerError
from ...ledger.batch import CREATED, Batch, BatchBook, BatchRow
from .. import widgets
from ..field_message import FieldMessage, add_field_row
from ..fixed_text import use_fixed
from ..screen_fit import resize_within_screen
from .steps import say

log = logging.getLogger("paydesk.ui.bulk.mail")
SECURITY_WORDS = {
    "starttls": N_("STARTTLS (port 587)"),
    "tls": N_("TLS from the start (port 465)"),
    "none": N_("None (a server on this network only)"),
}


class MailDialog(QDialog):
    def __init__(self, session: Session, book: BatchBook, batch: Batch, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("bulk-mail")
        self.setWindowTitle(_("E-mail links — {batch}").format(batch=batch.name))
        self.setAccessibleName(_("E-mail links"))
        resize_within_screen(self, 720, 640)
        self.session, self.book, self.batch = session, book, batch
        self.profile = session.settings.profile(batch.profile_id)
        self.tasks = session.tasks.child(self)
        column = QVBoxLayout(self)
        form = QFormLayout()
        self.host, self.user, self.from_address, self.sender_name = (QLineEdit() for _field in range(4))
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.port = QSpinBox()
        self.port.setRange(1, 65535)
        self.security = QComboBox()
        for key, words in SECURITY_WORDS.items():
            self.security.addItem(_(words), key)
        self.messages: dict[str, FieldMessage] = {}
        for label, widget, key in (
            (_("SMTP &server"), self.host, "host"),
            (_("&Port"), self.port, "port"),
            (_("Se&curity"), self.security, "security"),
            (_("&User"), self.user, "user"),
            (_("Pass&word"), self.password, "password"),
            (_("&From address"), self.from_address, "sender"),
            (_("From &name"), self.sender_name, "sender_name"),
        ):
            widget.setObjectName(f"smtp-{key}")
            widget.setAccessibleName(label.replace("&", ""))
            self.messages[key] = add_field_row(form, label, widget, f"smtp-{key}")
        use_fixed(self.host, self.from_address)
        column.addLayout(form)
        test_row = QHBoxLayout()
        caption = QLabel(_("&Test to:"))
        self.test_to = QLineEdit()
        self.test_to.setObjectName("smtp-test-to")
        self.test_to.setAccessibleName(_("Test to"))
        caption.setBuddy(self.test_to)
        self.test_button = widgets.button(_("Send a test"), "smtp-send-test")
        test_row.addWidget(caption)
        test_row.addWidget(self.test_to, 1)
        test_row.addWidget(self.test_button)
        column.addLayout(test_row)
        caption = QLabel(_("Pre&view (the first customer's message):"))
        self.preview = QPlainTextEdit()
        self.preview.setObjectName("smtp-preview")
        self.preview.setAccessibleName(_("Preview"))
        self.preview.setReadOnly(True)
        caption.setBuddy(self.preview)
        column.addWidget(caption)
        column.addWidget(self.preview, 1)
        self.again = QCheckBox(_("Send &again to those sent already"))
        self.again.setObjectName("smtp-again")
        self.again.setAccessibleName(self.again.text().replace("&", ""))
        column.addWidget(self.again)
        self.said = QLabel("")
        self.said.setObjectName("smtp-said")
        self.said.setWordWrap(True)
        self.said.setTextFormat(Qt.TextFormat.PlainText)
        column.addWidget(self.said)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.send_button = widgets.button(_("Send the links"), "smtp-send")
        self.stop_button = widgets.button(_("Stop"), "smtp-stop")
        self.close_button = widgets.button(_("Close"), "smtp-close")
        for button in (self.send_button, self.stop_button, self.close_button):
            buttons.addWidget(button)
        column.addLayout(buttons)
        self.stop_button.setEnabled(False)
        self.test_button.clicked.connect(lambda: self.tasks.replace("smtp test", self.send_test()))
        self.send_button.clicked.connect(lambda: self.tasks.replace("smtp send", self.send()))
        self.stop_button.clicked.connect(self._stop)
        self.close_button.clicked.connect(self.reject)
        for widget in (self.host, self.user, self.from_address, self.sender_name):
            widget.textEdited.connect(self._typed)
        say(self.said, "")

    async def load(self) -> None:
        """The profile's settings and password (off the GUI thread), and the preview."""
        profile_id = self.batch.profile_id
        settings = await mail.load_settings(self.session.paths, profile_id)
        password = await mail.load_password(self.session.keys, profile_id)
        self.host.setText(settings.host)
        self.port.setValue(settings.port)
        self.security.setCurrentIndex(max(self.security.findData(settings.security), 0))
        self.user.setText(settings.user)
        self.password.setText(password or "")
        self.from_address.setText(settings.sender)
        self.sender_name.setText(settings.sender_name)
        await self._preview()

    def settings(self) -> mail.SmtpSettings:
        return mail.SmtpSettings(
            host=self.host.text().strip(),
            port=self.port.value(),
            user=self.user.text().strip(),
            security=self.security.currentData(),
            sender=self.from_address.text().strip(),
            sender_name=self.sender_name.text().strip(),
        )

    def _typed(self, *_args: object) -> None:
        self.tasks.replace("smtp preview", self._preview())

    async def _preview(self) -> None:
        try:
            rows = await self.book.rows(self.batch.id, limit=1, states=(CREATED,))
        except LedgerError as error:  # a shared ledger out of reach: the preview waits
            self.preview.setPlainText(str(error))
            return
        if not rows or self.profile is None:
            self.preview.setPlainText(_("No link of this batch is open for payment: nothing to send."))
            self.send_button.setEnabled(False)
            return
        try:
            self.preview.setPlainText(mail.preview(rows[0], self.profile, self.settings()))
        except (mail.MailError, ValueError, IndexError) as error:
            self.preview.setPlainText(getattr(error, "message", str(error)))

    def _checked(self) -> mail.SmtpSettings | None:
        settings = self.settings()
        wrong = settings.problems()
        for key, message in self.messages.items():
            message.say(wrong.get(key))
        return None if wrong else settings

    async def _keep(self, settings: mail.SmtpSettings) -> None:
        """The settings to the profile's file, the password to the keyring."""
        await mail.save_settings(self.session.paths, self.batch.profile_id, settings)
        await mail.save_password(self.session.keys, self.batch.profile_id, self.password.text())

    async def send_test(self) -> bool:
        settings = self._checked()
        if settings is None or self.profile is None:
            return False
        self.test_button.setEnabled(False)
        say(self.said, _("Sending a test to {address}…").format(address=self.test_to.text().strip()))
        try:
            await mail.send_test(settings, self.password.text() or None, self.profile, self.test_to.text().strip())
        except mail.MailError as error:
            say(self.said, _("The test was not sent: {reason}").format(reason=error.message))
            return False
        finally:
            self.test_button.setEnabled(True)
        await self._keep(settings)
        say(self.said, _("Test sent to {address}: look in that mailbox.").format(address=self.test_to.text().strip()))
        return True

    async def send(self) -> tuple[int, int] | None:
        settings = self._checked()
        if settings is None or self.profile is None:
            return None
        try:  # which rows were e-mailed could not be noted: none is sent
            self.session.refuse_while_down()
        except LedgerError as error:
            say(self.said, str(error))
            return None
        await self._keep(settings)
        counted = [0, 0]
        words = staff()

        def figures() -> dict[str, str]:
            return {"sent": number_in(counted[0], words), "failed": number_in(counted[1], words)}

        async def noted(row: BatchRow, ok: bool, error: str | None) -> None:
            counted[0 if ok else 1] += 1
            say(self.said, _("Sent {sent}, failed {failed}…").format(**figures()))

        self.send_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        say(self.said, _("Sending…"))
        try:
            sent, failed = await mail.mail_batch(
                self.book,
                self.batch.id,
                self.profile,
                settings,
                self.password.text() or None,
                again=self.again.isChecked(),
                on_result=noted,
                staff=self.session.staff,
            )
        except mail.MailError as error:
            say(
                self.said,
                _("Stopped: {reason} (sent {sent}, failed {failed}; the rest were not sent)").format(
                    reason=error.message, **figures()
                ),
            )
            return None
        except LedgerError as error:
            say(self.said, _("Stopped: the ledger could not be written: {error}").format(error=error))
            return None
        except NotAllowed as refused:  # the person signed in may not: nothing was sent
            say(self.said, refused.message)
            return None
        finally:
            self.send_button.setEnabled(True)
            self.stop_button.setEnabled(False)
        say(
            self.said,
            _("Done: {sent} sent, {failed} failed (see the E-mail sent column)").format(
                sent=number_in(sent, words), failed=number_in(failed, words)
            ),
        )
        return sent, failed

    def _stop(self) -> None:
        self.tasks.replace("smtp send", self._stopped())  # the send task is cancelled

    async def _stopped(self) -> None:
        self.send_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        say(self.said, _("Stopped: the rows not sent yet were left as they are"))
