"""Card evidence claimed once, in the fast tier: a fund or withdrawal whose answer the
service drops after committing it is read back done, its evidence is the one card
transaction that shows it, it was sent once, and no transaction is claimed twice (the slow
``test_fifty_operations_under_dropped_answers`` checks the same over fifty operations)."""

import asyncio
from decimal import Decimal

import pytest

from tests.desk.cards.operations import a_card, lose_the_answer, sends

pytestmark = pytest.mark.sockets  # answers lost by the sandbox's faults


async def lost_and_settled(controller, session, service, until, kind, start):
    """Lose the answer of ``start()`` (a ``kind`` of operation), await its end and its
    settling; returns the operation as the ledger holds it and the sends made by then."""
    task, seen, sent = await lose_the_answer(controller, service, until, kind, start)
    op = await asyncio.wait_for(task, 30)
    await until(lambda: controller.settling() == 0, timeout=30, message="settled")
    assert [o.state for o in seen][-1] == "done"
    return await session.card_ledger.operation(op.id), sent


def of_type(service, card_hash, kind):
    return [t for t in service.card_transactions(card_hash) if t.type == kind]


async def test_a_lost_fund_claims_the_credit_that_shows_it(controller, session, add_profile, service, until):
    profile = await add_profile()
    made, card = await a_card(controller, session, profile, 40, "GBP")
    op, sent = await lost_and_settled(
        controller, session, service, until, "fund", lambda: controller.fund(card, Decimal(7))
    )
    assert (op.state, op.settled) == ("done", True)
    credits = of_type(service, made.card_hash, "Credit")[1:]  # after the create's own
    assert [t.amount for t in credits] == [Decimal(7)]
    assert op.evidence == credits[0].id
    assert sent == sends(service, "fund") == 1  # sent once, read back, not sent again
    assert service.balance_of(made.card_hash) == Decimal(47)


async def test_two_lost_funds_of_one_amount_claim_two_credits(controller, session, add_profile, service, until):
    profile = await add_profile()
    made, card = await a_card(controller, session, profile, 40, "GBP")
    ops = []
    for _ in range(2):
        current = await session.card_ledger.card(profile.id, "test", made.card_hash)
        op, _ = await lost_and_settled(
            controller, session, service, until, "fund", lambda c=current: controller.fund(c, Decimal(5))
        )
        assert (op.state, op.settled) == ("done", True)
        ops.append(op)
    credits = of_type(service, made.card_hash, "Credit")[1:]
    assert [t.amount for t in credits] == [Decimal(5), Decimal(5)]
    assert ops[0].evidence != ops[1].evidence  # no credit claimed twice
    assert sorted(o.evidence for o in ops) == sorted(t.id for t in credits)
    assert ops[0].evidence == credits[0].id  # claimed oldest first
    assert sends(service, "fund") == 2
    assert service.balance_of(made.card_hash) == Decimal(50)


async def test_a_lost_withdrawal_claims_the_debit_that_shows_it(controller, session, add_profile, service, until):
    profile = await add_profile()
    made, card = await a_card(controller, session, profile, 40, "GBP")
    op, sent = await lost_and_settled(
        controller, session, service, until, "withdraw", lambda: controller.withdraw(card, Decimal(6))
    )
    assert (op.state, op.settled) == ("done", True)
    debits = of_type(service, made.card_hash, "Debit")
    assert [t.amount for t in debits] == [Decimal(6)]
    assert op.evidence == debits[0].id
    assert sent == sends(service, "withdraw") == 1
    assert service.balance_of(made.card_hash) == Decimal(34)
