"""Bulk links while the shared ledger is out of reach: the Bulk window's Create links and its
Resume, the Batches window's Resume and Check all open, and E-mail links… are each refused
with the one sentence where they were pressed; no batch row is sent, no link made, no e-mail
sent, nothing written."""

from __future__ import annotations

import pytest

from paydesk.desk.bulk.check import BulkRow
from paydesk.ledger.batch import WAITING
from tests.ui import press
from tests.ui.bulk.conftest import row, write_csv
from tests.ui.outage.conftest import refused


def creates(shop) -> int:
    return sum(1 for method, path in shop.calls() if method == "POST" and path.endswith("/api/payment"))


def bulk_window(shop, tmp_path, n: int):
    """Bulk links… with a file of ``n`` rows chosen and checked (the dry run), as a user does."""
    loop = shop.loop
    press.click(shop.window.links_tab.bulk)
    loop.until(lambda: press.shown("bulk-window") is not None, message="Bulk links")
    window = press.shown("bulk-window")
    path = write_csv(tmp_path / "fees.csv", [row(i) for i in range(2, n + 2)])
    press.click(window.file_step.choose)
    loop.until(lambda: press.shown("bulk-open-dialog") is not None, message="the file dialog")
    press.save_as(press.shown("bulk-open-dialog"), path)
    loop.until(lambda: window.stack.currentWidget() is window.mapping_step, message="columns")
    press.click(window.next)
    loop.until(
        lambda: (
            window.stack.currentWidget() is window.check_step
            and not window.check_step.checking
            and window.check_step.to_create() == n
        ),
        message="the dry run",
    )
    return window


def batches_window(shop):
    bar, menu = shop.window.menuBar(), shop.window.view_menu
    press.click(bar, pos=bar.actionGeometry(menu.menuAction()).center())
    shop.loop.until(menu.isVisible, message="the View menu")
    press.click(menu, pos=menu.actionGeometry(shop.window.bulk.batches_action).center())
    shop.loop.until(lambda: press.shown("batches-window") is not None, message="Batches")
    batches = press.shown("batches-window")
    shop.loop.until(lambda: batches.model.rowCount() > 0 and batches.shown_batch is not None, message="the batches")
    return batches


def waiting_rows(shop, batch_id: int) -> int:
    return len(shop.loop.run(shop.desk.batches.rows(batch_id, None, 1000, (WAITING,))))


def test_create_links_in_the_bulk_window_is_refused(shop, tmp_path):
    shop = shop()
    window = bulk_window(shop, tmp_path, 3)
    step = window.check_step
    before = creates(shop)
    with shop.down():
        press.click(step.create_links)
        shop.loop.until(lambda: refused(step.why.text()), message="the sentence")
        assert window.stack.currentWidget() is step  # still there: nothing started
        shop.no_crash()
    assert creates(shop) == before
    profile = shop.profile
    assert shop.loop.run(shop.desk.batches.unfinished(profile.id, "test")) == []  # no batch
    shop.no_crash()


def test_resume_in_the_bulk_window_is_refused(shop, tmp_path):
    shop = shop()
    shop.sandbox.faults(latency_ms=300)  # each create takes a while: there is time to cancel
    window = bulk_window(shop, tmp_path, 12)
    press.click(window.check_step.create_links)
    progress = window.progress_step
    shop.loop.until(lambda: window.stack.currentWidget() is progress, message="the progress")
    shop.loop.until(lambda: progress.bar.value() >= 2, timeout=30, message="a few made")
    press.click(progress.cancel)
    shop.loop.until(lambda: progress.outcome.isVisible() and progress.outcome.text(), 30, message="cancelled")
    shop.sandbox.faults()
    left, before = waiting_rows(shop, window.batch.id), creates(shop)
    assert left > 0
    with shop.down():
        shop.loop.until(progress.resume.isEnabled, message="Resume offered")
        press.click(progress.resume)
        shop.loop.until(lambda: refused(progress.outcome.text()), message="the sentence")
        shop.settle(1.0)
        shop.no_crash()
    assert creates(shop) == before
    assert waiting_rows(shop, window.batch.id) == left
    shop.no_crash()


