"""What the counter asks before its first sale when the profile lacks it: the shop's
e-mail (the service needs an e-mail for every payment; a walk-in customer gives none). Shown
at the top of the Counter tab while the profile has none, with the field, its words and
*Save*; saved in the profile through the desk (``CounterController.set_shop_email``)."""

from __future__ import annotations

import logging

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
)

from ...desk.counter import CounterController
from ...desk.tasks import TaskSet
from ...i18n import N_, _
from ...ledger import LedgerError
from ...service.errors import ServiceError, ValidationError
from ..field_message import FieldMessage
from ..fixed_text import use_fixed

log = logging.getLogger("paydesk.counter.setup")

WORDS = N_(
    "The service needs an e-mail for every payment. Type the shop's e-mail: it is used when "
    "the customer gives none, and their receipt goes there. It is saved in the profile (Edit "
    "profile…, Counter)."
)


class ShopEmailBox(QFrame):
    saved = Signal()  # the profile has the shop's e-mail now
    message: FieldMessage  # (made below the field, whose edits clear it)

    def __init__(self, controller: CounterController, tasks: TaskSet) -> None:
        super().__init__()
        self.controller, self.tasks = controller, tasks
        self.setObjectName("counter-shop-email")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        grid = QGridLayout(self)
        self.words = QLabel(_(WORDS))
        self.words.setObjectName("counter-shop-email-words")
        self.words.setWordWrap(True)
        grid.addWidget(self.words, 0, 0, 1, 3)
        caption = QLabel(_("Shop e-&mail"))  # (Alt+S opens the Settings menu)
        self.field = QLineEdit()
        self.field.setObjectName("counter-shop-email-field")
        self.field.setAccessibleName(_("Shop e-mail"))
        self.field.setAccessibleDescription(_(WORDS))
        self.field.setPlaceholderText("shop@example.com")
        use_fixed(self.field)
        caption.setBuddy(self.field)
        self.field.textEdited.connect(lambda _text: self.message.say(None))
        self.field.returnPressed.connect(self._save_pressed)
        grid.addWidget(caption, 1, 0)
        grid.addWidget(self.field, 1, 1)
        self.save_button = QPushButton(_("Save"))
        self.save_button.setObjectName("counter-shop-email-save")
        self.save_button.setAccessibleName(_("Save"))
        self.save_button.setToolTip(_("Save the shop's e-mail in the profile"))
        self.save_button.clicked.connect(self._save_pressed)
        grid.addWidget(self.save_button, 1, 2)
        self.message = FieldMessage("counter-shop-email")
        grid.addWidget(self.message, 2, 1, 1, 2)
        grid.setColumnStretch(1, 1)
        self.hide()

    def follow(self) -> bool:
        """Shown while the active profile lacks the shop's e-mail; True when it is shown."""
        missing = self.controller.setup_missing()
        asked = missing is not None and missing.field == "shop_email"
        if asked and not self.isVisible():
            self.message.say(None)
        self.setVisible(asked)
        return asked

    def _save_pressed(self) -> None:
        if not self.save_button.isEnabled():
            return  # one save at a time
        self.tasks.spawn(self.save(), "shop e-mail")

    async def save(self) -> bool:
        self.save_button.setEnabled(False)
        try:
            await self.controller.set_shop_email(self.field.text())
        except ValidationError as bad:
            self.message.say(bad.errors.get("shop_email", [bad.message])[0])
            return False
        except LedgerError as refused:  # a shared ledger out of reach: its one sentence
            self.message.say(str(refused))
            return False
        except (ServiceError, OSError) as failure:  # not saved: said, kept typed
            log.info("the shop's e-mail could not be saved: %s", failure)
            self.message.say(_("Not saved: {why}").format(why=getattr(failure, "message", None) or failure))
            return False
        finally:
            self.save_button.setEnabled(True)
        self.hide()
        self.saved.emit()
        return True
