"""The service's answer to a sale's create is lost: the staff is told PayDesk keeps trying
with the same reference, the customer sees only "One moment…" (never the error), and the
code appears once the sale is settled: one payment at the service."""

from __future__ import annotations

import sqlite3

import pytest

from tests.ui import press


def _payments(app, tx_ref: str) -> int:
    with sqlite3.connect(app.session.sandbox.data_dir / "sandbox.sqlite3") as db:
        return db.execute("SELECT COUNT(*) FROM transactions WHERE tx_ref = ?", (tx_ref,)).fetchone()[0]


@pytest.mark.slow  # about 30 s: ./dev test starts it first
def test_a_lost_answer_keeps_the_sale_and_shows_its_code_once_settled(counter, loop):
    tab, app = counter.tab, counter.app
    app.faults(drop_after_commit_rate=1.0)
    sale = counter.sell("5")
    assert sale is not None and sale.record is not None and sale.record.state == "creating"
    assert "keeps trying with the same reference" in tab.message.text()
    assert tab.mirror.state.text() == "CREATING…"
    shown = counter.texts_on_display()
    assert shown == ["Sandbox", "GBP 5.00", "One moment…"]
    assert not counter.view.qr.isVisible()
    press.type_into(tab.amount, "6")
    press.enter(tab.amount)  # the sale holds the counter: nothing more is made
    assert tab.selling is None
    app.faults()  # the service answers again
    loop.until(lambda: counter.view.qr.isVisible(), timeout=40, message="the code, once settled")
    settled = tab.mirror.sale
    assert settled.tx_ref == sale.tx_ref and settled.record.state == "pending"
    assert counter.texts_on_display() == ["Sandbox", "GBP 5.00", "WAITING FOR PAYMENT"]
    assert _payments(app, sale.tx_ref) == 1