def test_cancel_while_the_ledger_is_down_never_crashes(shop, tmp_path):
    """A batch under way when the ledger goes, its creates slow: Cancel stops it (no new
    call starts) though its figures cannot be read, and nothing reaches the crash hook."""
    shop = shop()
    shop.sandbox.faults(latency_ms=10000)  # creates still under way a second after Cancel
    window = bulk_window(shop, tmp_path, 12)
    press.click(window.check_step.create_links)
    progress = window.progress_step
    shop.loop.until(lambda: window.stack.currentWidget() is progress, message="the progress")
    shop.loop.until(lambda: shop.desk.bulk.under_way(window.batch.id) > 0, timeout=30, message="creates under way")
    with shop.down():
        shop.loop.until(progress.cancel.isEnabled, message="Cancel offered")
        press.click(progress.cancel)
        shop.loop.until(lambda: not progress.cancel.isEnabled(), message="cancelled")
        shop.settle(2.0)
        shop.no_crash()
        made = creates(shop)
        shop.settle(2.0)
        assert creates(shop) == made  # no new call started
    shop.sandbox.faults()
    shop.no_crash()


@pytest.mark.parametrize("which", ["resume", "check_all"])
def test_the_batches_windows_resume_and_check_all_open_are_refused(shop, which):
    shop = shop()
    rows = [BulkRow(n, row(n)) for n in (2, 3)]
    batch, _ = shop.loop.run(shop.desk.bulk.keep("kept.csv", rows, "skip"))
    if which == "check_all":  # its links made (and open), while the ledger answers
        shop.loop.run(shop.desk.bulk.start(batch))
        shop.loop.run(shop.desk.bulk.wait(batch.id), timeout=60)
    batches = batches_window(shop)
    button = batches.resume if which == "resume" else batches.check_all
    shop.loop.until(button.isEnabled, message=f"{button.text()} offered")
    calls, left = shop.calls(), waiting_rows(shop, batch.id)
    with shop.down():
        press.click(button)
        shop.loop.until(lambda: refused(batches.said.text()), message="the sentence")
        shop.no_crash()
    assert shop.calls() == calls
    assert waiting_rows(shop, batch.id) == left
    shop.no_crash()


def test_email_links_sends_nothing_while_the_ledger_is_down(shop):
    from aiosmtpd.controller import Controller

    from tests.desk.bulk.test_mail import Inbox, free_port

    shop = shop()
    rows = [BulkRow(n, row(n)) for n in (2, 3)]
    batch, _ = shop.loop.run(shop.desk.bulk.keep("mail.csv", rows, "skip"))
    shop.loop.run(shop.desk.bulk.start(batch))
    shop.loop.run(shop.desk.bulk.wait(batch.id), timeout=60)
    inbox, port = Inbox(), free_port()
    server = Controller(inbox, hostname="localhost", port=port)
    server.start()
    try:
        batches = batches_window(shop)
        press.click(batches.email)
        shop.loop.until(lambda: press.shown("bulk-mail") is not None, message="E-mail links")
        dialog = press.shown("bulk-mail")
        shop.loop.until(lambda: dialog.preview.toPlainText(), message="the preview")
        with shop.down():
            press.type_into(dialog.host, "localhost")
            press.type_into(dialog.port, str(port))
            press.choose(dialog.security, "None (a server on this network only)")
            press.type_into(dialog.from_address, "billing@shop.example")
            press.click(dialog.send_button)
            shop.loop.until(lambda: refused(dialog.said.text()), message="the sentence")
            shop.settle(0.5)
            assert inbox.messages == []
            shop.no_crash()
        press.click(dialog.close_button)
    finally:
        server.stop()
    emailed = shop.loop.run(shop.desk.batches.rows(batch.id, None, 10))
    assert [r.email_state for r in emailed] == [None, None]  # no note: none sent
    shop.no_crash()


@pytest.mark.parametrize("which", ["results", "qr", "email"])
def test_the_batches_outputs_are_refused_before_their_dialog(shop, which):
    """Save results…, QR sheet… and E-mail links… read the batch from the ledger: while it
    is out of reach, the sentence instead of a dialog."""
    shop = shop()
    rows = [BulkRow(n, row(n)) for n in (2, 3)]
    batch, _ = shop.loop.run(shop.desk.bulk.keep("out.csv", rows, "skip"))
    shop.loop.run(shop.desk.bulk.start(batch))
    shop.loop.run(shop.desk.bulk.wait(batch.id), timeout=60)
    batches = batches_window(shop)
    with shop.down():
        press.click(getattr(batches, which))
        shop.loop.until(lambda: refused(batches.said.text()), message="the sentence")
        shop.settle()
        assert press.shown("save-dialog") is None and press.shown("bulk-mail") is None
        shop.no_crash()
    shop.no_crash()
