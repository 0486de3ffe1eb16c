"""The line under a field: what is wrong with it (or that it works), said next to it.

The line is kept whether or not there is something to say, so nothing moves under the mouse
when a message comes or goes; a message longer than the field is elided, the whole of it in
the tooltip and the accessible name."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from .elided import ElidedLabel

ERROR_STYLE = "color: #b3261e; font-weight: 600;"
OK_STYLE = "color: #1b7f3b;"
WARN_STYLE = "color: #8a5a00;"  # not wrong, not confirmed either (a key that could not be checked)


class FieldMessage(ElidedLabel):
    def __init__(self, name: str, lines: int = 1):
        """``lines``: the room kept for the message, in lines (a narrow dialog's longer
        messages wrap within two)."""
        super().__init__("", lines=lines)
        self.setObjectName(name + "-message")
        self.setStyleSheet(ERROR_STYLE)
        # as wide as its field, never wider; its line is kept: nothing below moves
        policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        policy.setRetainSizeWhenHidden(True)
        self.setSizePolicy(policy)
        self.hide()

    def say(self, text: str | None, *, ok: bool = False, warn: bool = False) -> None:
        """Show ``text`` (an error; with ``ok`` a confirmation; with ``warn`` a caution, not
        an error); None or "" hides it."""
        self.setText(text or "")
        self.setAccessibleName(text or "")
        style = OK_STYLE if ok else WARN_STYLE if warn else ERROR_STYLE
        if style != self.styleSheet():  # set again, Qt would polish the line again: a form
            self.setStyleSheet(style)  # says its messages again at every key typed
        self.setVisible(bool(text))


def add_field_row(
    form: QFormLayout, label: str, shown: QWidget, name: str, buddy: QWidget | None = None, lines: int = 1
) -> FieldMessage:
    """A row of ``form``: the caption (its mnemonic focuses ``buddy``, else ``shown``), the
    field and, under it, its message (``lines`` high)."""
    message = FieldMessage(name, lines)
    box = QVBoxLayout()
    box.setSpacing(2)
    box.addWidget(shown)
    box.addWidget(message)
    caption = QLabel(label)
    caption.setBuddy(buddy or shown)
    form.addRow(caption, box)
    return message
