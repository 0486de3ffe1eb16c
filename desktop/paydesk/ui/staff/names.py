"""A list of the shop's staff ("Ana · Counter"), as the sign-in screen and the Staff dialog
show it: a long name wraps onto a second line, never scrolled sideways."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListView, QListWidget


def wrap_names(people: QListWidget) -> None:
    people.setWordWrap(True)
    people.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    people.setResizeMode(QListView.ResizeMode.Adjust)
    people.setTextElideMode(Qt.TextElideMode.ElideNone)
