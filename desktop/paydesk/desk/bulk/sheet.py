"""What a bulk file holds once read: its headers and rows as text, and the words for what is
wrong with a row or with the file as a whole."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...i18n import _

# the link's own fields, in the template's order; any other column is an extra field
# (a "meta.<name>" header, or an unknown one the user maps as such)
FIELDS = (
    "amount",
    "currency",
    "email",
    "first_name",
    "last_name",
    "title",
    "description",
    "tx_ref",
    "callback_url",
    "return_url",
)
REQUIRED = ("amount", "currency", "email", "first_name", "last_name")
META = "meta."
MAX_ROWS = 50_000


@dataclass(frozen=True)
class Problem:
    """What is wrong with one cell: ``row`` as a spreadsheet numbers it (the header is row 1),
    ``column`` the field's name ("email", "meta.customer_no")."""

    row: int
    column: str
    message: str

    def __str__(self) -> str:
        return _("Row {row}, {column}: {message}").format(row=self.row, column=self.column, message=self.message)


@dataclass
class Sheet:
    """A file read: ``rows`` are (the file's row number, its cells as text, one per header);
    blank rows are left out and counted in ``blank``. ``numbers``: the cells, as (row number,
    column index), that the file held as numbers (an XLSX's numeric cells: a reference there
    was typed into a column Excel did not keep as text); editing a cell forgets it."""

    file_name: str
    headers: list[str]
    rows: list[tuple[int, list[str]]]
    blank: int
    numbers: set[tuple[int, int]] = field(default_factory=set)

    def edit(self, number: int, column: int, text: str) -> None:
        """Put ``text`` in the cell of file row ``number``, column ``column`` (a fix typed in
        the grid); the cell is then text, whatever the file held."""
        for row_number, cells in self.rows:
            if row_number == number:
                cells[column] = text
                self.numbers.discard((number, column))
                return
        raise KeyError(_("row {number} is not in {file_name}").format(number=number, file_name=self.file_name))


class BulkFileError(Exception):
    """What is wrong with the file as a whole (not read, not a spreadsheet, too many rows)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message
