"""Bulk files written by the tests as a person's spreadsheet program would write them:
CSV in a given encoding and delimiter, XLSX through openpyxl (cells typed as numbers, text,
dates or formulas)."""

from __future__ import annotations

from pathlib import Path

from paydesk.config.profiles import Profile

HEADERS = ["Amount", "Currency", "E-mail", "First name", "Last name", "Title", "Reference"]


def profile(**over) -> Profile:
    over.setdefault("currencies", ["GBP", "USD"])
    return Profile(id="p_bulk", name="Shop", base_url="http://127.0.0.1:9/pay", **over)


def row(n: int, **over) -> list[str]:
    """A valid row of HEADERS, customer ``n``."""
    values = {
        "Amount": str(10 + n),
        "Currency": "GBP",
        "E-mail": f"c{n}@example.com",
        "First name": f"Ada{n}",
        "Last name": "Lovelace",
        "Title": "Term fees",
        "Reference": f"INV-{n:05d}",
    }
    values.update(over)
    return [values[h] for h in HEADERS]


def write_csv(
    path: Path,
    rows: list[list[str]],
    *,
    delimiter: str = ",",
    encoding: str = "utf-8",
    headers: list[str] = HEADERS,
    ending: str = "\r\n",
) -> Path:
    """Rows written as text, quoted only where the delimiter, a quote or a line break is."""

    def cell(text: str) -> str:
        if any(c in text for c in (delimiter, '"', "\n", "\r")):
            return '"' + text.replace('"', '""') + '"'
        return text

    lines = [delimiter.join(cell(c) for c in r) for r in [headers, *rows]]
    path.write_bytes((ending.join(lines) + ending).encode(encoding))
    return path


def write_xlsx(
    path: Path, rows: list[list[object]], *, headers: list[str] = HEADERS, text_columns: tuple[int, ...] = ()
) -> Path:
    """Cells as given (int, float, datetime or str; a str starting with "=" a formula);
    ``text_columns``: columns formatted as Text ("@"), as the template does."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(headers)
    for values in rows:
        sheet.append(values)
    for column in text_columns:
        for cells in sheet.iter_rows(min_row=2, min_col=column + 1, max_col=column + 1):
            for c in cells:
                c.number_format = "@"
                if isinstance(c.value, str) and c.value:
                    c.data_type = "s"
    book.save(path)
    return path
