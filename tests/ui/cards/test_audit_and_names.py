"""The audit log in the tab (newest first, filtered, exported to CSV), and every control of
the tab and its dialogs named for the accessibility bus."""

import csv

from paydesk.ui.cards.audit import COLUMNS
from tests.ui.cards.test_wallet import Desk
from tests.ui.test_accessibility import _unnamed_focusable


def test_the_audit_log_filters_and_exports(start_app, loop, tmp_path):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    _, card = desk.create("40", "GBP")
    dialog, _ = desk.amount("fund", 5)
    desk.close(dialog)
    desk.press(desk.tab.page.buttons["withdraw"])
    dialog = desk.dialog("withdraw-dialog")
    dialog.amount.setText("900")
    loop.run(dialog.submit())  # over the known balance: refused here, nothing sent or audited
    assert "At most GBP 45.00" in dialog.amount_message.text()
    dialog.amount.setText("2")
    dialog.action.click()
    loop.until(lambda: "New balance" in dialog.outcome.text(), message="the withdrawal")
    desk.close(dialog)
    audit = desk.tab.audit
    desk.tab.sections.setCurrentWidget(audit)
    loop.until(lambda: audit.model.rowCount() >= 6, message="the audit lines")
    first = [audit.model.data(audit.model.index(0, c)) for c in range(len(COLUMNS))]
    assert first[5] == "withdraw" and first[7] == "done" and first[6] == "GBP 2.00"
    assert first[4] == card.masked and first[3] == "test" and first[1]

    audit.action.setCurrentIndex(audit.action.findData("fund"))
    loop.until(lambda: {audit.model.data(audit.model.index(r, 5))
                        for r in range(audit.model.rowCount())} == {"fund"}, message="fund only")
    audit.action.setCurrentIndex(0)
    audit.result.setCurrentIndex(audit.result.findData("sent"))
    loop.until(lambda: audit.model.rowCount() == 3, message="sent lines: create, fund, withdraw")
    audit.result.setCurrentIndex(0)
    audit.search.setText(card.last4)
    loop.until(lambda: audit.model.rowCount() == 5, message="the card's lines")  # not "create sent"

    path = loop.run(audit.export_csv(tmp_path / "audit.csv"))
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == list(COLUMNS) and len(rows) == 6
    assert [r[5] for r in rows[1:]] == ["withdraw", "withdraw", "fund", "fund", "create"]
    assert all(card.masked == r[4] for r in rows[1:])


def test_every_control_of_the_tab_is_named(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    desk.create("15", "USD")
    assert _unnamed_focusable(desk.window) == []
    desk.press(desk.tab.page.buttons["terminate"])
    dialog = desk.dialog("terminate-dialog")
    assert _unnamed_focusable(dialog, at_least=3) == []
    assert dialog.action.accessibleName() == "Terminate" and dialog.windowTitle() == "Terminate card"
    desk.close(dialog)
    for kind, verb in (("fund", "Fund"), ("withdraw", "Withdraw")):
        desk.press(desk.tab.page.buttons[kind])
        dialog = desk.dialog(f"{kind}-dialog")
        assert _unnamed_focusable(dialog, at_least=3) == [] and dialog.action.text() == verb
        desk.close(dialog)
    desk.tab.sections.setCurrentWidget(desk.tab.audit)
    assert _unnamed_focusable(desk.window) == []
