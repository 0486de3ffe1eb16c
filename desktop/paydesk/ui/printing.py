"""What a print did, in words: where the file went when the print dialog's "Print to File
(PDF)" was chosen (the printer's output file name is then set), else that it went to the
printer."""

from __future__ import annotations

from typing import Any

REFUSED = "Could not print: the printer refused the page"


def printed(printer: Any) -> str:
    """After the page was painted on ``printer`` (a QPrinter the print dialog set up)."""
    from PySide6.QtPrintSupport import QPrinter

    path = printer.outputFileName()
    if not path:
        return "Sent to the printer"
    pdf = printer.outputFormat() == QPrinter.OutputFormat.PdfFormat
    return f"Printed to {'a PDF file' if pdf else 'a file'}: {path}"
