"""The ledger browser: a table over the ledger, a page at a time; search as you type, filters,
sorts, live states that keep the selection and the scroll position, and the actions on a
row by mouse and keyboard."""

import asyncio
import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMenu

from paydesk.ledger import LinkRecord
from paydesk.ui.transactions.model import BLOCK, COLUMNS
from tests.ui import press
from tests.ui.test_links import choose_row

NOW = datetime.now(UTC)


def seed(shop, n=1200, seed=5):
    rng = random.Random(seed)
    names = [("Ada", "Lovelace"), ("Grace", "Hopper"), ("Alan", "Turing"), ("Edsger", "Dijkstra")]
    records = []
    for i in range(n):
        first, last = rng.choice(names)
        when = NOW - timedelta(hours=i * 3 + 1)
        records.append(
            LinkRecord(
                id=0,
                profile_id=shop.profile.id,
                mode="test",
                tx_ref=f"SHOP-OLD-{i:05d}",
                amount=Decimal(rng.choice([5, 25, 300, 1200])),
                currency=rng.choice(["GBP", "USD"]),
                email=f"{first.lower()}{i}@example.com",
                first_name=first,
                last_name=last,
                state=rng.choice(["success", "success", "failed", "pending", "cancelled"]),
                created_at=when,
                updated_at=when,
                reference=f"PDK-{i:08x}",
            )
        )
    shop.loop.run(shop.session.ledger.import_records(records))
    shop.refresh()
    shop.loop.until(lambda: shop.tab.model.rowCount() == n, message="the list")
    return records


