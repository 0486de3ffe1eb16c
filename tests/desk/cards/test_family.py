"""The cards controller against the --family sandbox (SERVICE.md 1b), no window: the family does
not check a card's state (blocking a blocked card succeeds there), so PayDesk's own check keeps a
second window from blocking it again; it keeps no test cards, so nothing is read or sent in
test mode; and it writes no card transaction for a fund, so a fund whose answer was lost is
settled by the card's balance."""

from decimal import Decimal

import pytest

from paydesk.desk.cards.controller import CardsController, NoTestCards, StateRefused
from paydesk.ledger.cards import CardQuery
from tests.desk.cards.operations import lose_the_answer

pytestmark = pytest.mark.dialects("family")


@pytest.fixture
async def family(add_profile):
    """A profile found out as the profile editor's Save does: the family's lookup path."""
    profile = await add_profile(discover=True)
    assert not profile.test_cards
    return profile


def window(session):
    """The cards rules of one PayDesk window (each window has its own controller)."""
    made = CardsController(session, session.card_ledger)
    made.second_look = 0.2
    return made


def sends(service, action, mode="live"):
    return sum(1 for path in service.calls(mode=mode) if f"/virtual_card/{action}" in path)


async def a_card(controller, session, profile, amount=40):
    op = await controller.create(profile, "live", Decimal(amount), "GBP", None, first_name="Ada", last_name="Lovelace")
    assert op.state == "done", op.result
    return await session.card_ledger.card(profile.id, "live", op.card_hash)


async def test_a_second_window_does_not_block_a_blocked_card_again(session, family, service):
    first, second = window(session), window(session)
    card = await a_card(first, session, family)  # both windows show it Active
    assert (await first.block(card)).state == "done"
    assert sends(service, "block") == 1
    with pytest.raises(StateRefused) as refused:  # the second window's page was not redrawn
        await second.block(card)
    assert refused.value.message == "The card is already blocked"
    assert sends(service, "block") == 1  # nothing sent: the family would have said success
    assert (await second.unblock(card)).state == "done"  # the ledger's state, not the page's
    with pytest.raises(StateRefused) as refused:
        await first.unblock(card)
    assert refused.value.message == "The card is not blocked"
    assert sends(service, "unblock") == 1


async def test_nothing_is_read_or_sent_in_test_mode(session, family, service):
    controller = window(session)
    before = service.calls(mode="test")  # (the profile's discovery asked for the card list)
    with pytest.raises(NoTestCards) as refused:
        await controller.create(family, "test", Decimal(10), "GBP", None, first_name="Ada", last_name="Lovelace")
    assert "keeps no test cards" in refused.value.message
    with pytest.raises(NoTestCards):
        await controller.refresh(family, "test")
    assert service.calls(mode="test") == before
    card = await a_card(controller, session, family)
    await controller.refresh(family, "live")
    ledger = session.card_ledger
    assert await ledger.card_count(CardQuery(family.id, "live")) == 1
    assert await ledger.card_count(CardQuery(family.id, "test")) == 0
    assert card.key[1] == "live"


@pytest.mark.sockets
async def test_a_lost_fund_is_settled_by_the_cards_balance(session, family, service, until):
    controller = window(session)
    card = await a_card(controller, session, family)
    task, seen, funds = await lose_the_answer(
        controller, _LiveFaults(service), until, "fund", lambda: controller.fund(card, Decimal(15))
    )
    op = await task
    assert funds == 1 and op.state == "done" and op.settled, op.result
    assert "balance moved" in op.result
    assert service.balance_of(card.card_hash) == Decimal("55.00")
    assert (await session.card_ledger.card(*card.key)).balance == Decimal("55.00")
    # the family writes no transaction for a fund: none was needed to see it done
    assert not service.card_transactions(card.card_hash)


class _LiveFaults:
    """The sandbox as ``lose_the_answer`` uses it, on the live key (the family's cards)."""

    def __init__(self, service):
        self.service = service

    def faults(self, **body):
        self.service.sb.faults(mode="live", **body)

    def calls(self):
        return self.service.calls(mode="live")
