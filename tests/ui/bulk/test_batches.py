"""Pause, Resume and Cancel while a batch is created on a slow sandbox, and the Batches window
(View → Batches…): the batches with their figures, live as links are paid, a batch's rows,
Check all open, and Resume for a batch that was cancelled. Only presses; the sandbox's call
log says nothing was made twice."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui import press
from tests.ui.bulk.conftest import row, write_csv
from tests.ui.bulk.test_bulk_window import named_right


def run_file(shop, tmp_path, name: str, n: int):
    path = write_csv(tmp_path / name, [row(i) for i in range(2, n + 2)])
    window = shop.open_bulk()
    shop.load(window, path)
    shop.check(window)
    shop.create(window)
    return window


def open_batches(shop):
    shop.menu(shop.window.view_menu, shop.window.bulk.batches_action)
    shop.loop.until(lambda: press.shown("batches-window") is not None, message="Batches")
    batches = press.shown("batches-window")
    shop.loop.until(lambda: batches.model.rowCount() > 0, message="the batches")
    return batches


def text(model, row: int, column: int) -> str:
    return model.data(model.index(row, column))


def test_cancel_stops_and_resume_sends_the_rest(shop, tmp_path):
    shop.sandbox.faults(latency_ms=300)  # each create takes a while: there is time to press
    before = shop.creates()
    window = run_file(shop, tmp_path, "fees.csv", 24)
    progress = window.progress_step
    shop.loop.until(lambda: progress.bar.value() >= 4, timeout=30, message="a few made")
    press.click(progress.pause)
    shop.loop.until(lambda: progress.resume.isEnabled(), message="paused")
    press.click(progress.resume)
    press.click(progress.cancel)
    outcome = shop.wait_done(window)
    assert outcome.startswith("Cancelled: "), outcome
    assert "not sent. Resume sends the rest." in outcome
    made = shop.creates() - before
    assert 0 < made < 24
    shop.sandbox.faults()  # back to speed

    # the Payment links tab offers it; the batch is never resumed by itself
    notice = shop.window.links_tab.unfinished
    shop.loop.until(lambda: notice.isVisible(), message="the offer to resume")
    assert notice.text() == "1 batch has rows not sent yet: Batches…"
    press.click(notice)
    shop.loop.until(lambda: press.shown("batches-window") is not None, message="Batches")
    batches = press.shown("batches-window")
    shop.loop.until(lambda: "1 batch has rows not sent yet" in batches.said.text(),
                    message="the batch left with rows not sent")
    named_right(batches)
    shop.loop.until(lambda: batches.resume.isEnabled(), message="Resume offered")
    press.click(batches.resume)
    shop.loop.until(lambda: text(batches.model, 0, 8) == "0", timeout=60,
                    message="the rest sent")
    assert text(batches.model, 0, 5) == "24"  # created
    assert shop.creates() - before == 24  # none twice
    shop.loop.until(lambda: not notice.isVisible(), message="nothing left to offer")


def test_the_batches_window_shows_figures_rows_and_payments_live(shop, tmp_path):
    window = run_file(shop, tmp_path, "club-fees.csv", 3)
    assert shop.wait_done(window).startswith("Done: 3 links created")
    batches = open_batches(shop)  # View → Batches…
    model = batches.model
    assert model.rowCount() == 1
    assert text(model, 0, 1) == "club-fees.csv"
    assert (text(model, 0, 4), text(model, 0, 5), text(model, 0, 6), text(model, 0, 7)) == (
        "3", "3", "0", "0")
    rows = batches.rows_model
    shop.loop.until(lambda: rows.rowCount() == 3, message="the batch's rows")
    assert [text(rows, i, 1) for i in range(3)] == ["Created"] * 3
    batch = window.batch
    assert [text(rows, i, 2) for i in range(3)] == [batch.ref(n) for n in (2, 3, 4)]
    assert all(text(rows, i, 9).startswith("http") for i in range(3))

    # a customer pays; Check all open asks the service; the figures follow
    record = shop.in_ledger(batch.ref(3))
    shop.sandbox.control(f"pay/{record.reference}", {"outcome": "success"})
    press.click(batches.check_all)
    shop.loop.until(lambda: text(model, 0, 7) == "1", timeout=30, message="paid so far: 1")
    shop.loop.until(lambda: text(rows, 1, 1) == "Paid", message="the row paid")
    assert batches.said.text().startswith("Checked the open links of ")


def test_the_service_asking_to_wait_is_said_and_nothing_is_lost(shop, tmp_path):
    # the service answers 429 with a Retry-After longer than the client waits by itself
    shop.sandbox.faults(rate_limit_per_s=0.15)
    before = shop.creates()
    window = run_file(shop, tmp_path, "many.csv", 3)
    paused = window.progress_step.paused
    shop.loop.until(lambda: paused.isVisible()
                    and paused.text().startswith("Paused by the service for "), timeout=30,
                    message="the service's pause said")
    assert paused.text().endswith(" s")
    shop.sandbox.faults()  # the service takes calls again: the rows go once the wait is over
    outcome = window.progress_step.outcome  # rows sent before the pause settle after it
    shop.loop.until(lambda: outcome.text().startswith("Done: 3 links created, 0 refused")
                    and "answer not in yet" not in outcome.text(), timeout=120,
                    message="every row made")
    assert not paused.isVisible()
    assert shop.creates() - before == 3


def test_a_batchs_rows_are_read_a_page_at_a_time(shop, tmp_path):
    window = run_file(shop, tmp_path, "big.csv", 230)
    assert shop.wait_done(window, timeout=120).startswith("Done: 230 links created")
    batches = open_batches(shop)
    rows = batches.rows_model
    shop.loop.until(lambda: rows.rowCount() == 200, message="the first page")
    assert rows.canFetchMore()
    press.click(batches.rows.viewport(),
                pos=batches.rows.visualRect(rows.index(0, 0)).center())
    press.key(batches.rows, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    shop.loop.until(lambda: rows.rowCount() == 230, message="the next page, scrolled to")
    assert text(rows, 229, 0) == "231"  # the file's last row
