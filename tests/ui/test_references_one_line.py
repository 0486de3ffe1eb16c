"""A reference is never broken (issue 28, item 14): every list that shows one draws it on
one line in the fixed face, whole, or elided in its middle with the whole of it in the
cell's tooltip, however narrow its column is made. A reference breaks where a line may (after
a hyphen followed by a letter: "SHOP-261127-" over "K7QM4X-0001AB"), so this desk's
installation id starts with a letter."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

from paydesk.ui.fixed_text import is_fixed
from tests.ui import press
from tests.ui.bulk.test_batches import ink_rows, room
from tests.ui.layout_states.reach import counter_tab, menu, shown_window

DESK = "K7QM4X"  # this desk's installation id: a reference may break after "-" before "K"
NARROW = 110  # px: a column a person narrowed, wider than "SHOP-261127-", not the reference


@pytest.fixture
def app(start_app, loop, paths):
    paths.profiles.write_text(json.dumps({"profiles": [], "installation_id": DESK}))
    app = start_app(sandbox=True)
    return app.on_links_tab()


def whole_or_elided(view, row: int, column: int, reference: str) -> str | None:
    """What is wrong (None: nothing) with how the cell shows ``reference``: it must be on
    one line of ink in the fixed face; when its column is too narrow for it, elided (start
    and end kept) with the whole of it on hover."""
    model = view.model()
    index = model.index(row, column)
    assert model.data(index) == reference
    font = model.data(index, Qt.ItemDataRole.FontRole)
    assert font is not None and is_fixed(font), "not in the fixed face"
    metrics = QFontMetrics(font)
    painted = ink_rows(view, index)
    assert painted, f"nothing painted for {reference}"
    if painted[-1] - painted[0] >= metrics.height():
        return (
            f"{reference} drawn on more than one line in {view.accessibleName()!r}: ink "
            f"rows {painted[0]}..{painted[-1]}, a line is {metrics.height()} px"
        )
    if metrics.horizontalAdvance(reference) > room(view, column):
        tip = press_tooltip(view, index)
        if reference not in tip:
            return f"the whole {reference} is not on hover in {view.accessibleName()!r}: {tip!r}"
    return None


def press_tooltip(view, index) -> str:
    from tests.ui.layout_checks import _tooltip_at

    return _tooltip_at(view, view.visualRect(index).center())


def column_of(view, header: str) -> int:
    model = view.model()
    return next(c for c in range(model.columnCount()) if model.headerData(c, Qt.Orientation.Horizontal) == header)


def test_no_list_breaks_a_reference(app, loop):
    window = app.window
    counter = counter_tab(app, loop)
    sale = counter.sell("7")
    reference = sale.tx_ref
    wrong: list[str | None] = []
    assert f"-{DESK}-" in reference
    # the Counter's sales: the reference column, last, as narrow as the window allows
    sales = counter.tab.sales
    loop.until(lambda: sales.model().rowCount() == 1, message="the sale listed")
    column = column_of(sales, "Reference")
    press.size_column(sales, column, NARROW)  # the title takes what the others leave
    assert sales.columnWidth(column) <= NARROW
    wrong.append(whole_or_elided(sales, 0, column, reference))
    # the recent links on Payment links, the column narrowed
    press.tab(window.tabs, "Payment links")
    recent = window.links_tab.recent
    loop.until(lambda: recent.model().rowCount() >= 1, message="the recent link")
    column = column_of(recent, "Reference")
    press.size_column(recent, column, NARROW)
    wrong.append(whole_or_elided(recent, 0, column, reference))
    # Transactions
    press.tab(window.tabs, "Transactions")
    tab = window.transactions_tab
    loop.until(lambda: tab.loaded and tab.model.rowCount() == 1, message="the list")
    column = column_of(tab.table, "Reference")
    press.size_column(tab.table, column, NARROW)
    wrong.append(whole_or_elided(tab.table, 0, column, reference))
    # finance's Counter shifts: the open sale in the second list
    menu(app, loop, window.view_menu, window.counter_shifts_action)
    shifts = shown_window(loop, "counter-shifts-window")
    loop.until(lambda: shifts.shifts_model.rowCount() > 0, message="the shifts")
    index = shifts.shifts_model.index(0, 0)
    press.click(shifts.shifts.viewport(), pos=shifts.shifts.visualRect(index).center())
    listed = shifts.sales
    loop.until(lambda: listed.model().rowCount() == 1, message="the open sale listed")
    column = column_of(listed, "Reference")
    # as the window opens, the reference is the last column, past the list's right edge: a
    # sale clicked, End scrolls to it
    press.click(listed.viewport(), pos=listed.visualRect(listed.model().index(0, 0)).center())
    press.key(listed, Qt.Key.Key_End)
    assert listed.viewport().rect().contains(listed.visualRect(listed.model().index(0, column)))
    wrong.append(whole_or_elided(listed, 0, column, reference))
    # Notifications: the test notification's entry, its reference column narrowed
    menu(app, loop, window.view_menu, window.notifications_action)
    notes = shown_window(loop, "notifications-window")
    loop.until(lambda: notes.offered is not None and notes.test_button.isEnabled(), 30, message="the test offered")
    press.click(notes.test_button)
    loop.until(lambda: notes.model.rowCount() > 0, 60, message="the notification listed")
    column = column_of(notes.table, "Reference")
    tested = notes.model.index(0, column).data()
    assert tested.startswith(reference.split("-")[0] + "-") and f"-{DESK}-" in tested
    press.size_column(notes.table, column, NARROW)
    wrong.append(whole_or_elided(notes.table, 0, column, tested))
    assert not any(wrong), "\n".join(w for w in wrong if w)
