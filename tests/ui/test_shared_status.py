"""The status bar of a desk on a shared ledger (a real PostgreSQL): which desk checks
payments, and while the server is down since when the ledger is out of reach (the
Transactions list kept, marked as of then)."""

from __future__ import annotations

import re

from paydesk.desk.build import build_desk
from paydesk.ui.status import StatusLine
from paydesk.ui.transactions.tab import TransactionsTab


def test_the_status_bar_says_who_checks_payments_and_when_the_ledger_went(paths, keys, loop, qtbot, pg_url, pg_server):
    desk = build_desk(paths, keys, ledger_url=pg_url)
    assert desk.live is not None
    loop.run(desk.open())
    loop.run(desk.naming.rename("Counter 1"))  # as its person names it
    status = StatusLine(desk.session)
    qtbot.addWidget(status)
    shared = status.shared
    tab = TransactionsTab(desk.session, desk.transactions)
    qtbot.addWidget(tab)
    try:
        desk.start_background()
        loop.until(lambda: shared.text() == "Payments checked by Counter 1", message="the desk checking payments named")
        assert shared.isVisibleTo(status)
        assert shared.accessibleName() == "Shared ledger: Payments checked by Counter 1"
        with pg_server.down():
            loop.until(
                lambda: shared.text().startswith("Shared ledger unreachable"), message="the ledger out of reach said"
            )
            assert re.fullmatch(r"Shared ledger unreachable since \d\d:\d\d, retrying", shared.text())
            assert re.search(r", as of \d\d:\d\d$", tab.count.text())  # the list kept, dated
        loop.until(
            lambda: shared.text() == "Payments checked by Counter 1", timeout=30, message="back: who checks payments"
        )
        assert "as of" not in tab.count.text()
    finally:
        loop.run(desk.close())
