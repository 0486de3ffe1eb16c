"""Add person… and Change…: a person's name, role and PIN (typed twice), for the Staff
dialog. A PIN is never shown, kept, nor put in a message: it goes to the desk, which keeps
only its hash."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialog, QFormLayout, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from ...desk.sign_in import SignIn
from ...desk.staff import Person, Role
from ...desk.tasks import TaskSet
from ...ledger import LedgerError
from ...service.errors import ServiceError
from ..field_message import FieldMessage, add_field_row
from ..widgets import button

ROLE_WORDS = {
    Role.COUNTER: "Counter: sells, voids their own open sale, closes their shift",
    Role.FINANCE: "Finance: links, bulk links, Transactions, exports, receipts, end of day",
    Role.ADMIN: "Admin: everything, with cards, profiles and keys, live mode and staff",
}


def _pin_field(name: str, accessible: str) -> QLineEdit:
    field = QLineEdit()
    field.setObjectName(name)
    field.setAccessibleName(accessible)
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
            self.setWindowTitle("Add the first Admin" if first else "Add person")
        else:
            self.setWindowTitle(f"Change {person.name}")
        column = QVBoxLayout(self)
        form = QFormLayout()
        column.addLayout(form)
        self.name = QLineEdit(person.name if person else "")
        self.name.setObjectName("person-name")
        self.name.setAccessibleName("Name")
        self.name.setMaxLength(40)
        self.messages: dict[str, FieldMessage] = {}
        self.messages["name"] = add_field_row(form, "&Name", self.name, "person-name")
        self.role = QComboBox()
        self.role.setObjectName("person-role")
        self.role.setAccessibleName("Role")
        for role in (Role.ADMIN,) if first else tuple(Role):
            self.role.addItem(role.title, role)
            self.role.setItemData(self.role.count() - 1, ROLE_WORDS[role], Qt.ItemDataRole.ToolTipRole)
        if person is not None:
            self.role.setCurrentIndex(self.role.findData(person.role))
        self.messages["role"] = add_field_row(form, "&Role", self.role, "person-role")
        self.pin = _pin_field("person-pin", "PIN" if adding else "New PIN")
        self.messages["pin"] = add_field_row(form, "&PIN" if adding else "&New PIN", self.pin, "person-pin")
        if not adding:
            self.pin.setPlaceholderText("empty: the PIN stays")
        self.again = _pin_field("person-pin-again", "PIN again")
        self.messages["again"] = add_field_row(form, "PIN &again", self.again, "person-pin-again")
        self.message = FieldMessage("person", lines=2)
        column.addWidget(self.message)
        row = QHBoxLayout()
        row.addStretch(1)
        verb = "&Add person" if adding else "&Save changes"
        self.action = button(verb, "person-action")
        self.action.setDefault(True)
        self.cancel = button("Cancel", "person-cancel")
        row.addWidget(self.action)
        row.addWidget(self.cancel)
        column.addLayout(row)
        self.action.clicked.connect(self.submit)
        self.cancel.clicked.connect(self.reject)
        self.role.currentIndexChanged.connect(self._role_tip)
        self._role_tip()

    def _role_tip(self, *_: object) -> None:
        role = self.role.currentData()
        self.role.setToolTip(ROLE_WORDS[role] if role is not None else "")

    def problems(self) -> dict[str, str]:
        """What is wrong with the form as typed (the desk checks the rest)."""
        found: dict[str, str] = {}
        if not self.name.text().strip():
            found["name"] = "Type the person's name, as the status bar will show it"
        pin, again = self.pin.text(), self.again.text()
        if self.person is None or pin or again:
            if not pin.isdigit() or len(pin) < 4:
                found["pin"] = "At least 4 digits, digits only"
            elif pin != again:
                found["again"] = "Not the same PIN: type it again"
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
