"""Settings → Shared ledger…: this desk's name (at once), and the shared ledger's address and
password, tested, saved for the next start; or back to this computer's own ledger."""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from .. import logs
from ..config.shared_ledger import EXAMPLE, RESTART_NOTE, parse, split_password, url_problem
from ..desk.desk_name import RENAMED, DeskNameRefused, DeskNaming
from ..desk.ledger_choice import LedgerSetupError, save_shared_ledger, saved_password, use_own_ledger
from ..desk.session import Session
from ..i18n import N_, _
from ..ledger import LedgerError
from .field_message import add_field_row
from .fixed_text import use_fixed
from .passing import Passing
from .profile_editor import KeyField
from .screen_fit import keep_wrapped_height

INTRO = N_(
    "A shared ledger lets every desk of the shop see the same links, transactions and cards. "
    "Its address and the password of its PayDesk role come from the shop's administrator "
    "(docs/SHARED_LEDGER.md)."
)
MOVED = N_("The password was taken out of the address: it is kept in the keyring, never in a file.")
# Test connection's sentences are said whole beside their field: the address's in four
# lines at most (the longest, a server that does not let this computer in, takes three at
# this width in English, four in a language 40% longer), the password's in three (a refusal
# naming a long role) and the desk name's in two; their rooms are kept, shown or not, so
# nothing moves when one is said
WIDTH = 720
ADDRESS_LINES, PASSWORD_LINES, NAME_LINES = 4, 3, 2
NAME_HINT = N_(
    "How the shop's status bars and this desk's counter shifts name it; empty: the "
    "computer's name (told apart by this desk's id when another desk has it)."
)


def in_use(session: Session) -> str:
    """Which ledger this desk uses now, in words."""
    choice = session.ledger_choice
    if choice.url is None:
        return _("This desk uses its own ledger, on this computer.")
    where = parse(choice.url).where
    if choice.source == "command line":
        return _(
            "This run uses the shared ledger at {where}, given with --ledger; what you save here is "
            "used when PayDesk starts without it."
        ).format(where=where)
    return _("This desk uses the shared ledger at {where}.").format(where=where)


