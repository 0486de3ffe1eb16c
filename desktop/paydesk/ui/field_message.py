"""The line under a field: what is wrong with it (or that it works), said next to it."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QLabel, QVBoxLayout, QWidget

ERROR_STYLE = "color: #b3261e; font-weight: 600;"
OK_STYLE = "color: #1b7f3b;"
WARN_STYLE = "color: #8a5a00;"  # not wrong, not confirmed either (a key that could not be checked)


class FieldMessage(QLabel):
    def __init__(self, name: str):
        super().__init__("")
        self.setObjectName(name + "-message")
        self.setWordWrap(True)
        self.setStyleSheet(ERROR_STYLE)
        self.hide()

    def say(self, text: str | None, *, ok: bool = False, warn: bool = False) -> None:
        """Show ``text`` (an error; with ``ok`` a confirmation; with ``warn`` a caution, not
        an error); None or "" hides it."""
        self.setText(text or "")
        self.setAccessibleName(text or "")
        self.setStyleSheet(OK_STYLE if ok else WARN_STYLE if warn else ERROR_STYLE)
        self.setVisible(bool(text))


def add_field_row(form: QFormLayout, label: str, shown: QWidget, name: str,
                  buddy: QWidget | None = None) -> FieldMessage:
    """A row of ``form``: the caption (its mnemonic focuses ``buddy``, else ``shown``), the
    field and, under it, its message."""
    message = FieldMessage(name)
    box = QVBoxLayout()
    box.setSpacing(2)
    box.addWidget(shown)
    box.addWidget(message)
    caption = QLabel(label)
    caption.setBuddy(buddy or shown)
    form.addRow(caption, box)
    return message
