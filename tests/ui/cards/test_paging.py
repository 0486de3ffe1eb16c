"""The wallet and the audit log read their rows from the ledger a page at a time
(``ui/paging.py``): the first page is listed, and going to the end of the list reads the next
one, until every row is listed, newest first, none twice."""

from PySide6.QtCore import Qt

from paydesk.ledger.cards import AuditDraft
from paydesk.ui.cards import audit as audit_view
from paydesk.ui.cards import wallet as wallet_view
from tests.ui import press
from tests.ui.cards.test_wallet import Desk

CARDS = wallet_view.PAGE + 30
LINES = audit_view.PAGE + 40


def to_the_end(loop, table, model, total, what):
    """Click the list and press Ctrl+End until every row is listed, as a user scrolls."""
    first = model.index(0, 0)
    press.click(table.viewport(), pos=table.visualRect(first).center())
    for _ in range(total // 50 + 5):
        if model.rowCount() == total:
            break
        rows = model.rowCount()
        press.key(table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        loop.until(lambda r=rows: model.rowCount() > r or model.rowCount() == total, message=f"the next page of {what}")
    assert model.rowCount() == total


def test_the_wallet_lists_every_card_page_by_page(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    for n in range(CARDS):  # made at the service, then read by Refresh as a user does
        desk.api("POST", "api/virtual_card/create", json={"amount": str(10 + n), "currency": "GBP"})
    wallet = desk.tab.wallet
    press.click(wallet.refresh_button)
    loop.until(lambda: wallet.count.text() == f"{CARDS} cards", timeout=30, message="the count")
    loop.until(lambda: wallet.model.rowCount() == wallet_view.PAGE, message="the first page")
    to_the_end(loop, wallet.table, wallet.model, CARDS, "cards")
    hashes = [r.card_hash for r in wallet.model.records]
    assert len(set(hashes)) == CARDS
    created = [(r.created_at, r.card_hash) for r in wallet.model.records]
    assert created == sorted(created, reverse=True)  # newest first, across the pages
    assert wallet.count.text() == f"{CARDS} cards"


def test_the_audit_log_lists_every_line_page_by_page(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    ledger, profile = desk.session.card_ledger, desk.profile

    async def write():  # what the desk's operations would have written over a long day
        for n in range(LINES):
            await ledger.append_audit(
                AuditDraft(
                    user="clerk",
                    profile_id=profile.id,
                    profile_name=profile.name,
                    mode="test",
                    action="fund",
                    result="done",
                    masked="4111 11** **** 1111",
                    detail=f"line {n}",
                )
            )

    loop.run(write())
    audit = desk.tab.audit
    press.tab(desk.tab.sections, "Audit log")
    press.type_into(audit.search, "line")  # the search reads the log again
    loop.until(lambda: audit.model.rowCount() == audit_view.PAGE, message="the first page")
    to_the_end(loop, audit.table, audit.model, LINES, "audit lines")
    details = [audit.model.data(audit.model.index(r, 8)) for r in range(LINES)]
    assert details == [f"line {n}" for n in reversed(range(LINES))]
