"""Who did it, as finance sees it in the window: the Transactions details say who made a link
("By: Ana"; no such line for one made before staff were set up, or looked up), the export's
``by`` column says the same (the CSV read back), and View → Activity… lists the export with
the person who made it. The person is signed in through the desk's own API
(``session.staff.signed_in``): the sign-in screen is another change's."""

import csv

import pytest
from PySide6.QtCore import Qt

from paydesk.desk.staff import Person, Role
from paydesk.ui.activity.window import NOBODY
from tests.ui import press
from tests.ui.layout_states.reach import menu
from tests.ui.test_links import choose_row
from tests.ui.transactions.test_export import answer_save_dialog, export

pytestmark = pytest.mark.dialects("strict")

ANA = Person("p-ana", "Ana", Role.FINANCE)


def details_of(shop, record):
    model, table = shop.tab.model, shop.tab.table
    shop.loop.until(lambda: model.row_of(record.key) is not None, message="the row")
    choose_row(table, model.row_of(record.key))
    shop.loop.until(
        lambda: shop.tab.details.record is not None and shop.tab.details.record.key == record.key,
        message="its details",
    )
    return shop.tab.details


def test_the_details_and_the_export_say_who_made_each_link(shop, tmp_path):
    before = shop.create("SHOP-WHO-0")  # no staff set up yet: made by nobody in particular
    shop.session.staff.signed_in(ANA)
    made = shop.create("SHOP-WHO-1")
    shop.refresh()
    details = details_of(shop, made)
    by = details.values["by"]
    assert by.isVisible() and details.captions["by"].isVisible()
    assert by.text() == "Ana" and by.accessibleName() == "By: Ana"
    details = details_of(shop, before)
    assert not details.values["by"].isVisible() and not details.captions["by"].isVisible()

    target = tmp_path / "who.csv"
    task = export(shop)
    answer_save_dialog(shop, target)
    shop.loop.until(task.done, timeout=60, message="the export")
    with open(target, encoding="utf-8-sig", newline="") as f:
        rows = {row["tx_ref"]: row for row in csv.DictReader(f)}
    assert rows["SHOP-WHO-1"]["by"] == "Ana" and rows["SHOP-WHO-0"]["by"] == ""

    # View → Activity…: the export, by Ana; the keys saved when the shop was set up, by nobody
    window = shop.window
    menu(shop, shop.loop, window.view_menu, window.activity.action)
    shop.loop.until(lambda: window.activity.shown() is not None, message="the Activity window")
    activity = window.activity.shown()
    model = activity.model
    shop.loop.until(lambda: model.rowCount() >= 2, message="the activity read")
    assert activity.windowTitle() == "Activity — PayDesk"
    lines = [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]
    when, who, what, where, detail = lines[0]
    assert (who, what, detail) == ("Ana", "Exported", "Transactions: 2 records to who.csv")
    assert where == "Corner Shop · TEST"
    assert lines[-1][1:3] == [NOBODY, "Keys saved"]
    press.key(activity.table, Qt.Key.Key_Escape)  # closed as a dialog closes
    shop.loop.until(lambda: not activity.isVisible(), message="the Activity window closed")
