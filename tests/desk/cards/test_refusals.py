"""A card fund or withdrawal is done only when the service shows it done, in each dialect:
the family's server answers a fund with too little merchant balance as HTTP 201 "success"
with no card ("Insufficient Funds, please fund your account"), and PayDesk must say Not done,
never "funded". Through the cards controller (no window, no Qt) over real HTTP."""

from decimal import Decimal

import pytest

from paydesk.desk.cards.controller import CardsController
from paydesk.ledger.cards import AuditQuery

pytestmark = pytest.mark.dialects()


async def test_a_fund_refused_as_success_is_not_done(session, add_profile):
    controller = CardsController(session, session.card_ledger)
    controller.second_look = 0.2
    profile = await add_profile()

    # the card made at the service directly (the family wants a name and a callback_url)
    async with session.lease(profile, "test") as client:
        card = await client.create_card(
            Decimal(40), "USD", "https://shop.example/h", first_name="Ada", last_name="Lovelace"
        )
    record = await session.card_ledger.store_card(profile.id, "test", card)
    op = await controller.fund(record, Decimal(9_000_000))
    assert op.state == "not-done" and "Insufficient Funds" in op.result

    async def balance():
        async with session.lease(profile, "test") as client:
            return (await client.card(record.card_hash)).balance

    assert await balance() == Decimal("40.00")  # nothing moved at the service
    lines, _ = await session.card_ledger.audit_page(AuditQuery(profile.id, "test"))
    assert ("fund", "refused") in [(e.action, e.result) for e in lines]
    assert (await controller.fund(record, Decimal(5))).state == "done"
    assert await balance() == Decimal("45.00")
