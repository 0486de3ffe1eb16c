"""The second step of Bulk links: which column of the file holds which field (a box per field,
guessed from the headers), the columns left over offered as extra fields, and the first rows
of the file as they will be read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from ...desk.bulk.mapping import Mapping, extra_field, missing
from ...desk.bulk.sheet import FIELDS, REQUIRED, Sheet
from ...desk.formats import number_in
from ...i18n import N_, _, ngettext, staff
from .. import widgets
from ..field_message import ERROR_STYLE
from ..table import Column, HeadedModel

PREVIEW_ROWS = 5
NOT_IN_FILE = N_("(not in the file)")


def _cell(column: int) -> Callable[[tuple[int, list[str]]], str]:
    return lambda row: row[1][column] if column < len(row[1]) else ""


class PreviewModel(HeadedModel):
    """The file's first rows (each numbered as in the file), headed by each column's header
    and the field it goes to."""

    def __init__(self) -> None:
        super().__init__()
        self.file_headers: list[str] = []
        self.rows: list[tuple[int, list[str]]] = []
        self.goes_to: dict[int, str] = {}

    def listed(self) -> list[tuple[int, list[str]]]:
        return self.rows

    def _head(self) -> None:
        self.columns = tuple(
            Column(
                _("{header}\n→ {field}").format(header=header, field=self.goes_to.get(column) or _("not used")),
                _cell(column),
            )
            for column, header in enumerate(self.file_headers)
        )

    def show(self, sheet: Sheet) -> None:
        self.beginResetModel()
        self.file_headers, self.rows = list(sheet.headers), sheet.rows[:PREVIEW_ROWS]
        self._head()
        self.endResetModel()

    def map(self, mapping: Mapping) -> None:
        self.goes_to = {column: field for field, column in mapping.items()}
        self._head()
        if self.columns:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self.columns) - 1)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return str(self.rows[section][0]) if 0 <= section < len(self.rows) else None
        return super().headerData(section, orientation, role)


class MappingStep(QWidget):
    changed = Signal()  # the user chose another column for a field, or an extra

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("bulk-mapping")
        self.setAccessibleName(_("Columns"))
        column = QVBoxLayout(self)
        self.summary = QLabel("")
        self.summary.setObjectName("bulk-file-summary")
        self.summary.setWordWrap(True)
        column.addWidget(self.summary)
        middle = QHBoxLayout()
        fields_box = QGroupBox(_("Which column holds each field"))
        form = QFormLayout(fields_box)
        self.boxes: dict[str, QComboBox] = {}
        for field in FIELDS:
            box = QComboBox()
            box.setObjectName(f"bulk-map-{field}")
            label = _("{field} (required)").format(field=field) if field in REQUIRED else field
            box.setAccessibleName(label)
            box.activated.connect(self._chosen)
            caption = QLabel(_("{field}:").format(field=label))
            caption.setBuddy(box)
            form.addRow(caption, box)
            self.boxes[field] = box
        middle.addWidget(fields_box, 1)
        self.extras_box = QGroupBox(_("Other columns: send as extra fields"))
        self.extras_grid = QGridLayout(self.extras_box)
        self.extras_grid.setColumnStretch(2, 1)  # each box as wide as its words: a click
        self._stretch_row = 0  # beside them is not a click on them (the row under them)
        self.extras: list[tuple[int, QCheckBox]] = []
        middle.addWidget(self.extras_box, 1)
        column.addLayout(middle)
        caption = QLabel(_("The first rows, as they will be read:"))
        column.addWidget(caption)
        self.preview_model = PreviewModel()
        self.preview = widgets.record_table(
            "bulk-preview", self.preview_model, _("The first rows, as they will be read"), row_numbers=True
        )
        self.preview.setMaximumHeight(200)
        caption.setBuddy(self.preview)
        column.addWidget(self.preview, 1)
        self.message = QLabel("")
        self.message.setObjectName("bulk-mapping-message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet(ERROR_STYLE)
        self.message.hide()
        column.addWidget(self.message)
        self.headers: list[str] = []

    def show_sheet(self, sheet: Sheet, guessed: Mapping) -> None:
        """The file just read, and the mapping guessed from its headers."""
        self.headers = list(sheet.headers)
        rows = len(sheet.rows)
        words = staff()
        text = ngettext("{file}: {n} row", "{file}: {n} rows", rows).format(
            file=sheet.file_name, n=number_in(rows, words)
        )
        if sheet.blank:
            text = ngettext(
                "{file_and_rows}, {n} blank row ignored", "{file_and_rows}, {n} blank rows ignored", sheet.blank
            ).format(file_and_rows=text, n=number_in(sheet.blank, words))
        self.summary.setText(text)
        self.summary.setAccessibleName(text)
        for field, box in self.boxes.items():
            box.clear()
            box.addItem(_(NOT_IN_FILE), -1)
            for index, header in enumerate(self.headers):
                box.addItem(header or _("(column {n})").format(n=index + 1), index)
            box.setCurrentIndex(box.findData(guessed.get(field, -1)))
        while self.extras:
            _index, check = self.extras.pop()
            self.extras_grid.removeWidget(check)
            check.deleteLater()
        extras_guessed = {column for field, column in guessed.items() if field not in FIELDS}
        for index, header in enumerate(self.headers):
            check = QCheckBox(extra_field(header) if header else _("(column {n})").format(n=index + 1))
            check.setObjectName(f"bulk-extra-{index}")
            check.setAccessibleName(check.text())
            check.setChecked(index in extras_guessed)
            check.toggled.connect(self._chosen)
            self.extras.append((index, check))
        self.preview_model.show(sheet)
        self._chosen()

    def mapping(self) -> Mapping:
        chosen: Mapping = {}
        for field, box in self.boxes.items():
            column = box.currentData()
            if column is not None and column >= 0:
                chosen[field] = column
        used = set(chosen.values())
        for index, check in self.extras:
            if check.isChecked() and index not in used and self.headers[index].strip():
                chosen[extra_field(self.headers[index])] = index
        return chosen

    def missing(self) -> list[str]:
        """The required fields no column holds."""
        return missing(self.mapping())

    def complain(self, text: str) -> None:
        self.message.setText(text)
        self.message.setAccessibleName(text)
        self.message.setVisible(bool(text))

    def _place_extras(self, used: set[int]) -> None:
        """The check boxes of the columns that are no field (a column that is a field is
        not an extra too), laid out afresh in the file's order: one column of them, two
        when there are more than the fields' rows beside them, filled down the first
        first; no hole where a column became a field, each box at its column's left."""
        shown = [check for index, check in self.extras if index not in used]
        for index, check in self.extras:
            self.extras_grid.removeWidget(check)
            check.setVisible(index not in used)
        rows = max(len(shown) if len(shown) <= len(FIELDS) else -(-len(shown) // 2), 1)
        for n, check in enumerate(shown):
            self.extras_grid.addWidget(check, n % rows, n // rows)
        self.extras_grid.setRowStretch(self._stretch_row, 0)
        self._stretch_row = rows
        self.extras_grid.setRowStretch(rows, 1)
        self.extras_box.setVisible(bool(shown))

    def _chosen(self, *_args: object) -> None:
        self.complain("")
        used = {box.currentData() for box in self.boxes.values()}
        self._place_extras(used)
        self.preview_model.map(self.mapping())
        self.changed.emit()
