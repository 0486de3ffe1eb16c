"""What a print did, in words: where the file went when the print dialog's "Print to File
(PDF)" was chosen (the printer's output file name is then set), else that it went to the
printer."""

from __future__ import annotations

from typing import Any

from ..i18n import N_, _

REFUSED = N_("Could not print: the printer refused the page")


def printed(printer: Any) -> str:
    """After the page was painted on ``printer`` (a QPrinter the print dialog set up)."""
    from PySide6.QtPrintSupport import QPrinter

    path = printer.outputFileName()
    if not path:
        return _("Sent to the printer")
    pdf = printer.outputFormat() == QPrinter.OutputFormat.PdfFormat
    return (_("Printed to a PDF file: {path}") if pdf else _("Printed to a file: {path}")).format(path=path)