class SharedLedgerDialog(QDialog):
    """``naming``: the desk's (``Desk.naming``), which renames it at once."""

    def __init__(self, session: Session, parent: QWidget | None = None, *, naming: DeskNaming | None = None) -> None:
        super().__init__(parent)
        self.session, self.naming = session, naming
        self.setObjectName("shared-ledger")
        self.setWindowTitle(_("Shared ledger"))
        self.setMinimumWidth(WIDTH)
        layout = QVBoxLayout(self)
        intro = QLabel(_(INTRO))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.current = QLabel(in_use(session))
        self.current.setObjectName("ledger-in-use")
        self.current.setWordWrap(True)
        layout.addWidget(self.current)
        form = QFormLayout()
        layout.addLayout(form)
        self.url = QLineEdit(session.settings.ledger_url or "")
        self.url.setObjectName("ledger-url")
        self.url.setAccessibleName(_("Ledger address"))
        self.url.setPlaceholderText(EXAMPLE)
        use_fixed(self.url)
        self.url_message = add_field_row(form, _("Ledger &address"), self.url, "ledger-url", lines=ADDRESS_LINES)
        self.password = KeyField(_("Password"), "ledger-password")
        self.password.edit.setPlaceholderText("none")
        self.password_message = add_field_row(
            form, _("&Password"), self.password, "ledger-password", self.password.edit, lines=PASSWORD_LINES
        )
        self._name_row(form)
        self.status = QLabel(_("A change takes effect when PayDesk next starts."))
        self.status.setObjectName("ledger-status")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        buttons = QDialogButtonBox()
        self.test_button = buttons.addButton(_("Test connection"), QDialogButtonBox.ButtonRole.ActionRole)
        self.own_button = buttons.addButton(_("Use this computer's own ledger"), QDialogButtonBox.ButtonRole.ResetRole)
        self.save_button = buttons.addButton(_("Save"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = buttons.addButton(_("Cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        for button, name in (
            (self.test_button, "test-ledger"),
            (self.own_button, "own-ledger"),
            (self.save_button, "save-ledger"),
            (self.cancel_button, "cancel-ledger"),
        ):
            button.setObjectName(name)
            button.setAccessibleName(button.text())
        self.own_button.setEnabled(bool(session.settings.ledger_url))
        self.tasks = session.tasks.child(self)  # testing and saving end with the dialog
        self.test_button.clicked.connect(lambda: self.tasks.replace("test ledger", self.test()))
        self.save_button.clicked.connect(lambda: self.tasks.replace("save ledger", self.save()))
        self.own_button.clicked.connect(lambda: self.tasks.replace("own ledger", self.use_own()))
        self.cancel_button.clicked.connect(self.reject)
        self.rename_button.clicked.connect(lambda: self.tasks.replace("rename desk", self.rename()))
        self.rename_button.setEnabled(naming is not None)
        self.passing = Passing(session, self)  # a refusal said goes when its cause goes
        layout.addWidget(buttons)
        # as wide as its row of buttons in any language (longer words squashed them)
        margins = layout.contentsMargins()
        self.setMinimumWidth(max(WIDTH, buttons.sizeHint().width() + margins.left() + margins.right()))
        keep_wrapped_height(self)  # its fields never squashed under the wrapped intro

    def _name_row(self, form: QFormLayout) -> None:
        """This desk's name, its Rename desk button and, under them, what became of it."""
        self.desk_name = QLineEdit(self.session.settings.desk_name or "")
        self.desk_name.setObjectName("desk-name")
        self.desk_name.setAccessibleName(_("Desk name"))
        self.desk_name.setPlaceholderText(self.session.desk_name)
        self.desk_name.setToolTip(_(NAME_HINT))
        self.rename_button = QPushButton(_("Rename desk"))
        self.rename_button.setObjectName("rename-desk")
        self.rename_button.setAccessibleName(_("Rename desk"))
        self.rename_button.setAutoDefault(False)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.desk_name, 1)
        row.addWidget(self.rename_button)
        box = QWidget()  # the row's widget: the field and its button side by side
        box.setLayout(row)
        self.desk_name_message = add_field_row(
            form, _("Desk &name"), box, "desk-name", self.desk_name, lines=NAME_LINES
        )

    async def rename(self) -> bool:
        """Name this desk now (empty: its default name), said beside the field."""
        if self.naming is None:
            return False
        try:
            name = await self.naming.rename(self.desk_name.text())
        except DeskNameRefused as error:
            self.desk_name_message.say(str(error))
            return False
        except LedgerError as error:  # a shared ledger out of reach: its one sentence,
            self.desk_name_message.say(str(error))  # gone when the ledger answers again
            self.passing.said(self.desk_name_message, str(error), error)
            return False
        self.desk_name.setPlaceholderText(name)
        self.desk_name_message.say(_(RENAMED).format(name=name), ok=True)
        return True

    async def load_password(self) -> None:
        """The saved address's password, masked (before the dialog shows)."""
        if self.session.settings.ledger_url:
            password = await saved_password(self.session, self.session.settings.ledger_url)
            self.password.edit.setText(password or "")

    def _address(self) -> str | None:
        """The address typed, its password moved to the password field; None (and said
        next to the field) when it cannot be used."""
        self.url_message.say(None)
        self.password_message.say(None)
        clean, typed = split_password(self.url.text())
        if typed:
            self.url.setText(clean)
            self.password.edit.setText(typed)
            self.password_message.say(_(MOVED), ok=True)
        problem = url_problem(clean)
        if problem:
            self.url_message.say(problem)
            return None
        return clean

    def _busy(self, busy: bool) -> None:
        for button in (self.test_button, self.save_button):
            button.setEnabled(not busy)

    async def test(self) -> bool:
        """Connect once (off the GUI thread) and say what went wrong next to its field."""
        url = self._address()
        if url is None:
            return False
        from ..ledger.postgres.probe import probe  # psycopg is loaded when first needed

        logs.REDACTOR.add(self.password.text())  # tried, if not kept: never in a log line
        self.status.setText(_("Connecting…"))
        self._busy(True)
        try:
            result = await asyncio.to_thread(probe, url, self.password.text())
        finally:
            self._busy(False)
        field = self.password_message if result.field == "password" else self.url_message
        field.say(result.message, ok=result.works)
        self.status.setText(_("The ledger answers.") if result.works else _("The ledger could not be used."))
        return result.works

    async def save(self) -> bool:
        url = self._address()
        if url is None:
            return False
        try:
            persisted = await save_shared_ledger(self.session, url, self.password.text())
        except LedgerSetupError as error:
            self.url_message.say(str(error))
            return False
        where = parse(url).where
        note = (
            ""
            if persisted
            else (
                _(" Its password is kept for this session only ({why}).").format(
                    why=self.session.keys.problem or _("there is no system keyring")
                )
            )
        )
        self.session.report(
            _("Shared ledger {where} saved: {restart}{note}").format(where=where, restart=_(RESTART_NOTE), note=note)
        )
        self.accept()
        return True

    async def use_own(self) -> None:
        await use_own_ledger(self.session)
        self.session.report(_("This computer's own ledger chosen: {restart}").format(restart=_(RESTART_NOTE)))
        self.accept()

    def done(self, result: int) -> None:  # Qt's name
        """Closing the dialog (Save, Cancel, Escape) ends what it started."""
        self.tasks.cancel()
        super().done(result)
