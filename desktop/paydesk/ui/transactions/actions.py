"""What the Transactions tab does through standard dialogs: choose where to save, print a
receipt (Qt's print dialog), save one as PDF. Files are written off the GUI thread."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPageLayout, QPainter
from PySide6.QtWidgets import QFileDialog, QWidget

from ...i18n import N_, _, customer
from ...ledger import LinkRecord
from .. import files
from ..dialogs import shown
from ..printing import REFUSED, printed
from . import receipt

# a file dialog's filters: (name, shown through _(), patterns)
CSV, XLSX, PDF = (N_("CSV"), "*.csv"), (N_("Excel workbook"), "*.xlsx"), (N_("PDF"), "*.pdf")


def name_filter(name: str, patterns: str) -> str:
    """A file dialog's filter: its name in the staff's language, its patterns as Qt reads
    them ("Excel workbook (*.xlsx)"; the patterns kept out of the words translated)."""
    return f"{_(name)} ({patterns})"


async def save_path(parent: QWidget, title: str, filters: list[str], name: str) -> Path | None:
    """The standard save dialog; the chosen file (with the filter's suffix), or None."""
    dialog = QFileDialog(parent, title)
    dialog.setObjectName("save-dialog")
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setNameFilters(filters)
    dialog.setDefaultSuffix(Path(name).suffix.lstrip("."))
    await files.open_in_start_folder(dialog, name)  # Documents, not the working folder
    async with shown(dialog) as code:
        if not code:
            return None
        path = Path(dialog.selectedFiles()[0])
        files.remember(path)
        chosen = dialog.selectedNameFilter()
        if "xlsx" in chosen and path.suffix.lower() != ".xlsx":
            path = path.with_suffix(".xlsx")
        return path


async def save_receipt(parent: QWidget, record: LinkRecord, merchant: str, test: bool, language: str) -> str | None:
    """Save receipt as PDF…: where the file went, or why it could not be written (None: the
    dialog was cancelled)."""
    path = await save_path(parent, _("Save the receipt as PDF"), [name_filter(*PDF)], f"receipt-{record.tx_ref}.pdf")
    if path is None:
        return None
    data = receipt.pdf_bytes(record, merchant, test, language)
    try:
        await asyncio.to_thread(path.write_bytes, data)
    except OSError as error:
        return _("Could not save the receipt: {why}").format(why=error.strerror or error)
    return _("Saved the receipt as PDF to {path}").format(path=path)


async def print_receipt(parent: QWidget, record: LinkRecord, merchant: str, test: bool, language: str) -> str | None:
    """Print through the system's dialog: what was done, in words (where the file went, for
    Print to File), or why not; None when cancelled."""
    from PySide6.QtPrintSupport import QPrintDialog, QPrinter

    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    printer.setPageOrientation(QPageLayout.Orientation.Portrait)
    printer.setDocName(customer(language).gettext("Receipt {reference}").format(reference=record.tx_ref))
    dialog = QPrintDialog(printer, parent)
    dialog.setObjectName("print-dialog")
    async with shown(dialog) as code:
        if not code:
            return None
        painter = QPainter()
        if not painter.begin(printer):
            return _(REFUSED)
        area = printer.pageLayout().paintRectPixels(printer.resolution())
        receipt.paint(painter, QRectF(0, 0, area.width(), area.height()), record, merchant, test, language)
        painter.end()
        return printed(printer)
