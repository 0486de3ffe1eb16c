"""Rename the counter (*Rename counter…* on the Counter tab): allowed only while the open shift
has no sales, so a shift is always one counter's; the reason is said next to the name."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLineEdit, QVBoxLayout, QWidget

from ...desk.counter import CounterController, RenameRefused
from ...desk.tasks import TaskSet
from ...i18n import _
from ...ledger import LedgerError
from ..field_message import add_field_row


class RenameDialog(QDialog):
    def __init__(self, controller: CounterController, tasks: TaskSet, parent: QWidget) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setObjectName("rename-counter")
        self.setWindowTitle(_("Rename the counter"))
        self.setMinimumWidth(420)
        self.tasks = tasks.child(self)
        column = QVBoxLayout(self)
        form = QFormLayout()
        self.name = QLineEdit(controller.name)
        self.name.setObjectName("counter-new-name")
        self.name.setAccessibleName(_("Counter name"))
        self.name.selectAll()
        self.message = add_field_row(
            form, _("Counter &name"), self.name, "counter-new-name", lines=2
        )  # why it cannot be renamed, read whole
        column.addLayout(form)
        buttons = QDialogButtonBox()
        self.rename = buttons.addButton(_("Rename"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.rename.setObjectName("rename-counter-action")
        self.rename.setAccessibleName(_("Rename"))
        self.cancel = buttons.addButton(_("Cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        self.cancel.setObjectName("rename-counter-cancel")
        self.cancel.setAccessibleName(_("Cancel"))
        self.cancel.clicked.connect(self.reject)
        self.rename.clicked.connect(self.accept)
        column.addWidget(buttons)
        self.rename.setDefault(True)

    def accept(self) -> None:  # Enter and Rename: try it, and close only once done
        if self.rename.isEnabled():
            self.tasks.replace("rename", self.submit())

    async def submit(self) -> bool:
        self.rename.setEnabled(False)
        try:
            await self.controller.rename(self.name.text())
        except RenameRefused as refused:
            self.message.say(refused.message)
            return False
        except LedgerError as refused:  # a shared ledger out of reach: its shifts unread
            self.message.say(str(refused))
            return False
        except OSError as error:  # counter.json could not be written
            self.message.say(_("Not renamed: {why}").format(why=error.strerror or error))
            return False
        finally:
            self.rename.setEnabled(True)
        super().accept()
        return True
