"""The audit log in the tab (newest first, filtered, exported to CSV), and every control of
the tab and its dialogs named for the accessibility bus."""

from paydesk.desk.export import AUDIT_HEADER
from paydesk.ui.cards.audit import COLUMNS
from tests.ui import press
from tests.ui.cards.test_wallet import Desk, exported_audit
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
    press.type_into(dialog.amount, "900")
    press.enter(dialog.amount)  # over the known balance: refused here, nothing sent or audited
    loop.until(lambda: "At most GBP 45.00" in dialog.amount_message.text(), message="at most")
    press.type_into(dialog.amount, "2")
    press.click(dialog.action)
    loop.until(lambda: "New balance" in dialog.outcome.text(), message="the withdrawal")
    desk.close(dialog)
    audit = desk.tab.audit
    press.tab(desk.tab.sections, "Audit log")
    loop.until(lambda: audit.model.rowCount() >= 6, message="the audit lines")
    first = [audit.model.data(audit.model.index(0, c)) for c in range(len(COLUMNS))]
    assert first[5] == "withdraw" and first[7] == "done" and first[6] == "GBP 2.00"
    assert first[4] == card.masked and first[3] == "test" and first[1]

    press.choose(audit.action, audit.action.itemText(audit.action.findData("fund")))
    loop.until(
        lambda: {audit.model.data(audit.model.index(r, 5)) for r in range(audit.model.rowCount())} == {"fund"},
        message="fund only",
    )
    press.choose(audit.action, audit.action.itemText(0))
    press.choose(audit.result, audit.result.itemText(audit.result.findData("sent")))
    loop.until(lambda: audit.model.rowCount() == 3, message="sent lines: create, fund, withdraw")
    press.choose(audit.result, audit.result.itemText(0))
    press.type_into(audit.search, card.last4)
    loop.until(lambda: audit.model.rowCount() == 5, message="the card's lines")  # not "create sent"

    rows = exported_audit(loop, audit, tmp_path / "audit.csv", 6)
    assert rows[0] == list(AUDIT_HEADER) and len(rows) == 6
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
    press.tab(desk.tab.sections, "Audit log")
    assert _unnamed_focusable(desk.window) == []
