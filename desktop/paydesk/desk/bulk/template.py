"""The bulk file to start from: every field as a column, an extra field, and two example rows
made from the profile's real rules (its currencies, amounts in whole units), one with a
reference of its own and one left for PayDesk to make. The columns are the fields' names
whatever the language (PayDesk reads them back); the examples' words and the sheet's name
are the staff's, who fill it in. An XLSX has every column formatted as
Text, so Excel keeps references and leading zeros as typed.

Synchronous (a small file): callers run ``write_template`` on a worker thread.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

from ...config.profiles import Profile
from ...i18n import _
from ..checks import MAX_AMOUNT
from ..export import spreadsheet_safe
from .sheet import FIELDS, META

EXTRA = META + "customer_id"
# the examples' customers: proper names, the same in every language
ADA = ("Ada", "Lovelace")
ALAN = ("Alan", "Turing")


def template(profile: Profile) -> tuple[list[str], list[list[str]]]:
    """The headers and two example rows (valid for ``profile``; their words in the staff's
    language, the people's names proper names)."""
    currencies = [c.upper() for c in profile.currencies] or ["USD"]
    second = currencies[1] if len(currencies) > 1 else currencies[0]
    examples = [
        {
            "amount": "250",
            "currency": currencies[0],
            "email": "ada.lovelace@example.com",
            "first_name": ADA[0],
            "last_name": ADA[1],
            "title": _("Term fees"),
            "description": _("Autumn term, whole units only (250, not 250.00)"),
            "tx_ref": "INV-000123",
            EXTRA: "000417",
        },
        {
            "amount": str(min(1200, MAX_AMOUNT)),
            "currency": second,
            "email": "alan.turing@example.com",
            "first_name": ALAN[0],
            "last_name": ALAN[1],
            "title": _("Club subscription"),
            "description": _("No reference: PayDesk makes one"),
            "tx_ref": "",
            EXTRA: "000418",
        },
    ]
    defaults = {"callback_url": profile.callback_url.strip(), "return_url": profile.return_url.strip()}
    headers = [*FIELDS, EXTRA]
    return headers, [[{**defaults, **example}.get(h, "") for h in headers] for example in examples]


def write_template(path: Path | str, profile: Profile) -> None:
    """The template as CSV (UTF-8 with a BOM, as Excel reads it) or XLSX, by ``path``'s
    suffix; written beside and put in place when complete."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".xlsx"):
        raise ValueError(_("a template is a .csv or .xlsx file, not {name}").format(name=path.name))
    headers, rows = template(profile)
    partial = path.with_name(path.name + ".part")
    try:
        if suffix == ".csv":
            with open(partial, "w", encoding="utf-8-sig", newline="") as file:
                writer = csv.writer(file)
                writer.writerow(headers)
                writer.writerows([spreadsheet_safe(v) for v in r] for r in rows)
        else:
            _write_xlsx(partial, headers, rows)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _write_xlsx(path: Path, headers: list[str], rows: list[list[str]]) -> None:
    from openpyxl import Workbook  # only when an XLSX is asked for
    from openpyxl.utils import get_column_letter

    book = Workbook()
    sheet = book.active
    sheet.title = _("Links")[:31]  # a sheet's title: at most 31 characters
    sheet.append(headers)
    for values in rows:
        sheet.append(values)
    for index, header in enumerate(headers, start=1):
        letter = get_column_letter(index)
        # what is typed into the column later stays text too (references, leading zeros)
        sheet.column_dimensions[letter].number_format = "@"
        sheet.column_dimensions[letter].width = max(12, len(header) + 2)
        for (cell,) in sheet.iter_rows(min_col=index, max_col=index):
            cell.number_format = "@"
            if cell.value is not None:
                cell.data_type = "s"  # text, never a formula
    sheet.freeze_panes = "A2"
    book.save(path)
