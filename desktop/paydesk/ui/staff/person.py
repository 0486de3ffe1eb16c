"""Add person… and Change…: a person's name, role and PIN (typed twice), for the Staff
dialog. A PIN is never shown, kept, nor put in a message: it goes to the desk, which keeps
only its hash."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialog, QFormLayout, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from ...desk.sign_in import SignIn
from ...desk.staff import Person, Role
from ...desk.tasks import TaskSet
from ...i18n import N_, _
from ...ledger import LedgerError
from ...service.errors import ServiceError
from ..field_message import FieldMessage, add_field_row
from ..widgets import button, shown_label

ROLE_WORDS = {
    Role.COUNTER: N_("Counter: sells, voids their own open sale, closes their shift"),
    Role.FINANCE: N_("Finance: links, bulk links, Transactions, exports, receipts, end of day"),
    Role.ADMIN: N_("Admin: everything, with cards, profiles and keys, live mode and staff"),
}


def _pin_field(name: str) -> QLineEdit:
    field = QLineEdit()
    field.setObjectName(name)
    field.setEchoMode(QLineEdit.EchoMode.Password)
    field.setMaxLength(32)
    return field


class PersonDialog(QDialog):
    """A new person (``person`` None; ``first``: the shop's first, an Admin) or a change to
    ``person`` (an empty PIN keeps theirs)."""

    def __init__(
        self, sign_in: SignIn, person: Person | None, tasks: TaskSet, parent: QWidget, *, first: bool = False
    ) -> None:
        super().__init__(parent)
        self.setObjectName("person-dialog")
        self.sign_in, self.person = sign_in, person
        self.tasks = tasks.child(self)
        self.done_person: Person | None = None
        self.setMinimumWidth(460)  # room for the fields' messages on one line
        adding = person is None
        if person is None:
            self.setWindowTitle(_("Add the first Admin") if first else _("Add person"))
        else:
            self.setWindowTitle(_("Change {name}").format(name=person.name))
        column = QVBoxLayout(self)
        form = QFormLayout()
        column.addLayout(form)
        self.name = QLineEdit(person.name if person else "")
        self.name.setObjectName("person-name")
        self.name.setMaxLength(40)
        self.messages: dict[str, FieldMessage] = {}
        self.messages["name"] = self._row(form, _("&Name"), self.name, "person-name")
        self.role = QComboBox()
        self.role.setObjectName("person-role")
        for role in (Role.ADMIN,) if first else tuple(Role):
            self.role.addItem(role.title, role)
            self.role.setItemData(self.role.count() - 1, _(ROLE_WORDS[role]), Qt.ItemDataRole.ToolTipRole)
        if person is not None:
            self.role.setCurrentIndex(self.role.findData(person.role))
        self.messages["role"] = self._row(form, _("&Role"), self.role, "person-role")
        self.pin = _pin_field("person-pin")
        self.messages["pin"] = self._row(form, _("&PIN") if adding else _("&New PIN"), self.pin, "person-pin")
        if not adding:
            self.pin.setPlaceholderText(_("empty: the PIN stays"))
        self.again = _pin_field("person-pin-again")
        self.messages["again"] = self._row(form, _("PIN &again"), self.again, "person-pin-again")
        self.message = FieldMessage("person", lines=2)
        column.addWidget(self.message)
        row = QHBoxLayout()
        row.addStretch(1)
        self.action = button(_("&Add person") if adding else _("&Save changes"), "person-action")
        self.action.setDefault(True)
        self.cancel = button(_("Cancel"), "person-cancel")
        row.addWidget(self.action)
        row.addWidget(self.cancel)
        column.addLayout(row)
        self.action.clicked.connect(self.submit)
        self.cancel.clicked.connect(self.reject)
        self.role.currentIndexChanged.connect(self._role_tip)
        self._role_tip()

    @staticmethod
    def _row(form: QFormLayout, caption: str, field: QWidget, name: str) -> FieldMessage:
        """A field's row (its caption, the field, its message), the field named by its caption."""
        field.setAccessibleName(shown_label(caption))
        return add_field_row(form, caption, field, name)

    def _role_tip(self, *_args: object) -> None:
        role = self.role.currentData()
        self.role.setToolTip(_(ROLE_WORDS[role]) if role is not None else "")

    def problems(self) -> dict[str, str]:
        """What is wrong with the form as typed (the desk checks the rest)."""
        found: dict[str, str] = {}
        if not self.name.text().strip():
            found["name"] = _("Type the person's name, as the status bar will show it")
        pin, again = self.pin.text(), self.again.text()
        if self.person is None or pin or again:
            if not (pin.isdigit() and 4 <= len(pin) <= 8):
                found["pin"] = _("A PIN is 4 to 8 digits.")
            elif pin != again:
                found["again"] = _("Not the same PIN: type it again")
        return found

    def submit(self) -> None:
        found = self.problems()
        for name, message in self.messages.items():
            message.say(found.get(name))
        self.message.say(None)
        if not found:
            self.tasks.replace("save person", self._save())

    async def _save(self) -> None:
        name, role, pin = self.name.text().strip(), self.role.currentData(), self.pin.text()
        self.action.setEnabled(False)
        try:
            if self.person is None:
                self.done_person = await self.sign_in.add_person(name, role, pin)
            else:
                self.done_person = await self.sign_in.change_person(
                    self.person.id, name=name, role=role, pin=pin or None
                )
        except (ValueError, LedgerError, ServiceError) as error:  # NotAllowed among them
            self.message.say(str(error))
            return
        finally:
            self.action.setEnabled(True)
        self.accept()
