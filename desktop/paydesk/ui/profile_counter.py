"""The profile editor's counter defaults (split from profile_editor.py): the walk-in
customer's name, the shop's e-mail and the customer display's logo, each checked next to its
box."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Protocol, TypedDict

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from ..config.profiles import WALK_IN_NAME, Profile
from ..desk.checks import email as check_email
from ..desk.checks import name as check_name
from ..desk.tasks import TaskSet
from ..i18n import CUSTOMER_LANGUAGES, N_, _, customer, pgettext
from . import files
from .dialogs import shown
from .field_message import add_field_row
from .fixed_text import use_fixed


class Editor(Protocol):
    """The profile editor, whose tasks the logo's file dialog runs in."""

    tasks: TaskSet


class CounterValues(TypedDict):
    """The group's fields as the profile keeps them."""

    walk_in_name: str
    shop_email: str
    counter_logo: str
    customer_language: str


LOGO_HINT = N_(
    "A file on this computer. Each counter shows the image at this path on its own "
    "computer: with a shared ledger, put the image at the same path on every counter "
    "(a counter without it shows no logo)."
)


class CounterGroup(QGroupBox):
    """The profile's counter defaults: what a counter sale is made with when the customer
    gives no name or e-mail, and the logo the customer display shows."""

    def __init__(self, profile: Profile | None, tasks_owner: Editor) -> None:
        super().__init__(pgettext("profile", "Counter"))
        self.setObjectName("profile-counter")
        self.editor = tasks_owner
        form = QFormLayout(self)
        defaults = profile or Profile(id="", name="", base_url="")
        self.walk_in = QLineEdit(defaults.walk_in_name)
        self.walk_in.setObjectName("profile-walk-in")
        self.walk_in.setAccessibleName(_("Walk-in customer name"))
        self.walk_in.setToolTip(
            _(
                "The name counter sales are made under; its first word is sent as the first name, "
                "the rest as the last name"
            )
        )
        self.walk_in_message = add_field_row(form, _("Wal&k-in customer name"), self.walk_in, "profile-walk-in")
        self.shop_email = QLineEdit(defaults.shop_email)
        self.shop_email.setObjectName("profile-shop-email")
        self.shop_email.setAccessibleName(_("Shop e-mail"))
        self.shop_email.setPlaceholderText("shop@example.com")
        self.shop_email.setToolTip(
            _(
                "Used when the customer gives no e-mail (the service sends "
                "its receipt there); the counter cannot sell without it"
            )
        )
        self.shop_email_message = add_field_row(form, _("Shop &e-mail"), self.shop_email, "profile-shop-email")
        self.logo = QLineEdit(defaults.counter_logo)
        self.logo.setObjectName("profile-counter-logo")
        self.logo.setAccessibleName(_("Customer display logo"))
        self.logo.setPlaceholderText(_("none"))
        self.logo.setToolTip(_("An image shown above the amount on the customer's screen"))
        self.choose_logo = QPushButton(_("Choose…"))
        self.choose_logo.setObjectName("profile-counter-logo-choose")
        self.choose_logo.setAccessibleName(_("Choose…"))
        self.choose_logo.setAccessibleDescription(_("Choose the customer display logo"))
        self.choose_logo.clicked.connect(lambda: self.editor.tasks.replace("choose logo", self.choose()))
        logo_row = QWidget()
        row = QHBoxLayout(logo_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.logo, 1)
        row.addWidget(self.choose_logo)
        self.logo_message = add_field_row(
            form, _("Customer display &logo"), logo_row, "profile-counter-logo", self.logo
        )
        # the path is read on each counter's own computer (a shared ledger shares the path,
        # not the image): said where it is typed
        self.logo_hint = QLabel(_(LOGO_HINT))
        self.logo_hint.setObjectName("profile-counter-logo-hint")
        self.logo_hint.setAccessibleName(_(LOGO_HINT))
        self.logo_hint.setWordWrap(True)
        self.logo_hint.setTextFormat(Qt.TextFormat.PlainText)
        form.addRow(self.logo_hint)  # the whole row wide: a few lines, not a tall column
        # what the customer reads: the display, receipts, the QR sheet, e-mails
        self.customer_language = QComboBox()
        self.customer_language.setObjectName("profile-customer-language")
        self.customer_language.setAccessibleName(_("Customer language"))
        self.customer_language.setToolTip(
            _(
                "The language of the customer display, receipts, the QR sheet and e-mails; "
                "the staff's is Settings → Language"
            )
        )
        for code, name in CUSTOMER_LANGUAGES.items():  # each named in itself
            self.customer_language.addItem(name, code)
        self.customer_language.setCurrentIndex(max(0, self.customer_language.findData(defaults.customer_language)))
        add_field_row(form, _("C&ustomer language"), self.customer_language, "profile-customer-language")
        self._language = str(self.customer_language.currentData())
        self.customer_language.currentIndexChanged.connect(self._walk_in_follows)
        use_fixed(self.shop_email, self.logo)
        self.shop_email.textEdited.connect(lambda _: self.shop_email_message.say(None))

    async def choose(self) -> None:
        """The standard open dialog, for an image (not awaited with exec)."""
        dialog = QFileDialog(self, _("Choose the customer display logo"))
        dialog.setObjectName("logo-dialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilters([_("Images (*.png *.jpg *.jpeg *.svg *.bmp *.gif)"), _("All files (*)")])
        current = self.logo.text().strip()
        folder = Path(current).parent if current else await files.start_folder()
        dialog.setDirectory(str(folder))
        async with shown(dialog) as code:
            if code and dialog.selectedFiles():
                self.logo.setText(dialog.selectedFiles()[0])
                self.logo_message.say(None)

    def _walk_in_follows(self) -> None:
        """The walk-in name the profile was made with ("Walk-in customer") is in the customer's
        language: French chosen, it reads "Client de passage"; a name the person typed stays."""
        chosen = str(self.customer_language.currentData())
        if " ".join(self.walk_in.text().split()) == customer(self._language).gettext(WALK_IN_NAME):
            self.walk_in.setText(customer(chosen).gettext(WALK_IN_NAME))
        self._language = chosen

    def check(self) -> bool:
        """Each problem said next to its box; True when there is none."""
        ok = True
        walk_in = self.walk_in.text()
        # said whole when empty (not "the customer's …": it is the shop's name for them)
        problem = check_name(walk_in, _("walk-in name")) if walk_in.strip() else _("Enter the walk-in customer name")
        self.walk_in_message.say(problem)
        ok = ok and not problem
        email = self.shop_email.text().strip()
        problem = check_email(email) if email else None
        self.shop_email_message.say(problem)
        return ok and not problem

    async def check_logo(self) -> bool:
        """The logo is a file that can be read (looked at off the GUI thread), or none."""
        logo = self.logo.text().strip()
        if logo and not await asyncio.to_thread(Path(logo).is_file):
            self.logo_message.say(_("No such file: choose an image"))
            return False
        self.logo_message.say(None)
        return True

    def values(self) -> CounterValues:
        return {
            "walk_in_name": " ".join(self.walk_in.text().split()),
            "shop_email": self.shop_email.text().strip(),
            "counter_logo": self.logo.text().strip(),
            "customer_language": str(self.customer_language.currentData()),
        }
