"""What the Batches window makes of a batch: its results file (CSV or XLSX, guarded against
formulas: desk/bulk/results.py), a printable sheet of its QR codes (qr_sheet.py), and its
links e-mailed to the customers (mail_dialog.py). Files are written off the GUI thread."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from PySide6.QtWidgets import QWidget

from ...desk.bulk.results import save_results
from ...desk.formats import number_in
from ...desk.session import Session
from ...i18n import ENGLISH, _, ngettext, staff
from ...ledger import LedgerError
from ...ledger.batch import Batch, BatchBook
from ..dialogs import run_dialog
from ..transactions.actions import CSV, PDF, XLSX, name_filter, save_path
from .qr_sheet import save_sheet


def _file_name(batch: Batch, what: str, suffix: str) -> str:
    stem = Path(batch.file_name).stem or batch.name
    return f"{stem}-{what}-{date.today().isoformat()}{suffix}".replace(" ", "-")


async def results(parent: QWidget, book: BatchBook, batch: Batch) -> str | None:
    """Save results…: what to say once done (None: the dialog was cancelled)."""
    path = await save_path(
        parent,
        _("Save the batch's results"),
        [name_filter(*CSV), name_filter(*XLSX)],
        _file_name(batch, "results", ".csv"),
    )
    if path is None:
        return None
    try:
        written = await save_results(book, batch, path)
    except (OSError, LedgerError) as error:
        return _("Could not save the results: {reason}").format(reason=getattr(error, "strerror", None) or error)
    return ngettext(
        "Saved the results of {n} row to {path}", "Saved the results of {n} rows to {path}", written
    ).format(n=number_in(written, staff()), path=path)


async def qr_sheet(parent: QWidget, session: Session, book: BatchBook, batch: Batch) -> str | None:
    """QR sheet…: a PDF of the batch's open links' codes."""
    path = await save_path(
        parent, _("Save the QR sheet as PDF"), [name_filter(*PDF)], _file_name(batch, "codes", ".pdf")
    )
    if path is None:
        return None
    profile = session.settings.profile(batch.profile_id)
    merchant = profile.shown_name if profile is not None else ""
    try:
        language = profile.customer_language if profile is not None else ENGLISH
        codes = await save_sheet(book, batch, merchant, path, language=language)
    except (OSError, LedgerError) as error:
        return _("Could not save the QR sheet: {reason}").format(reason=getattr(error, "strerror", None) or error)
    return ngettext("Saved {n} code to {path}", "Saved {n} codes to {path}", codes).format(
        n=number_in(codes, staff()), path=path
    )


async def email(parent: QWidget, session: Session, book: BatchBook, batch: Batch) -> int:
    """E-mail links…: the dialog, until it closes."""
    from .mail_dialog import MailDialog

    dialog = MailDialog(session, book, batch, parent)
    return await run_dialog(dialog, before=dialog.load())
