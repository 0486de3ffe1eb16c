"""What a long session leaves behind, counted: each test repeats a piece of the day's work
and counts what stays (widgets, rows held in memory). Found by the soak benchmark
(tests/benchmarks/bench_soak.py); no timing or memory amounts are asserted."""

import asyncio
import gc
from collections import Counter
from decimal import Decimal

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication

from paydesk.service.models import PaymentRequest
from paydesk.ui.transactions.model import BLOCK
from tests.ui import press


def widgets() -> Counter:
    """Every widget alive, by class, once Qt's deferred deletes have run."""
    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QCoreApplication.processEvents()
        gc.collect()
    return Counter(type(w).__name__ for w in QApplication.allWidgets())


def test_a_card_dialog_opened_and_closed_50_times_leaves_no_widget_behind(start_app, loop):
    """Regression: the operation dialogs' button box had no parent; the buttons' connections
    kept it and the dialog's Python side alive after the dialog was deleted (three widgets
    and a dialog's worth of Python objects left behind by every card operation)."""
    app = start_app(sandbox=True)
    app.wait_started()
    app.window.resize(1300, 900)
    tab = app.window.cards_tab
    press.click(app.window.tabs.tabBar(), pos=app.window.tabs.tabBar().tabRect(app.window.tabs.indexOf(tab)).center())
    loop.until(lambda: tab.loaded and tab.wallet.create_button.isEnabled(), message="the wallet")

    def open_and_close():
        press.click(tab.wallet.create_button)
        loop.until(lambda: tab.dialog is not None and tab.dialog.isVisible(), message="the dialog")
        dialog = tab.dialog
        press.type_into(dialog.amount, "25")
        press.escape(dialog.amount)  # changed their mind
        loop.until(lambda: tab.dialog is None, message="the dialog to close")

    open_and_close()  # what the first opening makes once (styles, fonts) is not a leak
    before = widgets()
    for _ in range(50):
        open_and_close()
    after = widgets()
    grown = after - before
    assert not grown, f"widgets left behind by 50 card dialogs: {dict(grown)}"


def test_a_long_day_of_new_links_keeps_the_transactions_list_bounded(start_app, loop):
    """Regression: every link made while the Transactions tab showed everything newest first
    was kept on top of the list in memory until the user changed a filter: a counter
    selling all day grew the list by a record a sale, without bound. Past a block of new
    rows the list is read again from the ledger; what the user sees is unchanged."""
    app = start_app(sandbox=True)
    app.wait_started()
    window = app.window
    tab = window.transactions_tab
    press.tab(window.tabs, "Transactions")
    loop.until(lambda: tab.loaded, message="the list")

    async def sell(n):
        made = []
        for i in range(n):
            made.append(
                await window.links.create(
                    PaymentRequest(
                        amount=Decimal(3 + i % 40),
                        currency="GBP",
                        email="walk@example.com",
                        first_name="Walk",
                        last_name="In",
                        tx_ref=f"LONG-DAY-{i:04d}",
                        title="Coffee",
                    )
                )
            )
            await asyncio.sleep(0)
        return made

    made = loop.run(sell(BLOCK + 40), timeout=240)
    loop.until(lambda: tab.model.rowCount() == len(made) and tab.model.counted, message="every link listed")
    held = tab.model._fresh  # the rows made since the list was read, held in memory
    assert len(held) <= BLOCK, f"{len(held)} new rows held on top of the list"
    loop.until(lambda: all(tab.model.record_at(r) is not None for r in range(5)), message="the first rows")
    newest = [tab.model.record_at(r).tx_ref for r in range(5)]
    assert newest == [r.tx_ref for r in reversed(made[-5:])]
