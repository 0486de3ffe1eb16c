"""First run with no profile: try the sandbox, or connect to your service."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from ..i18n import _

SANDBOX, CONNECT = 1, 2


class FirstRunDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("first-run")
        self.setWindowTitle(_("Welcome to PayDesk"))
        self.choice = 0
        layout = QVBoxLayout(self)
        intro = QLabel(_("<h2>Welcome to PayDesk</h2><p>PayDesk needs a payment service to talk to.</p>"))
        intro.setAccessibleName(_("Welcome to PayDesk"))
        layout.addWidget(intro)
        self.try_sandbox = QPushButton(_("Try the sandbox"))
        self.try_sandbox.setAccessibleName(_("Try the sandbox"))
        self.try_sandbox.setToolTip(
            _("A complete local copy of the service, with test keys: nothing is real, nothing leaves this computer")
        )
        self.connect_service = QPushButton(_("Connect to your service"))
        self.connect_service.setAccessibleName(_("Connect to your service"))
        self.connect_service.setToolTip(_("Enter your service's address and your keys"))
        for button, code in ((self.try_sandbox, SANDBOX), (self.connect_service, CONNECT)):
            button.setMinimumHeight(44)
            button.clicked.connect(lambda _checked=False, c=code: self._choose(c))
            layout.addWidget(button)
        self.try_sandbox.setDefault(True)

    def _choose(self, code: int) -> None:
        self.choice = code
        self.accept()
