"""Print… to a PDF file says where the file went (issue 28, item 15): a receipt and the end of
day. (The QR code's print is in tests/ui/test_first_session.py, the shift report's in
tests/ui/counter/test_close_shift.py.)

Qt's own print dialog is driven itself, as a user answers it (press.print_to_file): "Print
to File (PDF)" as the printer, the file's path typed into its name field, then Print. It is
Qt's widget dialog here (offscreen, no system dialog), the one a desk without a printer
shows; the file it names is written by the print itself, so the test reads it back."""

from __future__ import annotations

import subprocess

from tests.helpers import need_system
from tests.ui import press
from tests.ui.said_where import long_folder, says_where


def printed_text(path) -> str:
    pdftotext = need_system("pdftotext", "poppler-utils")
    return subprocess.run([pdftotext, str(path), "-"], capture_output=True, text=True, check=True, timeout=60).stdout


def print_dialog(shop):
    shop.loop.until(lambda: press.shown("print-dialog") is not None, message="the print dialog")
    return press.shown("print-dialog")


def test_a_receipt_printed_to_a_pdf_file_says_where(strict_shop, tmp_path):
    shop = strict_shop
    made = shop.create("SHOP-PRINT-1", amount=12)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    shop.lookup("SHOP-PRINT-1")
    details = shop.tab.details
    shop.loop.until(lambda: details.state.text() == "PAID", message="the paid payment")
    press.click(details.buttons["receipt-print"])
    target = tmp_path / "receipt.pdf"
    press.print_to_file(print_dialog(shop), target)
    shop.loop.until(
        lambda: details.message.text() == f"Printed to a PDF file: {target}", message="where the receipt went"
    )
    assert details.message.isVisible()
    assert "SHOP-PRINT-1" in printed_text(target)


def test_the_end_of_day_printed_to_a_pdf_file_says_where(strict_shop, tmp_path):
    shop = strict_shop
    shop.create("SHOP-PRINT-2", amount=5)
    press.click(shop.tab.end_of_day)
    shop.loop.until(lambda: press.shown("end-of-day") is not None, message="the end of day")
    day = press.shown("end-of-day")
    shop.loop.until(lambda: day.figures["Links made"].text() == "1", message="the figures")
    press.click(day.print)
    target = tmp_path / "day.pdf"
    press.print_to_file(print_dialog(shop), target)
    said = f"Printed to a PDF file: {target}"
    shop.loop.until(lambda: day.message.text() == said, message="where the day went")
    assert "Links made: 1" in printed_text(target)


def test_a_receipt_saved_as_pdf_says_where(strict_shop, tmp_path):
    """Save receipt as PDF… said nothing once the file was written: where it went is said in
    the details pane, as a print to a file is."""
    shop = strict_shop
    made = shop.create("SHOP-SAVE-1", amount=7)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    shop.lookup("SHOP-SAVE-1")
    details = shop.tab.details
    shop.loop.until(lambda: details.state.text() == "PAID", message="the paid payment")
    press.click(details.buttons["receipt-pdf"])
    shop.loop.until(lambda: press.shown("save-dialog") is not None, message="the save dialog")
    target = tmp_path / "receipt of the paid payment.pdf"
    press.save_as(press.shown("save-dialog"), target)
    shop.loop.until(lambda: target.exists(), message="the PDF written")
    shop.loop.until(
        lambda: details.message.text() == f"Saved the receipt as PDF to {target}", message="where the receipt went"
    )
    assert details.message.isVisible()
    assert "SHOP-SAVE-1" in printed_text(target)


def test_the_end_of_days_export_says_where(strict_shop, tmp_path):
    """Export CSV… said only the file's name: where it went is said."""
    shop = strict_shop
    shop.create("SHOP-SAVE-2", amount=5)
    press.click(shop.tab.end_of_day)
    shop.loop.until(lambda: press.shown("end-of-day") is not None, message="the end of day")
    day = press.shown("end-of-day")
    shop.loop.until(lambda: day.figures["Links made"].text() == "1", message="the figures")
    press.click(day.export)
    shop.loop.until(lambda: press.shown("save-dialog") is not None, message="the save dialog")
    target = long_folder(tmp_path) / "End of day of the supporters' club shop.csv"
    press.save_as(press.shown("save-dialog"), target)
    said = f"Exported the day's figures and 1 record to {target}"
    shop.loop.until(lambda: day.message.text() == said, message="where the day went")
    says_where(day.message, target)
    press.click(day.close_button)


def test_the_lists_export_says_where(strict_shop, tmp_path):
    """Export… said only the file's name: where it went is said under the list."""
    shop = strict_shop
    shop.create("SHOP-SAVE-3", amount=5)
    tab = shop.tab
    shop.loop.until(lambda: tab.model.rowCount() == 1, message="the list")
    press.click(tab.export_button)
    shop.loop.until(lambda: press.shown("save-dialog") is not None, message="the save dialog")
    target = long_folder(tmp_path) / "Payment links of the supporters' club shop.csv"
    press.save_as(press.shown("save-dialog"), target)
    said = f"Exported 1 record to {target}"
    shop.loop.until(lambda: tab.work.report.text() == said, timeout=30, message="where the list went")
    says_where(tab.work.report, target)
