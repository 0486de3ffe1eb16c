"""Defects a first real session found on the Transactions tab (issue 15, section 3), each
reproduced the way the user met it: the record count, the export's state columns, the end
of day's export message, the offline lookup's words, and where a typo is blamed.
Widgets are pressed through tests/ui/press.py only."""

import csv
from decimal import Decimal
from pathlib import Path

from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QLineEdit

from paydesk.desk.lookup import read
from paydesk.ledger import LinkQuery, SqliteLedger
from paydesk.service.models import PaymentRequest, Transaction, TransactionState
from paydesk.ui.transactions.model import STATE
from tests.ui import press


def dialog(name):
    return next((w for w in QApplication.topLevelWidgets() if w.objectName() == name and w.isVisible()), None)


def save_as(shop, path: Path) -> None:
    """The standard save dialog, answered as a user does: the whole path typed, then Enter."""
    shop.loop.until(lambda: dialog("save-dialog") is not None, message="the save dialog")
    box: QFileDialog = dialog("save-dialog")
    name = box.findChild(QLineEdit, "fileNameEdit")
    press.type_into(name, str(path))
    press.enter(name)


def count_text(shop) -> str:
    return shop.tab.count.text()


def test_the_count_follows_new_records_state_changes_and_another_window(strict_shop):
    """Regression: "0 records" beside 8 rows until a filter changed."""
    shop = strict_shop
    tab = shop.tab
    shop.loop.until(lambda: count_text(shop) == "0 records", message="the empty list's count")
    made = [shop.create(f"SHOP-CNT-{i}") for i in range(3)]  # made at the counter, this window
    shop.loop.until(lambda: tab.model.rowCount() == 3, message="the three rows on top")
    shop.loop.until(lambda: count_text(shop) == "3 records", message="the count of what is listed")

    # a list filtered by state: a record that leaves the state leaves the list and the count
    press.choose(tab.filters.state, "Waiting for payment")
    shop.loop.until(
        lambda: tab.model.query.states == frozenset({"pending"}) and tab.loaded and count_text(shop) == "3 records",
        message="the filtered list",
    )
    shop.control(f"pay/{made[0].reference}", {"outcome": "success"})
    shop.loop.run(shop.window.links.check(made[0]))  # what the scheduler does when it checks
    shop.loop.until(
        lambda: tab.model.rowCount() == 2 and count_text(shop) == "2 records",
        message="the paid one gone from the waiting ones, and the count with it",
    )
    press.choose(tab.filters.state, "All states")
    shop.loop.until(
        lambda: tab.model.query.states == frozenset() and tab.model.rowCount() == 3 and count_text(shop) == "3 records",
        message="every state again",
    )

    # another PayDesk window on the same ledger file makes a link: this one lists and counts it
    other = SqliteLedger(shop.session.ledger.path)
    try:
        shop.loop.run(
            other.begin_link(
                shop.profile.id,
                "test",
                PaymentRequest(
                    amount=Decimal("7"),
                    currency="GBP",
                    email="o@example.com",
                    first_name="Other",
                    last_name="Window",
                    tx_ref="SHOP-OTHER-1",
                ),
            )
        )
        shop.loop.until(
            lambda: tab.model.rowCount() == 4 and count_text(shop) == "4 records",
            timeout=20,
            message="the other window's link listed and counted",
        )
        assert tab.model.row_of((shop.profile.id, "SHOP-OTHER-1")) is not None
        # ...and learns a state (a refund of the paid one, which no check here would read
        # again for a while): this window repaints the row in place
        shop.loop.run(
            other.record_lookup(
                shop.profile.id,
                "test",
                Transaction(tx_ref="SHOP-CNT-0", status=TransactionState.REFUNDED, status_raw="refunded"),
            )
        )
        row = tab.model.row_of((shop.profile.id, "SHOP-CNT-0"))
        shop.loop.until(
            lambda: tab.model.text(tab.model.record_at(row), STATE) == "REFUNDED",
            timeout=20,
            message="the other window's state shown here",
        )
        assert count_text(shop) == "4 records"
    finally:
        shop.loop.run(other.close())


