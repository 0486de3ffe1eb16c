"""The layout audit's states of what is said once a print to a PDF file or a save is done
(ui/printing.py: "Printed to a PDF file: <its path>"; "Saved … to <its path>"), where the
button was pressed: the QR code on the Payment links tab (Print…, Save PNG…), a receipt in
the Transactions details pane (Print receipt…, Save receipt as PDF…), the end of day
(Print…, Export CSV…), a batch's QR sheet and results, and a shift's report (saved as PDF
by itself, Print…, Save as PDF…). Qt's print and save dialogs are answered as a person
does (press.print_to_file, press.save_as), into a folder of a long path, as a shop's
documents folder is. Beside the audit, each message is read as a person reads it: the
file's name is in sight (a long path shortened in its middle, never at its end)."""

from __future__ import annotations

from paydesk.i18n import _, ngettext
from tests.ui import press
from tests.ui.layout_states.reach import (
    LONG_FIRST,
    LONG_LAST,
    LONG_TITLE,
    counter_tab,
    create_link,
    pay,
    rename_profile,
    shown_window,
    to_tab,
)


def _folder(tmp_path):
    """A folder of the long path a shop keeps its papers in (one of its names without a
    space, as an accountant's export folder often is)."""
    folder = (
        tmp_path
        / "Østergaard & Sønners Kaffebrænderi og Konditori"
        / "Receipts, end of day and shift reports for the accountant, 2026"
        / "regnskab_noerrebrogade_afdeling_kvartal_4_til_revisor_bilag"
    )
    folder.mkdir(parents=True)
    return folder


def _in_sight(label, name: str) -> None:
    """The file's name is read whole where the message is shown (its lines as drawn)."""
    lines = label.shown_lines()[0] if hasattr(label, "shown_lines") else [label.text()]
    seen = "".join(lines).replace(" ", "")
    assert name.replace(" ", "") in seen, (
        f"{label.objectName()} shows {lines!r}: the file's name {name!r} is not in sight"
    )


def _printed_to(loop, dialog, path, label) -> None:
    """Qt's print dialog answered (Print to File (PDF), the path typed, Print), until the
    message under ``label`` tells where the file went."""
    press.print_to_file(dialog, path)
    said = _("Printed to a PDF file: {path}").format(path=path)
    loop.until(lambda: label.text() == said, timeout=30, message="where the file went")
    _in_sight(label, path.name)


def _saved_to(loop, path, label, said: str | None = None) -> None:
    """Qt's save dialog answered (the path typed, Enter), until ``label`` tells where the
    file went (its path, in a sentence of the staff's language), and says ``said`` if given."""
    press.save_as(shown_window(loop, "save-dialog"), path)
    loop.until(lambda: str(path) in label.text(), timeout=30, message="where the file went")
    assert said is None or label.text() == said, label.text()
    _in_sight(label, path.name)


def test_a_link_and_a_receipt_printed_and_saved(app, loop, seen, tmp_path):
    folder = _folder(tmp_path)
    rename_profile(app, loop)
    window = app.window
    record = create_link(app, loop, title=LONG_TITLE)
    panel = window.links_tab.panel
    loop.until(lambda: panel.record is not None, message="the link shown")
    # the QR code: printed, then saved as PNG
    press.click(panel.buttons["print"])
    loop.until(
        lambda: getattr(panel, "print_dialog", None) is not None and panel.print_dialog.isVisible(),
        message="Qt's print dialog",
    )
    _printed_to(loop, panel.print_dialog, folder / f"QR code of {record.tx_ref} for the counter.pdf", panel.outcome)
    seen.look(window, "the QR code printed to a PDF file")
    press.click(panel.buttons["save-png"])
    loop.until(
        lambda: getattr(panel, "file_dialog", None) is not None and panel.file_dialog.isVisible(),
        message="Qt's save dialog",
    )
    png = folder / f"QR code of {record.tx_ref} for the window.png"
    press.save_as(panel.file_dialog, png)
    loop.until(lambda: str(png) in panel.outcome.text(), timeout=30, message="where the image went")
    _in_sight(panel.outcome, png.name)
    seen.look(window, "the QR code saved as PNG")
    # a receipt: printed, then saved as PDF
    pay(app, loop, record)
    to_tab(window, "transactions")
    tab = window.transactions_tab
    loop.until(lambda: tab.loaded and tab.model.rowCount() > 0, message="the list")
    press.click(tab.table.viewport(), pos=tab.table.visualRect(tab.model.index(0, 0)).center())
    details = tab.details
    loop.until(lambda: details.state.text() == _("PAID"), timeout=30, message="PAID")
    press.click(details.buttons["receipt-print"])
    _printed_to(
        loop,
        shown_window(loop, "print-dialog"),
        folder / f"Receipt of {record.tx_ref} for {LONG_FIRST}.pdf",
        details.message,
    )
    seen.look(window, "a receipt printed to a PDF file")
    press.click(details.buttons["receipt-pdf"])
    receipt = folder / f"Receipt of {record.tx_ref} for {LONG_FIRST} {LONG_LAST}.pdf"
    _saved_to(loop, receipt, details.message, _("Saved the receipt as PDF to {path}").format(path=receipt))
    seen.look(window, "a receipt saved as PDF")
    # the end of day: printed, then exported
    press.click(tab.end_of_day)
    day = shown_window(loop, "end-of-day")
    loop.until(lambda: day.totals.model().rowCount() > 0, timeout=30, message="the figures")
    press.click(day.print)
    _printed_to(
        loop,
        shown_window(loop, "print-dialog"),
        folder / "End of day of the supporters' club shop, 28 December 2026.pdf",
        day.message,
    )
    seen.look(day, "the end of day printed to a PDF file")
    press.click(day.export)
    day_csv = folder / "End of day of the supporters' club shop, 28 December 2026.csv"
    exported = ngettext(
        "Exported the day's figures and {n} record to {path}", "Exported the day's figures and {n} records to {path}", 1
    )
    _saved_to(loop, day_csv, day.message, exported.format(n=1, path=day_csv))
    seen.look(day, "the end of day exported")
    press.click(day.close_button)


