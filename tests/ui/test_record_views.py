"""Every list of records is drawn the one way: its model's columns declared once on
``HeadedModel`` (ui/table.py), not a ``data()`` of its own; its table made by
``widgets.record_table`` (whole rows selected, nothing edited in place, a name a screen
reader says). Checked over the package's models, and over the tables of the running window,
its four tabs, its tool windows and End of day, each reached as a person reaches it."""

from __future__ import annotations

import importlib
import pkgutil

from PySide6.QtCore import QAbstractItemModel, QAbstractTableModel
from PySide6.QtWidgets import QAbstractItemView, QApplication, QTableView, QWidget

import paydesk.ui
from paydesk.ui.table import HeadedModel
from paydesk.ui.tabs import TABS
from tests.ui import press
from tests.ui.layout_states.reach import menu, shown_window

# Models that answer ``data()`` themselves, each for a reason declared columns cannot hold.
OWN_DATA = {
    # the Bulk links dry run's grid is edited in place (EditRole, setData) and colours a
    # cell by its problem, not by its column
    "paydesk.ui.bulk.grid.RowsModel",
}
# Tables that are not lists of records.
NOT_RECORDS = {
    # the same grid: a cell is fixed by typing over it (docs/BULK.md)
    "bulk-grid",
}
# the tables a person meets in the window and its tool windows (the walk below finds them)
TABLES = {
    "recent-links",
    "ledger-table",
    "card-list",
    "card-transactions",
    "audit-log",
    "counter-sales",
    "notifications-table",
    "counter-shifts",
    "counter-open-sales",
    "batches-table",
    "batch-rows",
    "bulk-preview",
    "bulk-grid",
    "end-of-day-totals",
}


def _classes() -> list[type]:
    """Every class defined in a module of paydesk.ui."""
    found = []
    for info in pkgutil.walk_packages(paydesk.ui.__path__, "paydesk.ui."):
        module = importlib.import_module(info.name)
        found += [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__]
    return found


def own_data(classes: list[type]) -> list[str]:
    """The item models among ``classes`` with a ``data()`` of their own (HeadedModel's aside)."""
    return sorted(
        f"{c.__module__}.{c.__qualname__}"
        for c in classes
        if issubclass(c, QAbstractItemModel) and c is not HeadedModel and "data" in vars(c)
    )


def test_no_model_answers_data_itself(qapp):
    assert own_data(_classes()) == sorted(OWN_DATA)


def test_the_check_finds_a_model_with_its_own_data(qapp):
    """The check itself can fail: a model with a chain of its own is reported, one of
    declared columns is not."""

    class Chained(QAbstractTableModel):
        def data(self, index, role=0):
            return None

    class Declared(HeadedModel):
        pass

    assert own_data([Chained, Declared, HeadedModel]) == [f"{__name__}.{Chained.__qualname__}"]


def unlike_records(tables: list[QTableView]) -> list[str]:
    """The tables that are editable, select cells, or have no name to be said by."""
    found = []
    for table in tables:
        name = table.objectName() or "?"
        if table.editTriggers() != QAbstractItemView.EditTrigger.NoEditTriggers:
            found.append(f"{name}: editable")
        if table.selectionBehavior() != QAbstractItemView.SelectionBehavior.SelectRows:
            found.append(f"{name}: selects cells")
        if not table.accessibleName().strip():
            found.append(f"{name}: no accessible name")
    return found


def test_the_table_check_finds_an_editable_unnamed_table(qtbot):
    table = QTableView()
    qtbot.addWidget(table)
    table.setObjectName("made-by-hand")
    assert unlike_records([table]) == [
        "made-by-hand: editable",
        "made-by-hand: selects cells",
        "made-by-hand: no accessible name",
    ]


def test_every_table_in_the_window_is_a_table_of_records(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    window = app.window
    for title, _ in TABS:  # each tab, clicked
        press.tab(window.tabs, title)
    loop.until(lambda: window.transactions_tab.loaded, message="the transactions tab")
    menu(app, loop, window.view_menu, window.notifications_action)
    shown_window(loop, "notifications-window")
    menu(app, loop, window.view_menu, window.counter_shifts_action)
    shown_window(loop, "counter-shifts-window")
    menu(app, loop, window.view_menu, window.bulk.batches_action)
    shown_window(loop, "batches-window")
    menu(app, loop, window.bulk.menu, window.bulk.bulk_action)  # Links → Bulk links…
    shown_window(loop, "bulk-window")
    press.tab(window.tabs, "Transactions")
    press.click(window.transactions_tab.end_of_day)
    day = shown_window(loop, "end-of-day")

    roots: list[QWidget] = [window, *(w for w in QApplication.topLevelWidgets() if w.isVisible() and w is not window)]
    tables = {t for root in roots for t in root.findChildren(QTableView)}
    names = {t.objectName() for t in tables}
    assert TABLES <= names, f"not found: {sorted(TABLES - names)}"
    records = [t for t in tables if t.objectName() not in NOT_RECORDS]
    assert unlike_records(sorted(records, key=QTableView.objectName)) == []
    # what is let off is what it says: the dry run's grid is edited in place
    grid = window.bulk.bulk.window.check_step.grid
    assert grid.editTriggers() != QAbstractItemView.EditTrigger.NoEditTriggers
    press.click(day.close_button)
    loop.until(lambda: press.closed(day), message="End of day closed")
    app.close()
