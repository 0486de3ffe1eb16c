"""Block, unblock and terminate whose answers are lost after the service committed them: the
card's state is read back (never sent again), the operation ends done, and the page and the
list show the new state. And one the service never made: read back, it ends NOT done.

The sandbox's faults are per merchant and mode, not per route: ``drop_after_commit_rate``
drops the answer of every /api/ call. So the fault is set before the click and cleared once
PayDesk has marked the operation lost: by then every send of the action (the client's own
bounded retries of these GETs included) was committed and its answer cut, and what follows
can only be PayDesk reading the card back.
"""

from decimal import Decimal

import pytest

from paydesk.ledger.cards import AuditQuery
from tests.ui import press
from tests.ui.cards.test_wallet import Desk


@pytest.fixture
def desk(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    app.window.resize(1300, 900)
    return Desk(app, loop)


def sent(desk, action):
    """How many times the service was asked to ``action`` a card (its own call log)."""
    calls = desk.api("GET", "_sandbox/requests")["data"]
    return sum(1 for c in calls if f"/virtual_card/{action}/" in c["path"])


def service_card(desk, card_hash):
    return desk.api("GET", f"api/virtual_card/card/{card_hash}")["data"]


def merchant_balance(desk, currency="GBP"):
    return Decimal(desk.api("GET", "_sandbox/balance")["data"][currency])


def lose_the_answer(desk, loop, kind, start, **fault):
    """Set ``fault``, start the operation, wait until PayDesk marks it lost, clear the fault.
    Returns the operations seen (as signalled) and how many sends of ``kind`` the service
    had had by the time it was lost."""
    seen = []
    desk.tab.controller.hub.operation_changed.connect(lambda op: op.kind == kind and seen.append(op))
    desk.app.faults(**(fault or {"drop_after_commit_rate": 1.0}))  # tests/helpers.py
    try:
        start()
        loop.until(lambda: any(o.state == "lost" for o in seen), timeout=60, message=f"the {kind} marked lost")
    finally:
        desk.app.faults()
    return seen, sent(desk, kind)


def settled(seen):
    return next((o for o in seen if o.state in ("done", "not-done")), None)


def test_block_unblock_terminate_with_their_answers_lost_are_read_back(desk, loop):
    tab, page = desk.tab, desk.tab.page
    _, card = desk.create("40", "GBP")
    loop.until(
        lambda: (
            page.record is not None and page.record.card_hash == card.card_hash and page.buttons["block"].isEnabled()
        ),
        message="the card on its page",
    )

    # block: committed, its answer cut
    seen, sends = lose_the_answer(desk, loop, "block", lambda: desk.press(page.buttons["block"]))
    assert sends >= 1 and service_card(desk, card.card_hash)["status"] == 2
    loop.until(lambda: settled(seen) is not None, timeout=60, message="the block settled")
    op = settled(seen)
    assert (op.state, op.settled) == ("done", True)
    assert "blocked at the service" in op.result
    loop.until(lambda: page.values["state"].text() == "Blocked", message="Blocked on the page")
    loop.until(lambda: tab.wallet.state_of(card.card_hash) == "Blocked", message="in the list")
    assert page.message.text() == (
        "The answer was lost; checked with the service: it was done. Card blocked. Press Unblock to undo."
    )
    assert page.buttons["block"].text() == "Unblock" and not page.buttons["fund"].isEnabled()
    assert sent(desk, "block") == sends  # read back: not sent again

    # unblock, the same way
    seen, sends = lose_the_answer(desk, loop, "unblock", lambda: desk.press(page.buttons["block"]))
    assert service_card(desk, card.card_hash)["status"] == 1
    loop.until(lambda: settled(seen) is not None, timeout=60, message="the unblock settled")
    assert (settled(seen).state, settled(seen).settled) == ("done", True)
    loop.until(lambda: page.values["state"].text() == "Active", message="Active on the page")
    loop.until(lambda: tab.wallet.state_of(card.card_hash) == "Active", message="in the list")
    assert "it was done. Card unblocked." in page.message.text()
    assert sent(desk, "unblock") == sends

    # terminate: the balance goes back to the merchant once, whatever was lost
    before = merchant_balance(desk)
    desk.press(page.buttons["terminate"])
    dialog = desk.dialog("terminate-dialog")
    press.type_into(dialog.last4, card.last4)
    seen, sends = lose_the_answer(desk, loop, "terminate", lambda: press.click(dialog.action))
    loop.until(
        lambda: "checked with the service" in dialog.outcome.text(),
        timeout=60,
        message="the terminate settled in its dialog",
    )
    assert dialog.outcome.text() == ("The answer was lost; checked with the service: it was done. Card terminated.")
    assert (settled(seen).state, settled(seen).settled) == ("done", True)
    desk.close(dialog)
    loop.until(lambda: page.values["state"].text() == "Terminated", message="Terminated")
    loop.until(lambda: tab.wallet.state_of(card.card_hash) == "Terminated", message="in the list")
    assert not any(page.buttons[k].isEnabled() for k in ("fund", "withdraw", "block", "terminate"))
    assert sent(desk, "terminate") == sends
    refunds = [
        t
        for t in desk.api("GET", f"api/virtual_card/transactions/{card.card_hash}")["data"]
        if t["description"] == "Balance refunded on termination"
    ]
    assert [Decimal(t["amount"]) for t in refunds] == [Decimal("40")]
    assert merchant_balance(desk) == before + Decimal("40")

    # the audit log says each was lost, then checked
    lines, _ = loop.run(desk.session.card_ledger.audit_page(AuditQuery(desk.profile.id, "test")))
    for kind in ("block", "unblock", "terminate"):
        results = [e.result for e in sorted(lines, key=lambda e: e.id) if e.action == kind]
        assert results == ["sent", "answer lost", "checked: done"], (kind, results)


def test_a_block_the_service_never_made_reads_back_not_done(desk, loop):
    """Every block answered 503 (the service did not act): lost to PayDesk, read back, the
    card still active: NOT done, said so, and the user may block again."""
    page = desk.tab.page
    _, card = desk.create("20", "GBP")
    loop.until(
        lambda: (
            page.record is not None and page.record.card_hash == card.card_hash and page.buttons["block"].isEnabled()
        ),
        message="the card on its page",
    )
    seen, _ = lose_the_answer(desk, loop, "block", lambda: desk.press(page.buttons["block"]), error_rate=1.0)
    loop.until(lambda: settled(seen) is not None, timeout=60, message="the block settled")
    op = settled(seen)
    assert (op.state, op.settled) == ("not-done", True) and "active at the service" in op.result
    assert service_card(desk, card.card_hash)["status"] == 1
    loop.until(lambda: "was NOT done" in page.message.text(), message="said on the page")
    assert page.values["state"].text() == "Active" and page.buttons["block"].text() == "Block"
    assert desk.tab.wallet.state_of(card.card_hash) == "Active"
    loop.until(page.buttons["block"].isEnabled, message="Block usable again")
