"""The small widgets every view makes the same way, made here once: a button named by its
verb, a label of plain text, a table of records, and a tool window (Notifications, Counter
shifts, Bulk links, Batches: each an ``OwnWindow``) made on first use and raised each time
it is asked for."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from PySide6.QtCore import QAbstractItemModel, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QPushButton, QTableView, QWidget

from .screen_fit import resize_within_screen
from .table import tips_for_cut_text

W = TypeVar("W", bound=QWidget)
V = TypeVar("V", bound=QTableView)


def shown_label(text: str) -> str:
    """What a person reads on a control whose text is ``text``: without the "&" that marks
    its Alt key ("&&" is a "&" shown) and without a trailing "…" (a button is named by its
    verb: "Save results…" is "Save results")."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…")


def button(text: str, name: str, accessible: str | None = None) -> QPushButton:
    """A push button with object name ``name``; its accessible name is its visible label
    (``shown_label``), or ``accessible`` where the label holds more than the verb ("< &Back")."""
    made = QPushButton(text)
    made.setObjectName(name)
    made.setAccessibleName(accessible if accessible is not None else shown_label(text))
    return made


def label(name: str, wrap: bool = True) -> QLabel:
    """An empty label of plain text (what it will say is never read as HTML)."""
    made = QLabel("")
    made.setObjectName(name)
    made.setWordWrap(wrap)
    made.setTextFormat(Qt.TextFormat.PlainText)
    return made


def record_table(
    name: str,
    model: QAbstractItemModel,
    accessible: str | None = None,
    widths: Sequence[int] = (),
    selection: QAbstractItemView.SelectionMode = QAbstractItemView.SelectionMode.SingleSelection,
    row_numbers: bool = False,
) -> QTableView:
    """A table of records (``as_record_table``) made here."""
    return as_record_table(QTableView(), name, model, accessible, widths, selection, row_numbers)


def as_record_table(
    table: V,
    name: str,
    model: QAbstractItemModel,
    accessible: str | None = None,
    widths: Sequence[int] = (),
    selection: QAbstractItemView.SelectionMode = QAbstractItemView.SelectionMode.SingleSelection,
    row_numbers: bool = False,
) -> V:
    """``table`` (a QTableView or a list that is one) made a table of records: whole rows
    selected one at a time (or as ``selection`` says), nothing edited in place, no row
    numbers (unless ``row_numbers``: the model's, a file's rows), columns the user can widen
    (``widths``: the first ones' widths) with the last one stretched, a cut cell's whole text
    in its tooltip."""
    table.setObjectName(name)
    if accessible is not None:
        table.setAccessibleName(accessible)
    table.setModel(model)
    tips_for_cut_text(table)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(selection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(row_numbers)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    for column, width in enumerate(widths):
        table.setColumnWidth(column, width)
    header.setStretchLastSection(True)
    return table


def raise_window(window: W) -> W:
    """``window`` shown, above the others, with the keyboard."""
    window.show()
    window.raise_()
    window.activateWindow()
    return window


class OwnWindow(QWidget):
    """A window of its own beside the main window (what ``ToolWindow`` opens): named
    ``name``, titled ``title``, said by ``accessible`` (its title unless given), opened as
    large as ``size`` where its screen has the room."""

    def __init__(
        self, parent: QWidget | None, name: str, title: str, size: tuple[int, int], accessible: str | None = None
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName(name)
        self.setWindowTitle(title)
        self.setAccessibleName(accessible if accessible is not None else title)
        resize_within_screen(self, *size)


class ToolWindow(Generic[W]):
    """A window of its own beside the main window: made by ``make`` when first asked for,
    then the same one shown and raised each time (closing it only hides it); it goes with
    the main window (``close``)."""

    def __init__(self, make: Callable[[], W]) -> None:
        self._make = make
        self.window: W | None = None  # None until first asked for

    def open(self) -> W:
        if self.window is None:
            self.window = self._make()
        return raise_window(self.window)

    def close(self) -> None:
        if self.window is not None:
            self.window.close()