def sort_by(shop, column, key, *, descending):
    """Click the column's header (once, or twice to turn the order) until the list is
    sorted so."""
    model, header = shop.tab.model, shop.tab.table.horizontalHeader()
    for _ in range(2):
        x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
        press.click(header.viewport(), pos=QPoint(x, header.height() // 2))
        down = header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
        assert header.sortIndicatorSection() == column
        shop.loop.until(
            lambda down=down: model.query.sort == key and model.query.descending == down and model.counted,
            message=f"sorted by {key}",
        )
        if down == descending:
            return
        shop.loop.run(asyncio.sleep(QApplication.doubleClickInterval() / 1000))
    raise AssertionError(f"could not sort by {key} {'down' if descending else 'up'}")


def column_texts(model, column, rows):
    return [model.index(r, column).data() for r in rows]


def wait_rows(shop, rows):
    model = shop.tab.model
    for r in rows:
        model.index(r, 0).data()  # asks for the row's block
    shop.loop.until(lambda: all(model.record_at(r) is not None for r in rows), message="the rows' blocks")


def test_pages_are_fetched_as_they_are_looked_at(shop):
    seed(shop)
    model = shop.tab.model
    assert model.rowCount() == 1200 and len(model._blocks) == 1  # only the first block
    assert shop.tab.count.text() == "1,200 records"
    wait_rows(shop, [1199])  # jump to the end: the last block, from the end
    assert model.record_at(1199).tx_ref == "SHOP-OLD-01199"
    wait_rows(shop, [700])  # the middle: after an anchor
    assert model.record_at(700).tx_ref == "SHOP-OLD-00700"
    assert len(model._blocks) == 3  # never everything
    shop.tab.table.scrollToBottom()
    shop.loop.until(lambda: model.index(1199, 0).data() == "SHOP-OLD-01199", message="painted")


def test_search_as_you_type_and_filters(shop, qtbot):
    records = seed(shop)
    filters, model = shop.tab.filters, shop.tab.model
    press.type_into(filters.search, "hopper")  # each keystroke supersedes the last query
    expected = sorted((r for r in records if r.last_name == "Hopper"), key=lambda r: r.created_at, reverse=True)
    shop.loop.until(lambda: model.query.text == "hopper" and model.rowCount() == len(expected), message="the search")
    wait_rows(shop, range(min(50, len(expected))))
    assert column_texts(model, 0, range(50)) == [r.tx_ref for r in expected[:50]]
    press.clear(filters.search)
    press.choose(filters.state, "Payment failed")  # as the list says it
    press.choose(filters.currency, filters.currency.itemText(filters.currency.findData("USD")))
    press.choose(filters.range, "Last 7 days")
    since = datetime.combine(datetime.now().date() - timedelta(days=6), datetime.min.time()).astimezone()
    expected = [r for r in records if r.state == "failed" and r.currency == "USD" and r.created_at >= since]
    shop.loop.until(
        lambda: (
            model.query.states == frozenset({"failed"})
            and model.query.created_from is not None
            and model.rowCount() == len(expected)
        ),
        message="the filters",
    )
    wait_rows(shop, range(len(expected)))
    assert set(column_texts(model, 5, range(len(expected)))) == {"PAYMENT FAILED"}
    assert {model.record_at(r).tx_ref for r in range(len(expected))} == {r.tx_ref for r in expected}


def test_sorting_by_each_column(shop):
    records = seed(shop, n=450)
    model = shop.tab.model
    amount = [c for c, (_, key) in enumerate(COLUMNS) if key == "amount"][0]
    sort_by(shop, amount, "amount", descending=False)
    wait_rows(shop, range(450))
    amounts = [model.record_at(r).amount for r in range(450)]
    assert amounts == sorted(r.amount for r in records)
    for column, (_, key) in enumerate(COLUMNS):
        sort_by(shop, column, key, descending=True)
        assert model.rowCount() == 450


def test_states_update_live_keeping_selection_and_scroll(shop):
    seed(shop, n=600)
    made = shop.create("SHOP-LIVE-CHANGE")
    model, table = shop.tab.model, shop.tab.table
    shop.loop.until(lambda: model.row_of(made.key) == 0, message="the new link on top")
    wait_rows(shop, [399])
    choose_row(table, 399)
    scrolled = table.verticalScrollBar().value()
    chosen = shop.tab.selected().tx_ref
    shop.loop.until(
        lambda: shop.tab.details.record and shop.tab.details.record.tx_ref == chosen,
        message="the details of the selected row",
    )
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    shop.window.scheduler.check_now(made)
    shop.loop.until(lambda: model.index(0, 5).data() == "PAID", timeout=20, message="PAID in the table")
    assert shop.tab.selected().tx_ref == chosen
    assert table.verticalScrollBar().value() == scrolled


def test_row_actions_by_menu_and_keyboard(shop, qtbot):
    made = shop.create("SHOP-ACT-1")
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    model, table = shop.tab.model, shop.tab.table
    shop.loop.until(lambda: model.row_of(made.key) is not None, message="the row")
    choose_row(table, model.row_of(made.key))
    shop.loop.until(lambda: shop.tab.details.record is not None, message="the details")
    assert shop.tab.details.values["tx_ref"].text() == "SHOP-ACT-1"
    press.key(table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "SHOP-ACT-1"
    press.key(table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert QGuiApplication.clipboard().text() == made.checkout_url
    assert shop.tab.selected() is not None, table.selectionModel().selectedRows()
    press.context_menu(table.viewport(), table.visualRect(model.index(model.row_of(made.key), 0)).center())
    shop.loop.until(lambda: press.shown("ledger-menu") is not None, message="the row's menu")
    menu = press.shown("ledger-menu")
    assert [a.text() for a in menu.actions()] == [
        "Copy reference",
        "Copy link",
        "Show QR",
        "Check now",
        "Print receipt…",
    ]
    press.escape(menu)
    shop.window.activateWindow()  # the popup had the keyboard; the window has it back
    shop.loop.until(shop.window.isActiveWindow, message="the window active again")
    # the table kept the keyboard (the right click gave it; press.key checks)
    before = shop.session.health.get(shop.profile.id, "test").last_ok
    press.key(table, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)  # check now
    shop.loop.until(
        lambda: shop.session.health.get(shop.profile.id, "test").last_ok != before, message="a call to the service"
    )
    shop.loop.until(lambda: shop.tab.details.values["checked"].text() != "never", message="checked now")
    press.key(
        table, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )  # show QR, back on the links tab
    assert shop.window.tabs.currentWidget() is shop.window.links_tab
    assert shop.window.links_tab.panel.record.tx_ref == "SHOP-ACT-1"


def test_lookup_from_anywhere(shop, qtbot):
    press.tab(shop.window.tabs, "Payment links")
    shop.window.activateWindow()
    press.key(shop.window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert shop.window.tabs.currentWidget() is shop.tab
    assert QApplication.focusWidget() is shop.tab.lookup_box
    press.tab(shop.window.tabs, "Payment links")
    press.key(shop.window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert shop.window.tabs.currentWidget() is shop.tab
    assert QApplication.focusWidget() is shop.tab.lookup_box
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QMenu) and w.isVisible()]


def test_the_list_never_holds_everything(shop):
    seed(shop, n=BLOCK * 45)
    model = shop.tab.model
    for row in range(0, BLOCK * 45, BLOCK):  # scrolled through, top to bottom
        wait_rows(shop, [row])
        assert model.record_at(row).tx_ref == f"SHOP-OLD-{row:05d}"
    assert len(model._blocks) <= 40


def test_a_superseded_search_never_shows_its_rows(shop, qtbot):
    """Typed quickly, each keystroke's query is cancelled by the next: the table ends with
    the last term's rows, whichever query finished last in the ledger."""
    records = seed(shop, n=300)
    model = shop.tab.model
    loaded = []
    model.queryLoaded.connect(lambda: loaded.append(model.query.text))
    press.type_into(shop.tab.filters.search, "hopper")
    expected = [r for r in records if r.last_name == "Hopper"]
    shop.loop.until(
        lambda: model.query.text == "hopper" and model.rowCount() == len(expected), message="the last term's rows"
    )
    shop.loop.run(asyncio.sleep(0.3))  # anything superseded would have landed by now
    assert model.query.text == "hopper" and model.rowCount() == len(expected)
    assert loaded[-1] == "hopper" and len(loaded) < len("hopper")  # earlier ones cancelled
