"""Money safety, from the second reading of the wallet: another window never judges an
operation still in flight, the service's own late "done" outranks a reading back, a card
purchase is not taken for a lost withdrawal once PayDesk knows the service's words, a lost
create is found whatever the profile's currency map says, and a copied number does not
outlive PayDesk on the clipboard."""

import asyncio
import subprocess
import sys
from decimal import Decimal

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from paydesk.ledger.owner import gone, this_process
from paydesk.ui.cards.controller import CardsController
from paydesk.ui.cards.secret import SecretBox
from tests.ui import press
from tests.ui.cards.helpers import add_profile, balance_of, service_card_transactions


def a_card(loop, session, sandbox, amount=50, **profile_over):
    profile = add_profile(loop, session, sandbox, **profile_over)
    ctl = CardsController(session, session.card_ledger)
    ctl.second_look = 0.2
    op = loop.run(ctl.create(profile, "test", Decimal(amount), "GBP", None))
    return profile, ctl, loop.run(session.card_ledger.card(profile.id, "test", op.card_hash))


def test_another_window_waits_for_an_operation_in_flight(session, loop, sandbox):
    """Regression: a second window settled a fund still on its way and marked it not done;
    the user was told to try again, and a retry would have funded twice."""
    profile, first, card = a_card(loop, session, sandbox, amount=10)
    sandbox.faults(latency_ms=2500)
    seen = []
    first.operationChanged.connect(seen.append)
    fund = loop.spawn(first.fund(card, Decimal(5)))
    loop.until(lambda: [o.state for o in seen] == ["sending"], message="the fund on its way")
    sandbox.faults()
    second = CardsController(session, session.card_ledger)  # another PayDesk window starts
    second.second_look = 0.2
    second.in_flight = 8.0
    loop.run(second.settle_open())
    assert second.settling() == 1
    loop.run(fund, timeout=20)
    assert fund.result().state == "done" and not fund.result().settled
    loop.until(lambda: second.settling() == 0, timeout=20, message="the second window's look")
    final = loop.run(session.card_ledger.operation(seen[0].id))
    assert final.state == "done"
    credits = [t for t in service_card_transactions(sandbox, card.card_hash) if t.type == "Credit"]
    assert len(credits) == 2 and balance_of(sandbox, card.card_hash) == Decimal("15.00")


def test_the_services_own_done_outranks_a_reading_back(session, loop, sandbox):
    from paydesk.ledger.cards import AuditDraft, OperationDraft

    ledger = session.card_ledger
    draft = OperationDraft("p", "test", "fund", "ch_x", "424242******4242", Decimal(5), "GBP")
    audit = AuditDraft("me", "p", "Shop", "test", "fund", "sent")
    op = loop.run(ledger.begin_operation(draft, audit))
    judged = loop.run(ledger.finish_operation(op.id, "not-done", "no credit seen", audit,
                                              settled=True))
    assert judged.state == "not-done"
    again = loop.run(ledger.finish_operation(op.id, "not-done", "again", audit))
    assert again.result == "no credit seen"  # a finished operation stays as it was...
    late = loop.run(ledger.finish_operation(op.id, "done", "Card Funding successful", audit,
                                            answered=True))
    assert late.state == "done"  # ...but for the service's own answer


def test_a_purchase_is_not_a_lost_withdrawal(session, loop, sandbox):
    """Regression: a card purchase of the same amount was taken as proof of a withdrawal
    the service never made."""
    profile, ctl, card = a_card(loop, session, sandbox)
    done = loop.run(ctl.withdraw(card, Decimal(2)))  # PayDesk learns how the service words it
    assert done.state == "done"
    card = loop.run(session.card_ledger.card(profile.id, "test", card.card_hash))
    with sandbox.client() as c:  # the card pays at a shop; PayDesk has not read it since
        c.post(f"/_sandbox/cards/{card.card_hash}/purchase",
               json={"amount": "7", "description": "Corner cafe"}).raise_for_status()
    sandbox.faults(error_rate=1.0)  # the withdrawal is answered 503: nothing is done
    seen = []
    ctl.operationChanged.connect(seen.append)
    withdraw = loop.spawn(ctl.withdraw(card, Decimal(7)))
    loop.until(lambda: any(o.state == "lost" for o in seen), timeout=60, message="lost")
    sandbox.faults()
    loop.run(withdraw, timeout=60)
    loop.until(lambda: ctl.settling() == 0, timeout=60, message="settled")
    final = loop.run(session.card_ledger.operation(seen[-1].id))
    assert final.state == "not-done" and final.evidence is None
    assert balance_of(sandbox, card.card_hash) == Decimal("41.00")  # 50 - 2 - 7 (the purchase)


def test_a_lost_create_is_found_whatever_the_currency_map(session, loop, sandbox):
    """Regression: with a map that lacks the card's code, a lost create was judged not
    done, inviting a second card and a second fee."""
    profile = add_profile(loop, session, sandbox, card_currencies={"11": "USD"})
    ctl = CardsController(session, session.card_ledger)
    ctl.second_look = 0.2
    sandbox.faults(drop_after_commit_rate=1.0)
    seen = []
    ctl.operationChanged.connect(seen.append)
    create = loop.spawn(ctl.create(profile, "test", Decimal(20), "GBP", None))
    loop.until(lambda: any(o.state == "lost" for o in seen), timeout=60, message="lost")
    sandbox.faults()
    loop.run(create, timeout=60)
    loop.until(lambda: ctl.settling() == 0, timeout=60, message="settled")
    final = loop.run(session.card_ledger.operation(seen[-1].id))
    assert final.state == "done" and final.card_hash


def test_a_copied_number_leaves_the_clipboard_when_paydesk_closes(qapp, loop, qtbot):
    class Card:
        card_pan, cvv = "4242424242424242", "123"

    async def fetch(action):
        return Card()

    box = SecretBox(fetch, lambda coro, name: asyncio.ensure_future(coro))
    qtbot.addWidget(box)
    box.set_card("424242******4242")
    box.show()
    qtbot.waitExposed(box)
    clipboard = QGuiApplication.clipboard()
    press.click(box.copy_button)
    loop.until(lambda: clipboard.text() == "4242424242424242", message="copied")
    assert bytes(clipboard.mimeData().data("x-kde-passwordManagerHint")) == b"secret"
    box.forget()  # what the main window does when it closes
    assert clipboard.text() == ""
    clipboard.setText("something else")  # copied since: left alone
    loop.run(asyncio.sleep(QApplication.doubleClickInterval() / 1000))  # a new click
    press.click(box.copy_button)
    loop.until(lambda: clipboard.text() == "4242424242424242", message="copied again")
    clipboard.setText("the user's own text")
    box.forget()
    assert clipboard.text() == "the user's own text"


def test_who_sent_an_operation_and_whether_it_is_gone():
    assert not gone(this_process()) and not gone(None) and not gone("another-host:1:2")
    ended = subprocess.run([sys.executable, "-c", "from paydesk.ledger.owner import "
                            "this_process; print(this_process())"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert gone(ended)  # that process has ended: what it left open is settled at once
