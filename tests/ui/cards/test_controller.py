"""The cards controller on its own (no window) against the sandbox over HTTP: every operation
written before its call, refusals said plainly, and lost answers settled by reading the card
back, never by sending again."""

import sqlite3
from decimal import Decimal

import pytest

from paydesk.ledger.cards import AuditQuery, OperationUnderWay
from paydesk.ui.cards.controller import CardsController
from tests.ui.cards.helpers import add_profile, balance_of, service_card_transactions


@pytest.fixture
def controller(session):
    made = CardsController(session, session.card_ledger)
    made.second_look = 0.2
    return made


def test_lifecycle_and_refusals(controller, session, loop, sandbox):
    profile = add_profile(loop, session, sandbox)
    op = loop.run(controller.create(profile, "test", Decimal(50), "GBP", None))
    assert op.state == "done" and op.card_hash and op.masked.count("*") >= 6
    card = loop.run(session.card_ledger.card(profile.id, "test", op.card_hash))
    assert card.balance == Decimal("50.00") and card.state == 1 and card.currency_code == "12"

    assert loop.run(controller.fund(card, Decimal(20))).state == "done"
    card = loop.run(session.card_ledger.card(profile.id, "test", op.card_hash))
    assert card.balance == Decimal("70.00")
    refused = loop.run(controller.withdraw(card, Decimal(500)))
    assert refused.state == "not-done" and refused.result == "Insufficient card balance"
    assert loop.run(controller.block(card)).state == "done"
    card = loop.run(session.card_ledger.card(profile.id, "test", op.card_hash))
    assert card.state == 2
    blocked = loop.run(controller.fund(card, Decimal(5)))
    assert blocked.state == "not-done" and blocked.result == "Card is blocked"
    assert loop.run(controller.unblock(card)).state == "done"
    assert loop.run(controller.terminate(card)).state == "done"
    card = loop.run(session.card_ledger.card(profile.id, "test", op.card_hash))
    assert card.state == 0 and card.balance == Decimal("0.00")
    gone = loop.run(controller.fund(card, Decimal(5)))
    assert gone.state == "not-done" and gone.result == "Card is terminated"

    lines, _ = loop.run(session.card_ledger.audit_page(AuditQuery(profile.id, "test")))
    said = [(e.action, e.result) for e in reversed(lines)]
    assert said[:4] == [("create", "sent"), ("create", "done"), ("fund", "sent"), ("fund", "done")]
    assert ("withdraw", "refused") in said and ("terminate", "done") in said
    assert all(e.user and e.profile_name == "Shop" and e.mode == "test" for e in lines)


def test_a_second_operation_on_a_card_is_refused_while_one_is_open(controller, session, loop,
                                                                 sandbox):
    profile = add_profile(loop, session, sandbox)
    op = loop.run(controller.create(profile, "test", Decimal(10), "USD", None))
    card = loop.run(session.card_ledger.card(profile.id, "test", op.card_hash))
    sandbox.faults(latency_ms=800)
    seen = []
    controller.operationChanged.connect(seen.append)
    first = loop.spawn(controller.fund(card, Decimal(1)))
    loop.until(lambda: [o.state for o in seen] == ["sending"], message="sending")
    with pytest.raises(OperationUnderWay):
        loop.run(controller.fund(card, Decimal(1)))  # an impatient second press
    loop.run(first)
    sandbox.faults()
    assert first.result().state == "done"
    assert [t.type for t in service_card_transactions(sandbox, op.card_hash)] == ["Credit", "Credit"]


def test_an_unknown_card_and_an_unknown_key_are_said_plainly(controller, session, loop, sandbox):
    profile = add_profile(loop, session, sandbox)
    op = loop.run(controller.create(profile, "test", Decimal(10), "USD", None))
    card = loop.run(session.card_ledger.card(profile.id, "test", op.card_hash))
    from dataclasses import replace

    unknown = replace(card, card_hash="ch_doesnotexist")
    result = loop.run(controller.fund(unknown, Decimal(1)))
    assert result.state == "not-done" and result.result == "Card not found"
    with sandbox.client() as c:  # the merchant's balance is spent
        c.post("/_sandbox/balance", json={"currency": "USD", "amount": "1"}).raise_for_status()
        have = Decimal(c.get("/_sandbox/balance").json()["data"]["USD"])
    poor = loop.run(controller.create(profile, "test", Decimal(int(have)), "USD", None))
    assert poor.state == "not-done" and "Insufficient Funds" in poor.result


def test_lost_create_is_found_not_made_again(controller, session, loop, sandbox):
    profile = add_profile(loop, session, sandbox)
    sandbox.faults(drop_after_commit_rate=1.0)
    seen = []
    controller.operationChanged.connect(seen.append)
    create = loop.spawn(controller.create(profile, "test", Decimal(33), "GBP", None))
    loop.until(lambda: any(o.state == "lost" for o in seen), message="the answer to be lost")
    sandbox.faults()
    loop.run(create, timeout=30)
    op = create.result()
    assert op.state == "done" and op.settled and op.card_hash
    with sqlite3.connect(sandbox.server.data_dir / "sandbox.sqlite3") as db:
        assert db.execute("SELECT card_hash FROM cards").fetchall() == [(op.card_hash,)]


@pytest.mark.parametrize("rate", [0.5])
def test_fifty_operations_under_dropped_answers(controller, session, loop, sandbox, rate):
    """Half the answers are cut after the service commits (reads too): every operation ends
    done or not done, and the card's balance is exactly what the done ones add up to."""
    profile = add_profile(loop, session, sandbox)
    op = loop.run(controller.create(profile, "test", Decimal(100), "GBP", None))
    card = loop.run(session.card_ledger.card(profile.id, "test", op.card_hash))
    sandbox.faults(drop_after_commit_rate=rate, seed=11)
    outcomes = []
    for n in range(50):
        amount = Decimal(1 + n % 7)
        # as in the tab: the card's buttons wait until the last operation is settled
        loop.until(lambda: controller.settling() == 0, timeout=120, message="the last settle")
        current = loop.run(session.card_ledger.card(profile.id, "test", card.card_hash))
        if n % 3 == 2:
            result = loop.run(controller.withdraw(current, amount), timeout=60)
        else:
            result = loop.run(controller.fund(current, amount), timeout=60)
        outcomes.append(result)
    loop.until(lambda: controller.settling() == 0, timeout=120, message="every settle")
    sandbox.faults()
    ops = loop.run(session.card_ledger.operations(profile.id, "test", card.card_hash,
                                                  kinds=("fund", "withdraw")))
    assert len(ops) == 50 and all(o.state in ("done", "not-done") for o in ops)
    lost = [o for o in ops if o.settled]
    assert len(lost) >= 10, "the faults should have cut many answers"
    expected = Decimal(100) + sum(o.amount if o.kind == "fund" else -o.amount
                                  for o in ops if o.state == "done")
    assert balance_of(sandbox, card.card_hash) == expected
    service = service_card_transactions(sandbox, card.card_hash)[1:]  # after "Card created"
    done = [o for o in ops if o.state == "done"]
    assert len(service) == len(done), "an operation was done twice, or one done is not marked"
    evidence = [o.evidence for o in done]
    assert None not in evidence and len(set(evidence)) == len(done)
    assert sorted(evidence) == sorted(t.id for t in service)
    print(f"\n50 operations under drop_after_commit {rate}: {len(done)} done, "
          f"{50 - len(done)} not done, {len(lost)} answers lost and settled by reading back; "
          f"balance {balance_of(sandbox, card.card_hash)} = 100 + the done ones")
