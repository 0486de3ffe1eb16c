"""'For your website': the form post and inline checkout for the form's values, with the public key."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QPushButton,
                               QVBoxLayout)

from ...service.snippets import html_form, inline_checkout
from ..fixed_text import use_fixed


class SnippetsDialog(QDialog):
    def __init__(self, request, public_key: str, base_url: str, secret_key: str | None, parent=None):
        super().__init__(parent)
        self.setObjectName("website-snippets")
        self.setWindowTitle("For your website")
        self.resize(760, 620)
        column = QVBoxLayout(self)
        self.texts: dict[str, QPlainTextEdit] = {}
        for key, title, text in (
                ("form", "HTML form (posts to the service)",
                 html_form(request, public_key, base_url, secret_key)),
                ("inline", "Inline checkout (a button and payment.js)",
                 inline_checkout(request, public_key, base_url, secret_key))):
            label = QLabel(f"<b>{title}</b>")
            column.addWidget(label)
            edit = QPlainTextEdit(text)
            edit.setObjectName(f"snippet-{key}")
            edit.setReadOnly(True)
            use_fixed(edit)  # keys and URLs in code, copied as they are
            edit.setAccessibleName(title)
            self.texts[key] = edit
            column.addWidget(edit, 1)
            copy = QPushButton("Copy " + ("HTML form" if key == "form" else "inline checkout"))
            copy.setObjectName(f"copy-{key}")
            copy.setAccessibleName(copy.text())
            copy.clicked.connect(lambda _=False, e=edit: QGuiApplication.clipboard().setText(e.toPlainText()))
            column.addWidget(copy)
        note = QLabel("These use your public key. Never put a secret key on a web page.")
        note.setWordWrap(True)
        column.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.Close).setAccessibleName("Close")
        column.addWidget(buttons)
