"""Finance's Counter shifts window reads a page of shifts at a time (100), and the next page
as the list is scrolled to its end (Ctrl+End), never every row at once."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui import press


def test_the_shifts_are_read_a_page_at_a_time(start_app, loop):
    app = start_app(sandbox=True).on_links_tab()
    book, session = app.window.desk.book, app.session

    async def history() -> None:  # a long-running counter: 105 shifts, each closed
        for _ in range(105):
            shift = await book.open_shift("Till 9", session.profile.id, session.mode, "kim")
            await book.close_shift(shift.id, "kim")

    loop.run(history(), timeout=120)
    press.click(app.window.links_tab.form.amount)
    press.key(app.window.links_tab.form.amount, Qt.Key.Key_H,
              Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    loop.until(lambda: press.shown("counter-shifts-window") is not None,
               message="the Counter shifts window")
    window = press.shown("counter-shifts-window")
    loop.until(lambda: window.loaded, message="its lists")
    model = window.shifts_model
    assert model.rowCount() == 100 and model.canFetchMore()
    ids = [model.at(row)[0].id for row in range(100)]
    assert ids == sorted(ids, reverse=True)  # newest first
    index = model.index(0, 0)
    press.click(window.shifts.viewport(), pos=window.shifts.visualRect(index).center())
    press.key(window.shifts, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    loop.until(lambda: model.rowCount() == 105, message="the next page, read as scrolled to")
    assert len({model.at(row)[0].id for row in range(105)}) == 105
    assert all(model.text(*model.at(row), 4) != "open" for row in range(105))
    press.escape(window.shifts)  # Escape closes it
    loop.until(lambda: not window.isVisible(), message="the window closed")
