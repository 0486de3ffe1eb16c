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
    shop.loop.until(
        lambda: "1 batch has rows not sent yet" in batches.said.text(), message="the batch left with rows not sent"
    )
    named_right(batches)
    shop.loop.until(lambda: batches.resume.isEnabled(), message="Resume offered")
    press.click(batches.resume)
    shop.loop.until(lambda: text(batches.model, 0, 8) == "0", timeout=60, message="the rest sent")
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
    assert (text(model, 0, 4), text(model, 0, 5), text(model, 0, 6), text(model, 0, 7)) == ("3", "3", "0", "0")
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
    shop.loop.until(
        lambda: paused.isVisible() and paused.text().startswith("Paused by the service for "),
        timeout=30,
        message="the service's pause said",
    )
    assert paused.text().endswith(" s")
    shop.sandbox.faults()  # the service takes calls again: the rows go once the wait is over
    outcome = window.progress_step.outcome  # rows sent before the pause settle after it
    shop.loop.until(
        lambda: (
            outcome.text().startswith("Done: 3 links created, 0 refused") and "answer not in yet" not in outcome.text()
        ),
        timeout=120,
        message="every row made",
    )
    assert not paused.isVisible()
    assert shop.creates() - before == 3


def test_a_batchs_rows_are_read_a_page_at_a_time(shop, tmp_path):
    window = run_file(shop, tmp_path, "big.csv", 230)
    assert shop.wait_done(window, timeout=120).startswith("Done: 230 links created")
    batches = open_batches(shop)
    rows = batches.rows_model
    shop.loop.until(lambda: rows.rowCount() == 200, message="the first page")
    assert rows.canFetchMore()
    press.click(batches.rows.viewport(), pos=batches.rows.visualRect(rows.index(0, 0)).center())
    press.key(batches.rows, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    shop.loop.until(lambda: rows.rowCount() == 230, message="the next page, scrolled to")
    assert text(rows, 229, 0) == "231"  # the file's last row


LONG_REF = "INV-2025-SPRING-TERM-FEES-YEAR7-PARENT-00003"  # longer than its column


def ink_rows(view, index) -> list[int]:
    """The pixel rows of a cell, as painted on screen, that hold the text's ink (pixels far
    from the cell's background, its commonest colour: dark text on a plain row, light text
    on a selected one), in the cell's coordinates."""
    from collections import Counter

    view.viewport().repaint()
    rect = view.visualRect(index).adjusted(2, 1, -2, -1)  # off the grid lines
    image = view.viewport().grab(rect).toImage()
    light = [[image.pixelColor(x, y).lightness() for x in range(image.width())] for y in range(image.height())]
    background = Counter(v for line in light for v in line).most_common(1)[0][0]
    return [y for y, line in enumerate(light) if any(abs(v - background) > 90 for v in line)]


def test_a_reference_is_drawn_on_one_line_never_broken(shop, tmp_path):
    from PySide6.QtGui import QFontMetrics

    path = write_csv(tmp_path / "spring-term-fees-and-references-year-7.csv", [row(2), row(3, tx_ref=LONG_REF)])
    window = shop.open_bulk()
    shop.load(window, path)
    shop.check(window)
    shop.create(window)
    assert shop.wait_done(window).startswith("Done: 2 links created")
    batches = open_batches(shop)  # as it opens: 1100 × 700
    rows, view = batches.rows_model, batches.rows
    shop.loop.until(lambda: rows.rowCount() == 2, message="the batch's rows")
    refs = [window.batch.ref(2), LONG_REF]
    assert [text(rows, i, 2) for i in range(2)] == refs
    metrics = QFontMetrics(rows.data(rows.index(0, 2), Qt.ItemDataRole.FontRole))
    # the batch's own references, and the service's, fit their columns whole
    assert metrics.horizontalAdvance(refs[0]) <= room(view, 2)
    assert metrics.horizontalAdvance(text(rows, 0, 3)) <= room(view, 3)
    assert metrics.horizontalAdvance(LONG_REF) > room(view, 2)  # this one cannot: elided
    for i in range(2):
        for column in (2, 3):  # the reference, the service's
            one_line(view, rows.index(i, column))
    # the checkout URL, scrolled to as a user does: a cell clicked, End to the row's end
    press.click(view.viewport(), pos=view.visualRect(rows.index(1, 1)).center())
    press.key(view, Qt.Key.Key_End)
    for i in range(2):
        one_line(view, rows.index(i, 9))
    assert rows.data(rows.index(1, 2), Qt.ItemDataRole.ToolTipRole) == LONG_REF
    # the batch's file name, hyphens and all, on one line too
    one_line(batches.table, batches.model.index(0, 1), fixed=False)


def room(view, column: int) -> int:
    """The width a cell of ``column`` gives its text: the column less the grid line and the
    style's text margins (QCommonStyle: the focus frame's margin and one pixel, each side)."""
    margin = view.style().pixelMetric(view.style().PixelMetric.PM_FocusFrameHMargin, None, view)
    return view.columnWidth(column) - 1 - 2 * (margin + 1)


def one_line(view, index, fixed=True, hover=False) -> None:
    """The cell's text is painted on one line (in the fixed face), whole, or elided with the
    whole of it in the cell's tooltip (the model's; ``hover``: the one a person gets with the
    mouse resting on the cell)."""
    from PySide6.QtGui import QFontMetrics

    from paydesk.ui.fixed_text import is_fixed

    model = view.model()
    full = model.data(index)
    font = model.data(index, Qt.ItemDataRole.FontRole) if fixed else view.font()
    assert is_fixed(font) == fixed, index.column()
    metrics = QFontMetrics(font)
    # the row keeps its one-line height: not grown to hold a wrapped reference
    assert view.rowHeight(index.row()) == view.verticalHeader().defaultSectionSize()
    painted = ink_rows(view, index)
    assert painted, f"nothing painted for {full!r}"
    # one line of ink: no second line under it (a wrap at a hyphen), none cut off
    assert painted[-1] - painted[0] < metrics.height(), (full, painted)
    assert painted == list(range(painted[0], painted[-1] + 1)), (full, painted)
    if metrics.horizontalAdvance(full) > room(view, index.column()):
        # elided: the whole of it in its tooltip
        if hover:
            from tests.ui.layout_checks import _tooltip_at

            assert full in _tooltip_at(view, view.visualRect(index).center()), full
        else:
            assert model.data(index, Qt.ItemDataRole.ToolTipRole) == full, full


def test_the_dry_runs_grid_never_breaks_a_reference(shop, tmp_path):
    """The Check step's grid: a file's references in the fixed face, on one line however
    narrow their column is made (issue 28, item 14)."""
    path = write_csv(tmp_path / "spring.csv", [row(2, tx_ref=LONG_REF)])
    window = shop.open_bulk()
    shop.load(window, path)
    shop.check(window)
    grid = window.check_step.grid
    model = grid.model()
    column = model.fields.index("tx_ref")
    assert model.data(model.index(0, column)) == LONG_REF
    press.size_column(grid, column, 150)  # narrower than the reference, wider than "INV-2025-"
    one_line(grid, model.index(0, column), hover=True)
