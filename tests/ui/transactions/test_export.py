"""Exports, receipts and the end of day, checked the way an accountant's tools read them:
the CSV read back with csv (and opened by LibreOffice), the XLSX with openpyxl, the PDF
receipt rendered with pdftoppm and read with pdftotext."""

import csv
import subprocess
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QComboBox, QFileDialog

from paydesk.desk.states import state_words
from paydesk.ledger import LinkQuery
from tests.helpers import decode_qr_file as decode_qr
from tests.helpers import need_system
from tests.ui import press
from tests.ui.transactions.test_browser import seed

dialog = press.shown


def answer_save_dialog(shop, path: Path, name_filter: str | None = None):
    """Type the file's name into the standard save dialog, as a user would, and press Enter
    (the file type chosen first, when asked; "Yes" to replace a file that is there)."""
    shop.loop.until(lambda: dialog("save-dialog") is not None, message="the save dialog")
    box: QFileDialog = dialog("save-dialog")
    if name_filter:
        press.choose(box.findChild(QComboBox, "fileTypeCombo"), name_filter)
    replace = None
    if path.exists():  # the dialog asks before it replaces a file, in a loop of its own
        replace = press.answer_later(path.name, "Yes")
    press.save_as(box, path)
    if replace is not None:
        replace.check()  # the "replace?" box came up, named the file, and was answered


def export(shop):
    """Press Export…: the export it started (the save dialog comes first)."""
    return press.click_starting(shop.tab.export_button, "export")


def ledger_rows(shop, query):
    async def everything():
        out, after = [], None
        while True:
            page = await shop.session.ledger.page(query, after=after, limit=500)
            out += page.records
            if not page.more:
                return out
            after = page.end

    return shop.loop.run(everything())


