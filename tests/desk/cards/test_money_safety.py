"""Money safety, from the second reading of the wallet: another window never judges an
operation still in flight, the service's own late "done" outranks a reading back, a card
purchase is not taken for a lost withdrawal once PayDesk knows the service's words, and a
lost create is found whatever the profile's currency map says. (That a copied number does
not outlive PayDesk on the clipboard needs a widget: tests/ui/cards/test_money_safety.py.)"""

import asyncio
import subprocess
import sys
from decimal import Decimal

import pytest

from paydesk.desk.cards.controller import CardsController
from paydesk.ledger.owner import gone, this_process

pytestmark = pytest.mark.sockets  # answers lost and slowed by the sandbox's faults


async def a_card(session, add_profile, amount=50, **profile_over):
    profile = await add_profile(**profile_over)
    ctl = CardsController(session, session.card_ledger)
    ctl.second_look = 0.2
    op = await ctl.create(profile, "test", Decimal(amount), "GBP", None)
    return profile, ctl, await session.card_ledger.card(profile.id, "test", op.card_hash)


@pytest.mark.slow  # a slowed answer and another process, about 8 s: ./dev test runs it, ./dev check leaves it out
async def test_another_window_waits_for_an_operation_in_flight(session, add_profile, service, until):
    """Regression: a second window settled a fund still on its way and marked it not done;
    the user was told to try again, and a retry would have funded twice."""
    profile, first, card = await a_card(session, add_profile, amount=10)
    service.faults(latency_ms=2500)
    seen = []
    first.hub.operation_changed.connect(seen.append)
    fund = asyncio.ensure_future(first.fund(card, Decimal(5)))
    await until(lambda: [o.state for o in seen] == ["sending"], message="the fund on its way")
    service.faults()
    second = CardsController(session, session.card_ledger)  # another PayDesk window starts
    second.second_look = 0.2
    second.in_flight = 8.0
    await second.settle_open()
    assert second.settling() == 1
    await asyncio.wait_for(fund, 20)
    assert fund.result().state == "done" and not fund.result().settled
    await until(lambda: second.settling() == 0, timeout=20, message="the second window's look")
    final = await session.card_ledger.operation(seen[0].id)
    assert final.state == "done"
    credits = [t for t in service.card_transactions(card.card_hash) if t.type == "Credit"]
    assert len(credits) == 2 and service.balance_of(card.card_hash) == Decimal("15.00")


async def test_the_services_own_done_outranks_a_reading_back(session):
    from paydesk.ledger.cards import AuditDraft, OperationDraft

    ledger = session.card_ledger
    draft = OperationDraft("p", "test", "fund", "ch_x", "424242******4242", Decimal(5), "GBP")
    audit = AuditDraft("me", "p", "Shop", "test", "fund", "sent")
    op = await ledger.begin_operation(draft, audit)
    judged = await ledger.finish_operation(op.id, "not-done", "no credit seen", audit, settled=True)
    assert judged.state == "not-done"
    again = await ledger.finish_operation(op.id, "not-done", "again", audit)
    assert again.result == "no credit seen"  # a finished operation stays as it was...
    late = await ledger.finish_operation(op.id, "done", "Card Funding successful", audit, answered=True)
    assert late.state == "done"  # ...but for the service's own answer


async def test_a_purchase_is_not_a_lost_withdrawal(session, add_profile, sandbox, service, until):
    """Regression: a card purchase of the same amount was taken as proof of a withdrawal
    the service never made."""
    profile, ctl, card = await a_card(session, add_profile)
    done = await ctl.withdraw(card, Decimal(2))  # PayDesk learns how the service words it
    assert done.state == "done"
    card = await session.card_ledger.card(profile.id, "test", card.card_hash)
    with sandbox.client() as c:  # the card pays at a shop; PayDesk has not read it since
        c.post(
            f"/_sandbox/cards/{card.card_hash}/purchase", json={"amount": "7", "description": "Corner cafe"}
        ).raise_for_status()
    service.faults(error_rate=1.0)  # the withdrawal is answered 503: nothing is done
    seen = []
    ctl.hub.operation_changed.connect(seen.append)
    withdraw = asyncio.ensure_future(ctl.withdraw(card, Decimal(7)))
    await until(lambda: any(o.state == "lost" for o in seen), timeout=60, message="lost")
    service.faults()
    await asyncio.wait_for(withdraw, 60)
    await until(lambda: ctl.settling() == 0, timeout=60, message="settled")
    final = await session.card_ledger.operation(seen[-1].id)
    assert final.state == "not-done" and final.evidence is None
    assert service.balance_of(card.card_hash) == Decimal("41.00")  # 50 - 2 - 7 (the purchase)


async def test_a_lost_create_is_found_whatever_the_currency_map(session, add_profile, service, until):
    """Regression: with a map that lacks the card's code, a lost create was judged not
    done, inviting a second card and a second fee."""
    profile = await add_profile(card_currencies={"11": "USD"})
    ctl = CardsController(session, session.card_ledger)
    ctl.second_look = 0.2
    service.faults(drop_after_commit_rate=1.0)
    seen = []
    ctl.hub.operation_changed.connect(seen.append)
    create = asyncio.ensure_future(ctl.create(profile, "test", Decimal(20), "GBP", None))
    await until(lambda: any(o.state == "lost" for o in seen), timeout=60, message="lost")
    service.faults()
    await asyncio.wait_for(create, 60)
    await until(lambda: ctl.settling() == 0, timeout=60, message="settled")
    final = await session.card_ledger.operation(seen[-1].id)
    assert final.state == "done" and final.card_hash


def test_who_sent_an_operation_and_whether_it_is_gone():
    assert not gone(this_process()) and not gone(None) and not gone("another-host:1:2")
    ended = subprocess.run(
        [sys.executable, "-c", "from paydesk.ledger.owner import this_process; print(this_process())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert gone(ended)  # that process has ended: what it left open is settled at once
