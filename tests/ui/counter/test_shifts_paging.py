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
    press.key(
        app.window.links_tab.form.amount,
        Qt.Key.Key_H,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    loop.until(lambda: press.shown("counter-shifts-window") is not None, message="the Counter shifts window")
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
    assert all(model.text(model.at(row), 4) != "open" for row in range(105))
    press.escape(window.shifts)  # Escape closes it
    loop.until(lambda: not window.isVisible(), message="the window closed")


def test_open_sales_page_past_the_payments_after_void_already_decided(start_app, loop, monkeypatch):
    """Finance's second list leaves out the settled payments after void in SQL: a page of
    them does not leave the list empty (nor stop its paging) while older open sales exist.
    The banner counts the undecided ones in the ledger, not in the rows read so far."""
    from paydesk.ledger.counter import KEEP
    from paydesk.ui.counter import shift_lists
    from tests.ledger.test_counter_book import linked, settled

    monkeypatch.setattr(shift_lists, "PAGE", 3)
    app = start_app(sandbox=True).on_links_tab()
    desk, session = app.window.desk, app.session
    profile, mode = session.profile.id, session.mode

    async def history() -> list[str]:
        shift = await desk.book.open_shift("Till 9", profile, mode, "kim")
        refs = [f"PG-{n}" for n in range(7)]
        for n, ref in enumerate(refs):
            await desk.book.add_sale(shift.id, ref, "kim")
            await linked(session.ledger, ref, profile=profile, mode=mode)
            if n >= 2:  # the five newest: voided, then paid anyway
                await desk.book.void(profile, ref, "kim")
                await settled(session.ledger, ref, "success", profile, mode)
            if n >= 3:  # the four newest of those: kept
                await desk.book.decide(profile, ref, KEEP, "lee")
        return refs

    refs = loop.run(history(), timeout=60)
    press.click(app.window.links_tab.form.amount)
    press.key(
        app.window.links_tab.form.amount,
        Qt.Key.Key_H,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    loop.until(lambda: press.shown("counter-shifts-window") is not None, message="the Counter shifts window")
    window = press.shown("counter-shifts-window")
    loop.until(lambda: window.loaded, message="its lists")
    model = window.sales_model
    assert [s.tx_ref for s in model.sales] == [refs[2], refs[1], refs[0]]  # one full page
    # the view asks for more (the rows do not fill it): an empty page ends the paging
    loop.until(lambda: not model.canFetchMore(), message="the next, empty, page read")
    assert [s.tx_ref for s in model.sales] == [refs[2], refs[1], refs[0]]
    loop.until(lambda: window.banner.isVisible(), message="the banner")
    assert window.banner.text() == "1 payment after void: refund or keep"
    press.escape(window.shifts)