def test_csv_reads_back_to_the_ledgers_values(strict_shop, tmp_path):
    shop = strict_shop
    seed(shop, n=700)
    made = shop.create("SHOP-CSV-1", amount=1234, title='Café, "quoted"')
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    shop.lookup("SHOP-CSV-1")  # the fee is known now
    currency = shop.tab.filters.currency
    press.choose(currency, currency.itemText(currency.findData("GBP")))
    shop.loop.until(lambda: shop.tab.model.query.currencies == frozenset({"GBP"}), message="filter")
    target = tmp_path / "export.csv"
    task = export(shop)
    answer_save_dialog(shop, target)
    shop.loop.until(task.done, timeout=60, message="the export")
    assert task.result() == target
    raw = target.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # a BOM: Excel reads it as UTF-8
    with open(target, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    expected = ledger_rows(shop, shop.tab.current_query())
    assert len(rows) == len(expected) == shop.tab.model.rowCount()

    def when(text):
        return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None

    for row, record in zip(rows, expected):  # every column against the ledger's own value
        assert row["tx_ref"] == record.tx_ref and row["currency"] == record.currency == "GBP"
        assert Decimal(row["amount"]) == record.amount
        assert row["state"] == state_words(record).words  # PayDesk's word (PAID)
        assert row["service_reference"] == (record.reference or "")
        assert row["service_state"] == (record.state_raw or record.state)  # the service's
        assert (row["first_name"], row["last_name"], row["email"]) == (
            record.first_name,
            record.last_name,
            record.email,
        )
        assert (Decimal(row["fee"]) if row["fee"] else None) == record.fee
        assert row["mode"] == record.mode == "test"
        assert row["made"] == ("here" if record.origin == "link" else "looked up")
        assert when(row["created_utc"]) == record.created_at
        assert row["created_local"] == record.created_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
        assert when(row["updated_utc"]) == record.updated_at
        assert when(row["last_checked_utc"]) == record.checked_at
        assert row["title"] == (record.customization.get("title") or "")
        assert row["checkout_url"] == (record.checkout_url or "")
        assert row["error"] == (record.error or "")
    mine = next(r for r in rows if r["tx_ref"] == "SHOP-CSV-1")
    assert mine["amount"] == "1234.00" and mine["fee"] == "17.48" and mine["title"] == 'Café, "quoted"'
    assert shop.tab.work.report.text() == f"Exported {len(rows)} records to {target}"

    soffice = need_system("soffice", "libreoffice-calc-nogui")
    done = subprocess.run(
        [
            soffice,
            "--headless",
            f"-env:UserInstallation=file://{tmp_path}/lo",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(tmp_path / "lo-out"),
            str(target),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0 and (tmp_path / "lo-out" / "export.xlsx").stat().st_size > 1000, done.stderr[-2000:]


def test_xlsx_has_numbers_and_times(strict_shop, tmp_path):
    from openpyxl import load_workbook

    shop = strict_shop
    seed(shop, n=40)
    target = tmp_path / "export.xlsx"
    task = export(shop)
    answer_save_dialog(shop, target, "Excel workbook (*.xlsx)")
    shop.loop.until(task.done, timeout=60, message="the export")
    sheet = load_workbook(target).active
    header = [c.value for c in sheet[1]]
    rows = [[c.value for c in row] for row in sheet.iter_rows(min_row=2)]
    assert len(rows) == 40 and header[7] == "amount"
    expected = ledger_rows(shop, LinkQuery(shop.profile.id, "test"))
    assert [r[0] for r in rows] == [r.tx_ref for r in expected]
    assert all(isinstance(r[7], (int, float)) for r in rows)
    assert [Decimal(str(r[7])) for r in rows] == [r.amount for r in expected]


def test_a_cancelled_export_leaves_no_file(strict_shop, tmp_path):
    shop = strict_shop
    seed(shop, n=6000)
    target = tmp_path / "big.csv"
    work = shop.tab.work
    # Cancel as soon as the first page is written (a user watching the progress bar)
    work.bar.valueChanged.connect(lambda value: value and work.busy and press.click(work.cancel))
    task = export(shop)
    answer_save_dialog(shop, target)
    shop.loop.until(task.done, message="the cancel")
    assert task.cancelled() and work.report.text() == "Cancelled"
    assert not target.exists() and not list(tmp_path.glob("big.csv*"))  # nothing half-written


def test_a_cancelled_export_keeps_the_previous_file(strict_shop, tmp_path):
    shop = strict_shop
    seed(shop, n=6000)
    target = tmp_path / "day.csv"
    target.write_text("yesterday's export")
    work = shop.tab.work
    work.bar.valueChanged.connect(lambda value: value and work.busy and press.click(work.cancel))
    task = export(shop)
    answer_save_dialog(shop, target)
    shop.loop.until(task.done, message="the cancel")
    assert target.read_text() == "yesterday's export"


def test_names_from_the_internet_are_never_formulas(strict_shop, tmp_path):
    """Regression: a name like =HYPERLINK(…) from the website form became a formula in the
    accountant's spreadsheet."""
    from openpyxl import load_workbook

    shop = strict_shop
    evil = '=HYPERLINK("http://x.example","Pay")'
    shop.website_payment("WEB-EVIL-1")  # the form's fields are the customer's to fill
    import httpx

    httpx.post(
        f"{shop.sandbox.base_url}/ext_transfer",
        data={
            "secret_key": shop.sandbox.key("test", "public"),
            "tx_ref": "WEB-EVIL-2",
            "amount": "5",
            "currency": "GBP",
            "email": "e@example.com",
            "first_name": evil,
            "last_name": "+1",
        },
    )
    for ref in ("WEB-EVIL-1", "WEB-EVIL-2"):
        shop.lookup(ref)
    shop.refresh()
    shop.loop.until(lambda: shop.tab.model.counted and shop.tab.model.rowCount() == 2, message="the two rows")
    target = tmp_path / "evil.csv"
    task = export(shop)
    answer_save_dialog(shop, target)
    shop.loop.until(task.done, message="the export")
    with open(target, encoding="utf-8-sig", newline="") as f:
        rows = {r["tx_ref"]: r for r in csv.DictReader(f)}
    assert rows["WEB-EVIL-2"]["first_name"] == "'" + evil
    assert rows["WEB-EVIL-2"]["last_name"] == "'+1"
    # made on the website and not paid: the service does not say its amount to a lookup
    first = shop.loop.run(shop.session.ledger.get(shop.profile.id, "WEB-EVIL-1"))
    assert rows["WEB-EVIL-1"]["amount"] == (f"{first.amount:.2f}" if first.currency else "")
    target = tmp_path / "evil.xlsx"
    task = export(shop)
    answer_save_dialog(shop, target, "Excel workbook (*.xlsx)")
    shop.loop.until(task.done, message="the export")
    sheet = load_workbook(target).active
    cells = [c for row in sheet.iter_rows() for c in row if c.value == evil]
    assert cells and all(c.data_type == "s" for c in cells)


def test_a_receipt_as_pdf(strict_shop, tmp_path):
    pdftoppm = need_system("pdftoppm", "poppler-utils")
    pdftotext = need_system("pdftotext", "poppler-utils")
    shop = strict_shop
    made = shop.create("SHOP-RCPT-1", amount=42)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    shop.lookup("SHOP-RCPT-1")
    assert shop.tab.details.buttons["receipt-pdf"].isEnabled()
    target = tmp_path / "receipt.pdf"
    press.click(shop.tab.details.buttons["receipt-pdf"])
    answer_save_dialog(shop, target)
    shop.loop.until(target.exists, message="the PDF")
    shop.loop.until(lambda: target.stat().st_size > 1000, message="the PDF written")
    subprocess.run(
        [pdftoppm, "-png", "-r", "50", "-singlefile", str(target), str(tmp_path / "page")], check=True, timeout=60
    )
    image = QImage(str(tmp_path / "page.png"))
    colours = {image.pixel(x, y) for x in range(0, image.width(), 4) for y in range(0, image.height(), 4)}
    assert len(colours) > 3, "the receipt is blank"
    text = subprocess.run([pdftotext, str(target), "-"], capture_output=True, text=True, check=True, timeout=60).stdout
    assert "GBP 42.00" in text and "SHOP-RCPT-1" in text and made.reference in text
    assert "Corner Shop" in text and "GBP 0.79" not in text  # the merchant's fee is not the customer's
    assert "Payment receipt — TEST" in text and "TEST" in text.split()  # and the large mark
    assert decode_qr(tmp_path / "page.png") == ["SHOP-RCPT-1"]  # scanned back into Look up


def test_a_live_receipt_has_no_test_mark(strict_shop, tmp_path):
    from dataclasses import replace

    from paydesk.ui.transactions.receipt import pdf_bytes

    pdftotext = need_system("pdftotext", "poppler-utils")
    shop = strict_shop
    made = shop.create("SHOP-RCPT-L", amount=42)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    record = replace(shop.lookup("SHOP-RCPT-L").record, mode="live")
    target = tmp_path / "live.pdf"
    target.write_bytes(pdf_bytes(record, "Corner Shop", test=False))
    text = subprocess.run([pdftotext, str(target), "-"], capture_output=True, text=True, check=True, timeout=60).stdout
    assert "GBP 42.00" in text and "SHOP-RCPT-L" in text and "TEST" not in text


def test_no_receipt_for_an_unpaid_payment(strict_shop):
    shop = strict_shop
    shop.create("SHOP-RCPT-2")
    shop.lookup("SHOP-RCPT-2")
    assert not shop.tab.details.buttons["receipt-pdf"].isEnabled()
    assert not shop.tab.details.buttons["receipt-print"].isEnabled()


def test_end_of_day(strict_shop, tmp_path):
    shop = strict_shop
    made = [shop.create(f"SHOP-DAY-{i}", amount=10 + i) for i in range(6)]
    for record, outcome in zip(made, ("success", "success", "failed", "cancelled")):
        shop.control(f"pay/{record.reference}", {"outcome": outcome})
    for record in made:
        shop.lookup(record.tx_ref)
    press.click(shop.tab.end_of_day)
    shop.loop.until(lambda: dialog("end-of-day") is not None, message="the end-of-day window")
    window = dialog("end-of-day")
    assert window.windowTitle() == "End of day"
    shop.loop.until(lambda: window.figures["Links made"].text() == "6", message="the figures")
    figures = {k: v.text() for k, v in window.figures.items()}
    assert figures["Paid"] == "2" and figures["Failed"] == "1" and figures["Cancelled"] == "1"
    assert figures["Still open"] == "2"
    totals = window.totals.model()
    assert [totals.index(0, c).data() for c in range(4)] == ["GBP", "2", "21.00", "0.69"]
    target = tmp_path / "day.csv"
    task = press.click_starting(window.export, "export")
    answer_save_dialog(shop, target)
    shop.loop.until(task.done, message="the day's export")
    text = target.read_bytes().decode("utf-8-sig")
    summary, rows = text.split("\r\n\r\n", 1)
    summary_rows = list(csv.reader(summary.splitlines()))
    assert ["collected", "GBP", "paid", "2", "21.00", "0.69"] in summary_rows
    assert ["summary", "", "Links made", "6", "", ""] in summary_rows
    day_rows = list(csv.DictReader(rows.splitlines()))
    assert sorted(r["tx_ref"] for r in day_rows) == sorted(r.tx_ref for r in made)
    press.click(window.close_button)


def test_a_receipt_says_when_it_was_paid_and_wraps_long_text(strict_shop, tmp_path):
    pdftotext = need_system("pdftotext", "poppler-utils")
    shop = strict_shop
    long_mail = "a.very.long.customer.address.that.goes.on.and.on.and.on@example.com"
    made = shop.create("SHOP-RCPT-3", email=long_mail)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    found = shop.lookup("SHOP-RCPT-3")
    paid = found.record.raw["updated_at"]
    target = tmp_path / "receipt.pdf"
    press.click(shop.tab.details.buttons["receipt-pdf"])
    answer_save_dialog(shop, target)
    shop.loop.until(lambda: target.exists() and target.stat().st_size > 1000, message="the PDF")
    text = subprocess.run([pdftotext, str(target), "-"], capture_output=True, text=True, check=True, timeout=60).stdout
    flat = "".join(text.split())
    assert "Paid" in text and paid[:10] in text  # the service's own time of payment
    assert long_mail in flat  # wrapped onto the page, all of it


def test_end_of_day_names_what_it_counts(strict_shop):
    shop = strict_shop
    made = shop.create("SHOP-EOD-1", amount=12)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})  # its fee not yet learned
    press.click(shop.tab.end_of_day)
    shop.loop.until(lambda: dialog("end-of-day") is not None, message="the window")
    window = dialog("end-of-day")
    shop.loop.until(lambda: window.figures["Links made"].text() == "1", message="the figures")
    shop.loop.until(
        lambda: window.figures["Paid"].text() == "1",
        timeout=30,
        message="PAID learned by the scheduler, counted while the window is open",
    )
    shop.loop.until(lambda: window.totals.model().rowCount() == 1, message="the totals")
    assert "Corner Shop, TEST mode: links made on" in window.heading.text()
    fees = window.totals.model().index(0, 3).data()
    assert fees in ("0.37", "0.00 (known for 0 of 1)")  # said, when not known
    press.click(window.close_button)
