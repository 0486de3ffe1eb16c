"""The Transactions tab while the shared ledger is out of reach: Export…, the End of day's
Export CSV… and Print…, a receipt (print or PDF), Look up, Check now and Check all open are
each refused with the one sentence where they were pressed, before a file or print dialog
opens: no file is written, nothing is sent to the service."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from paydesk.ledger import LinkRecord
from paydesk.ui.transactions.model import BLOCK
from tests.ui import press
from tests.ui.outage.conftest import refused


def transactions(shop, *, paid: str | None = None):
    """The Transactions tab; with ``paid``, that link made, paid and looked up (its details
    shown, receipts offered)."""
    tab = shop.window.transactions_tab
    press.tab(shop.window.tabs, "Transactions")
    shop.loop.until(lambda: tab.loaded, message="the Transactions tab")
    if paid is not None:
        shop.pay(shop.link(paid))
        press.type_into(tab.lookup_box, paid)
        press.enter(tab.lookup_box)
        shop.loop.until(lambda: tab.details.state.text() == "PAID", timeout=30, message="the paid payment's details")
    return tab


def no_file_dialog() -> None:
    names = {w.objectName() for w in QApplication.topLevelWidgets() if w.isVisible()}
    assert not names & {"save-dialog", "print-dialog"}, names


def test_export_is_refused_before_the_save_dialog(shop):
    shop = shop()
    tab = transactions(shop)
    with shop.down():
        press.click(tab.export_button)
        shop.loop.until(lambda: refused(tab.work.report.text()), message="the sentence")
        no_file_dialog()
        shop.no_crash()
    shop.no_crash()


@pytest.mark.parametrize("which", ["export", "print"])
def test_the_end_of_days_export_and_print_are_refused(shop, which):
    shop = shop()
    tab = transactions(shop)
    press.click(tab.end_of_day)
    shop.loop.until(lambda: press.shown("end-of-day") is not None, message="End of day")
    day = press.shown("end-of-day")
    shop.loop.until(lambda: day.figures["Links made"].text() == "0", message="the figures")
    with shop.down():
        press.click(day.export if which == "export" else day.print)
        shop.loop.until(lambda: refused(day.message.text()), message="the sentence")
        no_file_dialog()
        shop.no_crash()
    # once the ledger is back, the words go (the figures are counted again)
    shop.loop.until(lambda: not refused(day.message.text()), timeout=15, message="the sentence gone")
    press.click(day.close_button)
    shop.no_crash()


@pytest.mark.parametrize("which", ["receipt-print", "receipt-pdf"])
def test_a_receipt_is_refused_while_the_ledger_is_down(shop, which):
    """What the ledger holds may have changed (a refund) since it went: no receipt from it."""
    shop = shop()
    tab = transactions(shop, paid="SHOP-RCPT-1")
    with shop.down():
        press.click(tab.details.buttons[which])
        shop.loop.until(lambda: refused(tab.details.message.text()), message="the sentence")
        no_file_dialog()
        shop.no_crash()
    shop.no_crash()


@pytest.mark.parametrize("which", ["look up", "check now", "check all open"])
def test_lookups_and_checks_are_refused_and_nothing_is_asked(shop, which):
    shop = shop()
    record = shop.link("SHOP-LOOK-1")
    tab = transactions(shop)
    press.type_into(tab.lookup_box, record.tx_ref)
    press.enter(tab.lookup_box)
    shop.loop.until(lambda: tab.details.record is not None, timeout=30, message="its details")
    with shop.down():
        # what the desk asked until it knew the ledger was gone (a check falling due meanwhile)
        # is not the press's: from here on, nothing may be asked
        calls = shop.calls()
        if which == "look up":
            press.type_into(tab.lookup_box, record.tx_ref)
            press.enter(tab.lookup_box)
            shop.loop.until(lambda: refused(tab.lookup_message.text()), message="the sentence")
        elif which == "check now":
            press.click(tab.details.buttons["check"])
            shop.loop.until(lambda: refused(tab.details.message.text()), message="the sentence")
        else:
            press.click(tab.check_all)
            shop.loop.until(lambda: refused(tab.work.report.text()), message="the sentence")
        shop.settle()
        shop.no_crash()
    assert shop.calls() == calls
    shop.no_crash()


def test_choosing_a_listed_payment_shows_it_while_the_ledger_is_down(shop):
    """The list stays on screen while the ledger is out of reach: a row clicked shows its
    details as listed, never the crash dialog."""
    shop = shop()
    made = [shop.link(ref) for ref in ("SHOP-ROW-1", "SHOP-ROW-2")]
    tab = transactions(shop)
    table, model = tab.table, tab.model
    shop.loop.until(lambda: all(model.row_of(r.key) is not None for r in made), message="both links listed")
    with shop.down():
        for record in made:
            rect = table.visualRect(model.index(model.row_of(record.key), 0))
            press.click(table.viewport(), pos=rect.center())
            shop.loop.until(
                lambda record=record: tab.details.record is not None and tab.details.record.key == record.key,
                message="its details",
            )
            shop.settle()
            shop.no_crash()
            assert tab.details.values["tx_ref"].text() == record.tx_ref
    shop.no_crash()


def test_scrolling_the_list_while_the_ledger_is_down_never_crashes(shop):
    """A list longer than what was read: the rows scrolled to while the ledger is out of
    reach (the end, and the middle, far from any block read) are read once it answers, and
    meanwhile nothing reaches the crash hook."""
    shop = shop()
    now, n = datetime.now(UTC), BLOCK * 5
    shop.loop.run(
        shop.session.ledger.import_records(
            [
                LinkRecord(
                    id=0,
                    profile_id=shop.profile.id,
                    mode="test",
                    tx_ref=f"SHOP-OLD-{i:05d}",
                    amount=Decimal(25),
                    currency="GBP",
                    email=f"ada{i}@example.com",
                    first_name="Ada",
                    last_name="Lovelace",
                    state="success",
                    created_at=now - timedelta(hours=i + 1),
                    updated_at=now - timedelta(hours=i + 1),
                    reference=f"PDK-{i:08x}",
                )
                for i in range(n)
            ]
        )
    )
    tab = transactions(shop)
    table, model = tab.table, tab.model
    shop.loop.until(lambda: model.rowCount() >= n and model.counted, message="the list")
    last = model.rowCount() - 1
    press.click(table.viewport(), pos=table.visualRect(model.index(0, 0)).center())

    def to_the_middle() -> int:
        """Ctrl+End, then Page Up until the current row is in the middle block."""
        press.key(table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        while table.currentIndex().row() > n // 2:
            press.key(table, Qt.Key.Key_PageUp)
        return table.currentIndex().row()

    with shop.down():
        middle = to_the_middle()
        shop.settle(1.0)
        shop.no_crash()
        assert model.record_at(last) is None and model.record_at(middle) is None  # not read
    press.key(table, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    middle = to_the_middle()
    shop.loop.until(
        lambda: model.record_at(last) is not None and model.record_at(middle) is not None,
        timeout=15,
        message="the rows scrolled to read once the ledger answers",
    )
    assert model.record_at(last).tx_ref == f"SHOP-OLD-{n - 1:05d}"
    assert model.record_at(middle).tx_ref == f"SHOP-OLD-{middle:05d}"
    shop.no_crash()
