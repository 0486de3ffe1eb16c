"""What the Batches window makes of a batch, pressed as a user does: Save results… (the CSV read
back), QR sheet… (the PDF read back with pdftotext), E-mail links… (a real SMTP server on
localhost, aiosmtpd: a test, then every customer their link, each row's result shown, and
the results saved as CSV and XLSX say to whom and when)."""

from __future__ import annotations

import csv
import subprocess
from datetime import UTC, datetime, timedelta

from openpyxl import load_workbook
from PySide6.QtWidgets import QComboBox

from tests.desk.bulk.test_mail import Inbox, free_port
from tests.helpers import need_system
from tests.ui import press
from tests.ui.bulk.test_batches import run_file, text
from tests.ui.bulk.test_bulk_window import named_right
from tests.ui.said_where import long_folder, says_where


def batches_after_a_run(shop, tmp_path, n=2):
    window = run_file(shop, tmp_path, "invoices.csv", n)
    assert shop.wait_done(window).startswith(f"Done: {n} links created")
    press.click(window.progress_step.batches)
    shop.loop.until(lambda: press.shown("batches-window") is not None, message="Batches")
    batches = press.shown("batches-window")
    shop.loop.until(lambda: batches.rows_model.rowCount() == n, message="the rows")
    return window.batch, batches


def save_as(shop, path, name_filter=None):
    """Type the path into the standard save dialog and press Enter (the file type chosen
    from its list first, when given)."""
    shop.loop.until(lambda: press.shown("save-dialog") is not None, message="the save dialog")
    dialog = press.shown("save-dialog")
    if name_filter:
        press.choose(dialog.findChild(QComboBox, "fileTypeCombo"), name_filter)
    press.save_as(dialog, path)


def read_csv(path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))


def read_xlsx(path) -> tuple[list[str], list[dict[str, str]]]:
    sheet = load_workbook(path).worksheets[0]
    header = [c.value for c in sheet[1]]
    return header, [dict(zip(header, (c.value or "" for c in line))) for line in sheet.iter_rows(min_row=2)]


