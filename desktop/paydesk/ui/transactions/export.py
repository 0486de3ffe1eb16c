"""Exports of the ledger for an accountant: CSV (UTF-8 with a BOM, so Excel reads it right)
and XLSX (openpyxl, write-only: a row at a time, whatever the size). Qt-free; the writing
runs on a worker thread, page by page, so the window keeps painting and can show progress.
"""

from __future__ import annotations

import csv
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Callable, Iterable

from ...ledger import LinkRecord

HEADER = ("tx_ref", "service_reference", "state", "service_state", "first_name", "last_name",
          "email", "amount", "fee", "currency", "mode", "made", "created_utc", "created_local",
          "updated_utc", "last_checked_utc", "title", "description", "checkout_url", "error")


def _iso(when: datetime | None) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ") if when else ""


def _local(when: datetime | None) -> str:
    return when.astimezone().strftime("%Y-%m-%d %H:%M:%S") if when else ""


def _decimal(value: Decimal | None) -> str:
    return f"{value:.2f}" if value is not None else ""


def row_of(r: LinkRecord) -> tuple[str, ...]:
    return (r.tx_ref, r.reference or "", r.state, r.state_raw or "", r.first_name, r.last_name,
            r.email, _decimal(r.amount), _decimal(r.fee), r.currency, r.mode,
            "here" if r.origin == "link" else "looked up", _iso(r.created_at),
            _local(r.created_at), _iso(r.updated_at), _iso(r.checked_at),
            r.customization.get("title") or "", r.customization.get("description") or "",
            r.checkout_url or "", r.error or "")


class CsvWriter:
    def __init__(self, path: Path):
        self._file = open(path, "w", encoding="utf-8-sig", newline="")
        self._csv = csv.writer(self._file)
        self._csv.writerow(HEADER)

    def write(self, records: Iterable[LinkRecord]) -> None:
        self._csv.writerows(row_of(r) for r in records)

    def close(self) -> None:
        self._file.close()


class XlsxWriter:
    """Amounts as numbers with two decimals, times as real (local) times beside UTC text."""

    def __init__(self, path: Path):
        from openpyxl import Workbook  # only when an XLSX is asked for

        self.path = path
        self._book = Workbook(write_only=True)
        self._sheet = self._book.create_sheet("Transactions")
        self._sheet.append(HEADER)

    def write(self, records: Iterable[LinkRecord]) -> None:
        from openpyxl.cell import WriteOnlyCell

        for r in records:
            row = list(row_of(r))
            for index in (7, 8):  # amount, fee: numbers
                if row[index]:
                    cell = WriteOnlyCell(self._sheet, value=Decimal(row[index]))
                    cell.number_format = "#,##0.00"
                    row[index] = cell
            local = WriteOnlyCell(self._sheet, value=r.created_at.astimezone().replace(tzinfo=None))
            local.number_format = "yyyy-mm-dd hh:mm:ss"
            row[13] = local
            self._sheet.append(row)

    def close(self) -> None:
        self._book.save(self.path)


def writer_for(path: Path) -> CsvWriter | XlsxWriter:
    return XlsxWriter(path) if path.suffix.lower() == ".xlsx" else CsvWriter(path)


ProgressFn = Callable[[int], None]
