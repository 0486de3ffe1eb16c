"""Reading a bulk file: CSV (UTF-8 with or without a BOM, else Windows-1252; comma, semicolon
or tab, found from the header line) or XLSX (openpyxl, read-only: a row at a time).

Synchronous: callers run it on a worker thread (``await asyncio.to_thread(read_sheet, path)``).
Every cell comes back as text, as the spreadsheet shows it: whole numbers without ".0", dates
as ISO dates, a formula as its text (the check refuses it where a value was meant).
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Generator, Iterable
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path

from ...i18n import _, staff
from ..formats import number_in
from .sheet import MAX_ROWS, BulkFileError, Sheet

_ZIP = b"PK\x03\x04"  # an XLSX is a zip file, whatever its name says
_OLD_EXCEL = b"\xd0\xcf\x11\xe0"  # Excel 97-2003 (.xls)
_DELIMITERS = (",", ";", "\t")
Rows = Generator[list[str], None, None]
_SEP_LINE = re.compile(r"sep=([,;\t|])\r?\n", re.IGNORECASE)
MAX_CSV_BYTES = 64 * 2**20  # 50,000 rows of a bulk file are a few MB
_EXACT_DIGITS = 15  # Excel keeps 15 significant digits of a number; beyond, they are gone


def read_sheet(path: Path | str) -> Sheet:
    """The file's headers and rows (see Sheet); BulkFileError saying what is wrong when the
    file cannot be read as a table."""
    path = Path(path)
    try:
        with open(path, "rb") as file:
            start = file.read(8)
    except OSError as error:
        raise BulkFileError(
            _("Cannot open {name}: {why}").format(name=path.name, why=error.strerror or error)
        ) from error
    if start.startswith(_OLD_EXCEL):
        raise BulkFileError(_("{name} is an old Excel file (.xls): save it as .xlsx or .csv").format(name=path.name))
    if start.startswith(_ZIP):
        cells, numbers = _xlsx_rows(path)
    elif path.suffix.lower() in (".xlsx", ".xlsm"):
        raise BulkFileError(_("{name} is not an Excel workbook (it may be damaged)").format(name=path.name))
    else:
        cells, numbers = _csv_rows(path), set()
    try:
        return _table(path.name, cells, numbers)
    finally:
        cells.close()  # the workbook closed now, even when the table stopped half-way


# -- CSV ------------------------------------------------------------------------------------


def _decoded(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")  # Excel's "Unicode text"
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")  # an older Excel's "CSV" on Windows


def _delimiter(text: str) -> str:
    """The delimiter of the header line: the one of , ; and tab found most outside quotes."""
    counts = dict.fromkeys(_DELIMITERS, 0)
    quoted = False
    for char in text:
        if char == '"':
            quoted = not quoted
        elif char in ("\n", "\r") and not quoted:
            if any(counts.values()):
                break
        elif char in counts and not quoted:
            counts[char] += 1
    return max(_DELIMITERS, key=lambda d: counts[d])  # ties: the first, a comma


def _csv_rows(path: Path) -> Rows:
    try:
        if path.stat().st_size > MAX_CSV_BYTES:
            raise BulkFileError(
                _("{name} is larger than {megabytes} MB: split it into files of at most {rows} rows").format(
                    name=path.name, megabytes=MAX_CSV_BYTES // 2**20, rows=number_in(MAX_ROWS, staff())
                )
            )
        text = _decoded(path.read_bytes())
    except OSError as error:
        raise BulkFileError(
            _("Cannot read {name}: {why}").format(name=path.name, why=error.strerror or error)
        ) from error
    if "\x00" in text:
        raise BulkFileError(_("{name} is not a text file (CSV): choose a .csv or .xlsx file").format(name=path.name))
    said = _SEP_LINE.match(text)  # Excel's own "sep=;" first line, which it does not show
    if said:
        delimiter, text = said.group(1), text[said.end() :]
    else:
        delimiter = _delimiter(text[:65536])
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        yield from reader
    except csv.Error as error:
        raise BulkFileError(
            _("{name} is not a well-formed CSV file (line {line_num}: {error})").format(
                name=path.name, line_num=reader.line_num, error=error
            )
        ) from error


# -- XLSX -----------------------------------------------------------------------------------


def _xlsx_rows(path: Path) -> tuple[Rows, set[tuple[int, int]]]:
    from openpyxl import load_workbook  # only when an XLSX is read

    file = open(path, "rb")  # a file, not its name: openpyxl would refuse a workbook named .csv
    try:
        book = load_workbook(file, read_only=True, data_only=False)
    except Exception as error:  # openpyxl raises many kinds for a damaged file
        file.close()
        raise BulkFileError(
            _("{name} could not be read as an Excel workbook ({kind}: {error})").format(
                name=path.name, kind=type(error).__name__, error=error
            )
        ) from error
    numbers: set[tuple[int, int]] = set()

    def rows() -> Rows:
        try:
            sheet = book.worksheets[0] if book.worksheets else None
            if sheet is None:
                return
            sheet.reset_dimensions()  # some programs write a wrong used range: read every row
            for number, row in enumerate(sheet.iter_rows(values_only=True), start=1):
                cells = []
                for column, value in enumerate(row):
                    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
                        numbers.add((number, column))
                    cells.append(cell_text(value))
                yield cells
        except Exception as error:
            raise BulkFileError(
                _("{name} could not be read to the end ({kind}: {error})").format(
                    name=path.name, kind=type(error).__name__, error=error
                )
            ) from error
        finally:
            book.close()
            file.close()

    return rows(), numbers


def cell_text(value: object) -> str:
    """A cell's value as the spreadsheet shows it (General format)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, datetime):
        if value.time() == time(0):
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds")
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return str(value)
    if isinstance(value, (int, float, Decimal)):
        return _number_text(value)
    return str(value)