def test_results_and_qr_sheet_are_saved(shop, tmp_path):
    batch, batches = batches_after_a_run(shop, tmp_path)
    target = tmp_path / "results.csv"
    press.click(batches.results)
    save_as(shop, target)
    shop.loop.until(lambda: "Saved the results of 2 rows" in batches.said.text(), message="the results saved")
    with open(target, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2
    assert {r["link_tx_ref"] for r in rows} == {batch.ref(2), batch.ref(3)}
    assert {r["result"] for r in rows} == {"created"}

    pdf = tmp_path / "codes.pdf"
    press.click(batches.qr)
    save_as(shop, pdf)
    shop.loop.until(lambda: "Saved 2 codes" in batches.said.text(), timeout=30, message="the QR sheet saved")
    pdftotext = need_system("pdftotext", "poppler-utils")
    words = subprocess.run([pdftotext, "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert batch.ref(2) in words and batch.ref(3) in words


def test_results_and_qr_sheet_say_the_folder_they_were_saved_in(shop, tmp_path):
    """Both said only the file's name: where it went is said (a long path shortened in its
    middle, the file's name whole, the whole path on hover)."""
    _batch, batches = batches_after_a_run(shop, tmp_path)
    folder = long_folder(tmp_path)
    results = folder / "Results of the September invoices for the supporters' club.csv"
    press.click(batches.results)
    save_as(shop, results)
    said = f"Saved the results of 2 rows to {results}"
    shop.loop.until(lambda: batches.said.text() == said, message="where the results went")
    says_where(batches.said, results)

    codes = folder / "QR codes of the September invoices for the supporters' club.pdf"
    press.click(batches.qr)
    save_as(shop, codes)
    said = f"Saved 2 codes to {codes}"
    shop.loop.until(lambda: batches.said.text() == said, timeout=30, message="where the QR sheet went")
    says_where(batches.said, codes)


def test_links_are_emailed_through_the_merchants_server(shop, tmp_path):
    from aiosmtpd.controller import Controller

    inbox, port = Inbox(), free_port()
    server = Controller(inbox, hostname="localhost", port=port)
    server.start()
    try:
        batch, batches = batches_after_a_run(shop, tmp_path)
        press.click(batches.email)
        shop.loop.until(lambda: press.shown("bulk-mail") is not None, message="E-mail links")
        dialog = press.shown("bulk-mail")
        shop.loop.until(lambda: dialog.preview.toPlainText(), message="the preview")
        assert dialog.isWindow() and dialog.windowTitle().startswith("E-mail links")
        named_right(dialog)
        press.type_into(dialog.host, "localhost")
        press.type_into(dialog.port, str(port))
        press.choose(dialog.security, "None (a server on this network only)")
        press.type_into(dialog.from_address, "billing@shop.example")
        # a login over plain TCP to another computer: refused, said by the security choice
        press.type_into(dialog.host, "smtp.example.com")
        press.type_into(dialog.user, "shop")
        press.type_into(dialog.test_to, "me@shop.example")
        press.click(dialog.test_button)
        shop.loop.until(
            lambda: "secure connection" in dialog.messages["security"].text(),
            message="the password is only sent over a secure connection",
        )
        assert not inbox.messages
        press.type_into(dialog.host, "localhost")
        press.type_into(dialog.user, "")
        shop.loop.until(
            lambda: "billing@shop.example" in dialog.preview.toPlainText(), message="the preview with the sender"
        )
        assert batch.ref(2) in dialog.preview.toPlainText()
        press.type_into(dialog.test_to, "me@shop.example")
        press.click(dialog.test_button)
        shop.loop.until(lambda: dialog.said.text().startswith("Test sent"), timeout=30, message="the test sent")
        assert len(inbox.messages) == 1
        press.click(dialog.send_button)
        shop.loop.until(lambda: dialog.said.text().startswith("Done:"), timeout=30, message="the links sent")
        assert dialog.said.text().startswith("Done: 2 sent, 0 failed")
        sent_to = sorted(str(m["To"]) for m in inbox.messages[1:])
        assert len(sent_to) == 2 and all("@example.com" in to for to in sent_to)
        press.click(dialog.close_button)
        shop.loop.until(lambda: press.closed(dialog), message="the dialog closed")
        rows = batches.rows_model
        shop.loop.until(
            lambda: [text(rows, i, 11) for i in range(2)] == ["sent", "sent"], message="the E-mail sent column"
        )

        # the results say to whom each link went, and whether and when it was e-mailed
        target = tmp_path / "results.csv"
        press.click(batches.results)
        save_as(shop, target)
        shop.loop.until(
            lambda: batches.said.text().endswith(f"results of 2 rows to {target}"), message="the results saved as CSV"
        )
        workbook = tmp_path / "results.xlsx"
        press.click(batches.results)
        save_as(shop, workbook, "Excel workbook (*.xlsx)")
        shop.loop.until(
            lambda: batches.said.text().endswith(f"results of 2 rows to {workbook}"),
            message="the results saved as XLSX",
        )
        header, from_xlsx = read_xlsx(workbook)
        for saved in (read_csv(target), from_xlsx):
            assert [r["email"] for r in saved] == ["parent2@example.com", "parent3@example.com"]
            assert [r["emailed"] for r in saved] == ["yes", "yes"]
            assert [r["email_error"] for r in saved] == ["", ""]
            for r in saved:
                at = datetime.fromisoformat(r["emailed_at"])
                assert at.utcoffset() == timedelta(0)
                assert timedelta(0) <= datetime.now(UTC) - at < timedelta(minutes=5)
        assert header.count("email") == 1 and len(set(header)) == len(header)
    finally:
        server.stop()


def test_the_qr_sheet_prints_a_long_reference_on_one_line(shop, tmp_path):
    """A reference is never broken (issue 28, item 14): under its code, a finance file's
    own reference longer than the cell is printed whole on one line (smaller)."""
    from tests.ui.bulk.conftest import row, write_csv
    from tests.ui.bulk.test_batches import LONG_REF

    path = write_csv(tmp_path / "long.csv", [row(2, tx_ref=LONG_REF)])
    window = shop.open_bulk()
    shop.load(window, path)
    shop.check(window)
    shop.create(window)
    assert shop.wait_done(window).startswith("Done: 1 link")
    press.click(window.progress_step.batches)
    shop.loop.until(lambda: press.shown("batches-window") is not None, message="Batches")
    batches = press.shown("batches-window")
    shop.loop.until(lambda: batches.rows_model.rowCount() == 1, message="the row")
    pdf = tmp_path / "codes.pdf"
    press.click(batches.qr)
    save_as(shop, pdf)
    shop.loop.until(lambda: "Saved 1 code" in batches.said.text(), timeout=30, message="the QR sheet saved")
    pdftotext = need_system("pdftotext", "poppler-utils")
    lines = subprocess.run([pdftotext, str(pdf), "-"], capture_output=True, text=True, check=True).stdout.splitlines()
    assert LONG_REF in [line.strip() for line in lines], lines