def test_a_batchs_qr_sheet_and_results_saved(app, loop, seen, tmp_path):
    from tests.ui.bulk.conftest import row, write_csv

    folder = _folder(tmp_path)
    press.click(app.window.links_tab.bulk)
    bulk = shown_window(loop, "bulk-window")
    rows = [row(i, first_name=LONG_FIRST, last_name=LONG_LAST, title=LONG_TITLE) for i in range(2, 4)]
    sheet = write_csv(tmp_path / "september-invoices-for-the-supporters-club.csv", rows)
    press.click(bulk.file_step.choose)
    press.save_as(shown_window(loop, "bulk-open-dialog"), sheet)
    loop.until(lambda: bulk.stack.currentWidget() is bulk.mapping_step, message="columns")
    press.click(bulk.next)
    loop.until(lambda: bulk.stack.currentWidget() is bulk.check_step, message="dry run")
    press.click(bulk.check_step.create_links)
    loop.until(lambda: bulk.stack.currentWidget() is bulk.progress_step, message="progress")
    outcome = bulk.progress_step.outcome
    loop.until(lambda: outcome.isVisible() and outcome.text(), 60, message="the batch done")
    press.click(bulk.progress_step.batches)
    batches = shown_window(loop, "batches-window")
    loop.until(lambda: batches.rows_model.rowCount() > 0, message="the batch's rows")
    press.click(batches.qr)
    codes = folder / "QR codes of the September invoices for the supporters' club.pdf"
    _saved_to(
        loop,
        codes,
        batches.said,
        ngettext("Saved {n} code to {path}", "Saved {n} codes to {path}", 2).format(n=2, path=codes),
    )
    seen.look(batches, "Batches, the QR sheet saved")
    press.click(batches.results)
    results = folder / "Results of the September invoices for the supporters' club.csv"
    said = ngettext("Saved the results of {n} row to {path}", "Saved the results of {n} rows to {path}", 2)
    _saved_to(loop, results, batches.said, said.format(n=2, path=results))
    seen.look(batches, "Batches, the results saved")


def test_a_shift_report_printed_and_saved(app, loop, seen, tmp_path):
    folder = _folder(tmp_path)
    counter = counter_tab(app, loop)
    tab = counter.tab
    press.type_into(tab.note, LONG_TITLE)
    counter.sell("25")
    press.click(tab.close_shift_button)
    box = shown_window(loop, "confirm-close-shift")
    press.click(press.button(box, _("Close shift")))
    report = shown_window(loop, "shift-report")
    said = report.message.text()
    assert said.startswith(_("Saved the report as PDF to {path}").split("{path}")[0]), said
    seen.look(report, "the shift report, saved as PDF by itself")
    press.click(report.print_button)
    loop.until(
        lambda: getattr(report, "print_dialog", None) is not None and report.print_dialog.isVisible(),
        message="Qt's print dialog",
    )
    _printed_to(
        loop,
        report.print_dialog,
        folder / "Shift report of the counter by the door, closed at 23.58.pdf",
        report.message,
    )
    seen.look(report, "the shift report printed to a PDF file")
    press.click(report.save_button)
    saved = folder / "Shift report of the counter by the door, closed at 23.58, a copy.pdf"
    _saved_to(loop, saved, report.message, _("Saved the report to {path}").format(path=saved))
    seen.look(report, "the shift report saved as PDF")
    press.click(report.close_button)