def _number_text(value: int | float | Decimal) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "#NUM!"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.15g}"
    if isinstance(value, Decimal) and value != value.to_integral_value():
        return str(value)
    whole = int(value)
    if len(str(abs(whole))) <= _EXACT_DIGITS:
        return str(whole)
    # what Excel shows of a long number in a General cell: its digits past the 15th are lost
    mantissa, exponent = f"{whole:.5E}".split("E")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}E{exponent[0]}{exponent[1:].lstrip('0').rjust(2, '0')}"


# -- the table ------------------------------------------------------------------------------


def _letter(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _table(file_name: str, rows: Iterable[list[str]], numbers: set[tuple[int, int]]) -> Sheet:
    headers: list[str] | None = None
    header_row = 0
    body: list[tuple[int, list[str]]] = []
    blank = 0
    width = 0
    for number, cells in enumerate(rows, start=1):
        filled = [c.strip() for c in cells]
        last = max((i for i, c in enumerate(filled) if c), default=-1)
        if last < 0:
            if headers is not None:
                blank += 1
            continue
        if headers is None:
            headers, header_row, width = filled[: last + 1], number, last + 1
            continue
        if len(body) >= MAX_ROWS:
            raise BulkFileError(
                _("{file_name} has more than {rows} rows: split it into files of at most that many").format(
                    file_name=file_name, rows=number_in(MAX_ROWS, staff())
                )
            )
        width = max(width, last + 1)
        body.append((number, filled[: last + 1]))
    if headers is None:
        raise BulkFileError(
            _("{file_name} is empty: the first row should name the columns").format(file_name=file_name)
        )
    if not body:
        raise BulkFileError(_("{file_name} has no rows under its header row").format(file_name=file_name))
    headers = [
        h or _("Column {letter}").format(letter=_letter(i))
        for i, h in enumerate(headers + [""] * (width - len(headers)))
    ]
    for _unused, cells in body:
        cells.extend([""] * (width - len(cells)))
    numbers = {(r, c) for r, c in numbers if r != header_row}
    return Sheet(file_name=file_name, headers=headers, rows=body, blank=blank, numbers=numbers)
