"""Settings → Staff…: the shop's staff (add, change, remove) and this computer's idle lock.

With no staff yet it starts the set-up: the first person added is an Admin, signed in at
once, and from then on PayDesk opens on the sign-in screen. The rules (who may manage
staff, the first person an Admin, the PIN's hash) are the desk's (desk/sign_in.py): the
dialog asks, and says a refusal in one sentence under the list.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ...desk.sign_in import SignIn
from ...desk.staff import Person, Staff
from ...desk.tasks import TaskSet
from ...i18n import N_, _, ngettext
from ...ledger import LedgerError
from ...service.errors import ServiceError
from ..dialogs import confirm, run_dialog
from ..field_message import FieldMessage
from ..widgets import button, shown_label
from . import StaffWindow
from .names import wrap_names
from .person import PersonDialog

FIRST_WORDS = N_(
    "No staff are set up: anyone at this computer may do everything. Add the first person, "
    "an Admin: they are signed in at once, and from then on PayDesk opens on the sign-in screen."
)
STAFF_WORDS = N_("Each person signs in with their own PIN. What they may do follows their role.")
IDLE_MOST = 240  # minutes


async def open_staff(window: StaffWindow) -> StaffDialog:
    """Settings → Staff…, opened over ``window`` until it is closed."""
    dialog = StaffDialog(window.desk.sign_in, window.session.staff, window.tasks, window)
    await run_dialog(dialog, before=dialog.reload())
    return dialog


class StaffDialog(QDialog):
    def __init__(self, sign_in: SignIn, staff: Staff, tasks: TaskSet, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("staff-dialog")
        self.setWindowTitle(_("Staff"))
        self.sign_in, self.staff = sign_in, staff
        self.tasks = tasks.child(self)
        self._people: list[Person] = []
        column = QVBoxLayout(self)
        self.words = QLabel(_(STAFF_WORDS))
        self.words.setObjectName("staff-words")
        self.words.setWordWrap(True)
        column.addWidget(self.words)
        caption = QLabel(_("&People"))
        column.addWidget(caption)
        row = QHBoxLayout()
        self.people = QListWidget()
        self.people.setObjectName("staff-people")
        self.people.setAccessibleName(shown_label(caption.text()))
        self.people.setMinimumSize(260, 160)
        wrap_names(self.people)
        caption.setBuddy(self.people)
        row.addWidget(self.people, 1)
        buttons = QVBoxLayout()
        self.add_button = button(_("&Add person…"), "add-person")
        self.change_button = button(_("&Change…"), "change-person")
        self.remove_button = button(_("&Remove…"), "remove-person")
        for made in (self.add_button, self.change_button, self.remove_button):
            buttons.addWidget(made)
        buttons.addStretch(1)
        row.addLayout(buttons)
        column.addLayout(row)
        self.message = FieldMessage("staff", lines=2)
        column.addWidget(self.message)
        form = QFormLayout()
        self.idle = QSpinBox()
        self.idle.setObjectName("idle-lock-minutes")
        self.idle.setRange(0, IDLE_MOST)
        self.idle.setSpecialValueText(_("Never"))
        self.idle.setToolTip(_("On this computer: PayDesk locks after this many minutes without a key or a click"))
        idle_caption = QLabel(_("&Lock after"))
        self.idle.setAccessibleName(shown_label(idle_caption.text()))
        idle_caption.setBuddy(self.idle)
        form.addRow(idle_caption, self.idle)
        column.addLayout(form)
        self.idle_message = FieldMessage("idle-lock", lines=1)
        column.addWidget(self.idle_message)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close_button = close.button(QDialogButtonBox.StandardButton.Close)
        close_button.setAccessibleName(shown_label(close_button.text()))
        close.rejected.connect(self.reject)
        column.addWidget(close)

        self.add_button.clicked.connect(lambda: self.tasks.replace("person", self.add()))
        self.change_button.clicked.connect(lambda: self.tasks.replace("person", self.change()))
        self.remove_button.clicked.connect(lambda: self.tasks.replace("person", self.remove()))
        self.people.currentRowChanged.connect(self._chosen)
        self.people.itemActivated.connect(lambda _item: self.tasks.replace("person", self.change()))
        self.idle.setValue(int(sign_in.idle_lock_minutes or 0))
        self._idle_words(self.idle.value())
        self.idle.valueChanged.connect(self._idle_words)
        self.idle.valueChanged.connect(lambda n: self.tasks.replace("idle", self._set_idle(n)))
        self._chosen()

    # -- the list --------------------------------------------------------------------------

    async def reload(self) -> None:
        chosen = self.chosen()
        try:
            self._people = await self.sign_in.people()
        except (LedgerError, ServiceError) as error:
            self.message.say(_("The staff could not be read: {error}").format(error=error))
            return
        self.people.clear()
        for person in self._people:
            item = QListWidgetItem(person.label)
            item.setToolTip(person.label)
            item.setData(Qt.ItemDataRole.UserRole, person.id)
            self.people.addItem(item)
            if chosen is not None and person.id == chosen.id:
                self.people.setCurrentItem(item)
        if self.people.currentRow() < 0 and self._people:
            self.people.setCurrentRow(0)
        first = not self._people
        self.words.setText(_(FIRST_WORDS if first else STAFF_WORDS))
        self.add_button.setText(_("&Add the first Admin…") if first else _("&Add person…"))
        self.add_button.setAccessibleName(shown_label(self.add_button.text()))
        self._chosen()

    def chosen(self) -> Person | None:
        row = self.people.currentRow()
        return self._people[row] if 0 <= row < len(self._people) else None

    def _chosen(self, *_: object) -> None:
        some = self.chosen() is not None
        self.change_button.setEnabled(some)
        self.remove_button.setEnabled(some)

    # -- add, change, remove ---------------------------------------------------------------

    async def add(self) -> None:
        first = not self._people
        dialog = PersonDialog(self.sign_in, None, self.tasks, self, first=first)
        if await run_dialog(dialog):
            added = dialog.done_person
            self.message.say(_("{name} added.").format(name=added.name) if added else None, ok=True)
            await self.reload()

    async def change(self) -> None:
        person = self.chosen()
        if person is None:
            return
        dialog = PersonDialog(self.sign_in, person, self.tasks, self)
        if await run_dialog(dialog):
            self.message.say(_("{name} changed.").format(name=person.name), ok=True)
            await self.reload()

    async def remove(self) -> None:
        person = self.chosen()
        if person is None:
            return
        if not await confirm(
            self,
            _("Remove this person?"),
            _("Remove {name} ({role})?").format(name=person.name, role=person.role.title),
            _("They can no longer sign in. What they did stays in the ledger under their name."),
            _("Remove"),
            _("Keep"),
            object_name="confirm-remove-person",
        ):
            return
        try:
            await self.sign_in.remove_person(person.id)
        except (LedgerError, ServiceError) as error:  # NotAllowed among them
            self.message.say(str(error))
            return
        self.message.say(_("{name} removed.").format(name=person.name), ok=True)
        await self.reload()

    def _idle_words(self, minutes: int) -> None:
        self.idle.setSuffix(ngettext(" idle minute", " idle minutes", minutes))

    async def _set_idle(self, minutes: int) -> None:
        try:
            await self.sign_in.set_idle_lock_minutes(minutes)
        except (OSError, LedgerError, ServiceError) as error:
            self.idle_message.say(_("Not saved: {error}").format(error=error))
            return
        self.idle_message.say(None)
