"""The sign-in screen: who is at the desk (a list of the shop's staff), their PIN, Enter.

Shown over the main window's content when staff are set up and nobody is signed in: at
start, after *Lock* (Ctrl+L) and after the idle minutes. A wrong PIN is said in one
sentence under the PIN field; once the wait grows (desk/sign_in.py), the sentence counts it
down and the field takes no PIN until it is over. The waits are the desk's (kept in the
ledger); the screen only shows them, per person: another person may sign in meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...desk.sign_in import SignIn, WrongPin
from ...desk.staff import Person
from ...desk.tasks import TaskSet
from ...i18n import N_, _
from ...ledger import LedgerError
from ...service.errors import ServiceError
from ..field_message import add_field_row
from ..widgets import button, shown_label
from .names import wrap_names

SIGN_IN_TITLE = N_("Sign in")
LOCKED_TITLE = N_("PayDesk is locked")
LOCKED_WORDS = N_("Choose who you are and type your PIN. The open shift and the customer's screen are kept.")
SIGN_IN_WORDS = N_("Choose who you are and type your PIN.")


class SignInScreen(QWidget):
    """The page over the window's content while nobody is signed in. ``act`` signs the chosen
    person in (the gate passes the desk's ``sign_in`` or, at a locked counter, ``switch``)."""

    def __init__(self, sign_in: SignIn, tasks: TaskSet) -> None:
        super().__init__()
        self.setObjectName("sign-in-screen")
        self.setAccessibleName(_(SIGN_IN_TITLE))
        self.sign_in = sign_in
        self.tasks = tasks
        self.act: Callable[[str, str], Awaitable[Person]] = sign_in.sign_in
        self.last_id: str | None = None  # who was signed in last: chosen first
        self._counting: str | None = None  # whose wait the message counts down
        self._waits: dict[str, tuple[float, bool]] = {}  # person id -> (when their wait
        # ends (monotonic), whether the PIN was not even checked: the wait ran already)

        self.sides = sides = QHBoxLayout(self)  # the box in the middle, or beside the customer's view
        sides.addStretch(1)
        outer = QVBoxLayout()
        sides.addLayout(outer)
        self.customer_side = QVBoxLayout()  # a one-screen counter's customer view, while locked
        sides.addLayout(self.customer_side)
        sides.addStretch(1)
        outer.addStretch(1)
        box = QFrame()
        box.setObjectName("sign-in-box")
        box.setMaximumWidth(420)
        column = QVBoxLayout(box)
        self.title = QLabel(_(SIGN_IN_TITLE))
        self.title.setObjectName("sign-in-title")
        font = self.title.font()
        font.setPointSize(font.pointSize() + 6)
        font.setBold(True)
        self.title.setFont(font)
        column.addWidget(self.title)
        self.words = QLabel(_(SIGN_IN_WORDS))
        self.words.setObjectName("sign-in-words")
        self.words.setWordWrap(True)
        column.addWidget(self.words)
        form = QFormLayout()
        column.addLayout(form)
        self.people = QListWidget()
        self.people.setObjectName("sign-in-people")
        self.people.setMinimumHeight(120)
        wrap_names(self.people)
        caption = QLabel(_("&Person"))
        self.people.setAccessibleName(shown_label(caption.text()))
        caption.setBuddy(self.people)
        form.addRow(caption, self.people)
        self.pin = QLineEdit()
        self.pin.setObjectName("sign-in-pin")
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin.setMaxLength(32)
        pin_caption = _("P&IN")
        self.pin.setAccessibleName(shown_label(pin_caption))
        self.message = add_field_row(form, pin_caption, self.pin, "sign-in-pin", lines=2)
        self.button = button(_("&Sign in"), "sign-in-button")
        self.button.setDefault(True)
        column.addWidget(self.button, 0, Qt.AlignmentFlag.AlignRight)
        outer.addWidget(box, 0, Qt.AlignmentFlag.AlignHCenter)
        outer.addStretch(2)

        self.pin.returnPressed.connect(self.submit)
        self.button.clicked.connect(self.submit)
        self.people.currentItemChanged.connect(self._person_chosen)
        self.people.itemActivated.connect(lambda _item: self.pin.setFocus(Qt.FocusReason.OtherFocusReason))
        self._tick = QTimer(self)
        self._tick.setInterval(250)
        self._tick.timeout.connect(self._count_down)

    # -- what it shows ---------------------------------------------------------------------

    def hold(self, view: QWidget) -> None:
        """The customer's view of a one-screen counter, beside the sign-in box while locked:
        the customer keeps seeing the code or the amount they are paying."""
        self.customer_side.addWidget(view)
        self.sides.setStretch(2, 4)
        self.sides.setStretch(3, 0)
        view.show()

    def released(self) -> None:
        """The customer's view has gone back to the Counter tab: the box in the middle."""
        self.sides.setStretch(2, 0)
        self.sides.setStretch(3, 1)

    def set_locked(self, locked: bool) -> None:
        """Locked (someone was signed in at this desk) or signing in at start."""
        title = _(LOCKED_TITLE if locked else SIGN_IN_TITLE)
        self.title.setText(title)
        self.setAccessibleName(title)
        self.words.setText(_(LOCKED_WORDS if locked else SIGN_IN_WORDS))

    async def reload(self) -> None:
        """The shop's staff, read again (a person added or removed at another desk)."""
        try:
            people = await self.sign_in.people()
        except (LedgerError, ServiceError) as error:
            self.message.say(_("The staff could not be read: {error}").format(error=error))
            return
        chosen = self.chosen() or self.last_id
        self.people.blockSignals(True)
        self.people.clear()
        for person in people:
            item = QListWidgetItem(person.label)
            item.setToolTip(person.label)
            item.setData(Qt.ItemDataRole.UserRole, person.id)
            self.people.addItem(item)
            if person.id == chosen:
                self.people.setCurrentItem(item)
        if self.people.currentItem() is None and self.people.count():
            self.people.setCurrentRow(0)
        self.people.blockSignals(False)
        self._person_chosen()

    def chosen(self) -> str | None:
        item = self.people.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def focus(self) -> None:
        """Typing goes to the PIN (the person already chosen), else to the list."""
        target = self.pin if self.pin.isEnabled() and self.chosen() else self.people
        target.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- signing in ------------------------------------------------------------------------

    def submit(self) -> None:
        person_id, pin = self.chosen(), self.pin.text()
        if person_id is None:
            self.message.say(_("Choose who you are in the list first."))
            return
        if not pin:
            self.message.say(_("Type your PIN."))
            return
        if self._waiting(person_id):
            return
        self.tasks.replace("sign in", self._sign_in(person_id, pin))

    async def _sign_in(self, person_id: str, pin: str) -> None:
        self.button.setEnabled(False)
        try:
            await self.act(person_id, pin)
        except WrongPin as wrong:
            self.pin.clear()
            if wrong.wait_s > 0:
                self._waits[person_id] = (time.monotonic() + wrong.wait_s, wrong.waiting)
                self._tick.start()
                self._person_chosen()
            else:
                self.message.say(str(wrong))
        except (LedgerError, ServiceError) as error:  # NotAllowed among them: one sentence
            self.message.say(str(error))
        else:
            self.pin.clear()
            self.message.say(None)
            self.last_id = person_id
        finally:
            if not self._waiting(self.chosen()):
                self.button.setEnabled(True)

    def _waiting(self, person_id: str | None) -> float:
        """Seconds left of ``person_id``'s wait (0: none)."""
        if person_id is None:
            return 0.0
        left = self._waits.get(person_id, (0.0, False))[0] - time.monotonic()
        if left <= 0:
            self._waits.pop(person_id, None)
            return 0.0
        return left

    def _person_chosen(self, *_args: object) -> None:
        chosen = self.chosen()
        left = self._waiting(chosen)
        self.pin.setEnabled(not left)
        self.button.setEnabled(not left)
        if left and chosen is not None:  # the desk's words, the seconds counted down
            self.message.say(str(WrongPin(left, waiting=self._waits[chosen][1])))
        elif self._counting is not None:  # the wait counted down is over, or another's
            self.message.say(str(WrongPin(0)) if self._counting == chosen else None)
        self._counting = chosen if left else None

    def _count_down(self) -> None:
        was_waiting = not self.pin.isEnabled()
        # whether any wait runs, looked at before the screen is: a wait that ends between
        # the two looks is then shown over, not kept waiting with nothing left to count it
        running = [p for p in list(self._waits) if self._waiting(p)]
        self._person_chosen()
        if not running:
            self._tick.stop()
        if was_waiting and self.pin.isEnabled() and self.isVisible():
            self.pin.setFocus(Qt.FocusReason.OtherFocusReason)  # the wait is over: type again