def test_the_exports_state_is_paydesks_word_and_service_state_the_services(strict_shop, tmp_path):
    """Regression: ``state`` held the service's word and ``service_state`` was always empty."""
    shop = strict_shop
    paid = shop.create("SHOP-STATE-1")
    shop.control(f"pay/{paid.reference}", {"outcome": "success"})
    shop.lookup("SHOP-STATE-1")
    shop.create("SHOP-STATE-2")
    shop.lookup("SHOP-STATE-2")
    target = tmp_path / "states.csv"
    shop.loop.run(shop.tab.controller.export(LinkQuery(shop.profile.id, "test"), target))
    with open(target, encoding="utf-8-sig", newline="") as f:
        rows = {r["tx_ref"]: r for r in csv.DictReader(f)}
    assert (rows["SHOP-STATE-1"]["state"], rows["SHOP-STATE-1"]["service_state"]) == ("PAID", "success")
    assert (rows["SHOP-STATE-2"]["state"], rows["SHOP-STATE-2"]["service_state"]) == ("WAITING FOR PAYMENT", "pending")


def test_end_of_days_export_names_the_file_it_wrote(strict_shop, tmp_path):
    """Regression: "Exported 8 records to eod.csv.rows", a file that does not exist."""
    shop = strict_shop
    for i in range(3):
        shop.create(f"SHOP-EODX-{i}")
    press.click(shop.tab.end_of_day)
    shop.loop.until(lambda: dialog("end-of-day") is not None, message="the end-of-day window")
    window = dialog("end-of-day")
    shop.loop.until(lambda: window.figures["Links made"].text() == "3", message="the figures")
    press.click(window.export)
    target = tmp_path / "eod.csv"
    save_as(shop, target)
    status = shop.window.last_call
    shop.loop.until(lambda: "Exported" in status.text(), message="what the export says")
    said = f"Exported the day's figures and 3 records to {target}"
    assert status.text() == said  # the file that was written, and no other
    shop.loop.until(
        lambda: window.findChild(QLabel, "end-of-day-message").text() == said, message="the same, in the window"
    )
    assert target.exists() and sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["eod.csv"]
    press.click(window.close_button)


def test_an_offline_lookup_says_unreachable_once(strict_shop):
    """Regression: "The service cannot be reached (The service cannot be reached)."."""
    shop = strict_shop
    shop.create("SHOP-OFFL-1")
    shop.sandbox.stop()  # the service goes away (the machine is offline)
    press.type_into(shop.tab.lookup_box, "SHOP-OFFL-1")
    press.enter(shop.tab.lookup_box)
    message = shop.tab.details.message
    shop.loop.until(lambda: message.isVisible() and message.text(), timeout=30, message="what the lookup says")
    assert message.text().startswith("The service cannot be reached")
    assert message.text().count("cannot be reached") == 1, message.text()
    assert "Last known: WAITING FOR PAYMENT" in message.text()


def test_a_typo_is_blamed_on_a_character_only_when_one_change_explains_it(strict_shop):
    """Regression: "SBX-261123-ZZZZZZ-0001YH" was said to have character 3 (in the fixed
    prefix) mistyped; only changing the prefix made its check characters agree."""
    ours = frozenset({"SBX"})
    problem = read("SBX-261123-ZZZZZZ-0001YH", ours).problem
    assert problem == "This reference does not check out (a typing mistake): check each character"
    assert read("SBX-261123-ZZZZZZ-0001YH".lower(), ours).problem == problem
    # said where it is typed, before anything is sent
    shop = strict_shop
    before = len(shop.calls())
    press.type_into(shop.tab.lookup_box, "SHOP-261123-ZZZZZZ-0001YH")
    shop.loop.until(lambda: shop.tab.lookup_message.text() != "", message="the message")
    assert "Character" not in shop.tab.lookup_message.text()
    assert "does not check out" in shop.tab.lookup_message.text()
    assert len(shop.calls()) == before
