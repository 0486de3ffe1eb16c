"""Every write a person makes at a desk carries who they are (``session.staff.actor``): the
counter's sale (and its link), its void and the decision after it, the shift's opening and
close; a link made in the Links tab; a card operation and its audit lines; an export, a
profile's keys saved and a switch to live in the activity book. Read once where the person
acted: a lock during the sale does not unname it. A shop without staff names nobody, and
what PayDesk does by itself (a check) names nobody either."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from paydesk.desk.staff import Person, Role
from paydesk.ledger.counter import KEEP, PAID_AFTER_VOID, VOIDED
from paydesk.service.models import PaymentRequest

SHOP = "till@example.com"
ANA = Person("p-ana", "Ana", Role.ADMIN)
BEN = Person("p-ben", "Ben", Role.FINANCE)


def request(ref: str) -> PaymentRequest:
    return PaymentRequest(
        amount=Decimal("12"),
        currency="GBP",
        email="kim@example.com",
        first_name="Kim",
        last_name="Lee",
        tx_ref=ref,
        title="Tea",
    )


async def test_a_counter_sale_its_void_decision_and_close_carry_the_person(desk, add_profile, service, until):
    await add_profile(shop_email=SHOP)
    counter = desk.counter
    desk.session.staff.signed_in(ANA)
    sale = await counter.sell("12", "GBP")
    assert sale.actor == "Ana" and sale.record.actor == "Ana"
    shift = await counter.shift()
    assert shift.opened_actor == "Ana"
    desk.session.staff.signed_in(BEN)  # another person at the counter voids it
    voided = await counter.new_sale()
    assert voided.kind == VOIDED and (voided.actor, voided.voided_actor) == ("Ana", "Ben")
    service.control(f"pay/{sale.record.reference}", {"outcome": "success"})
    checked = await desk.links.check(sale.record)  # PayDesk's own check: nobody's write
    assert checked.actor == "Ana"  # the link is still Ana's
    [undecided] = await counter.undecided()
    assert undecided.kind == PAID_AFTER_VOID
    desk.session.staff.signed_in(ANA)
    kept = await counter.decide(undecided, KEEP)
    assert (kept.actor, kept.voided_actor, kept.decided_actor) == ("Ana", "Ben", "Ana")
    desk.session.staff.signed_in(BEN)
    closed = await counter.close_shift(shift.id)
    assert (closed.opened_actor, closed.closed_actor) == ("Ana", "Ben")
    assert closed.closed_by == counter.user  # the computer's login is kept beside it


async def test_a_lock_during_a_sale_does_not_unname_it(desk, add_profile):
    await add_profile(shop_email=SHOP)
    desk.session.staff.signed_in(ANA)
    selling = asyncio.create_task(desk.counter.sell("5", "GBP"))
    await asyncio.sleep(0)  # the sale has begun: Enter was pressed by Ana
    desk.session.staff.lock()  # the counter locks while its link is being made
    sale = await selling
    assert sale.actor == "Ana" and sale.record.actor == "Ana"
    assert (await desk.counter.shift()).opened_actor == "Ana"


async def test_without_staff_nobody_is_named(desk, add_profile):
    await add_profile(shop_email=SHOP)
    sale = await desk.counter.sell("7", "GBP")
    assert sale.actor is None and sale.record.actor is None
    closed = await desk.counter.close_shift((await desk.counter.shift()).id)
    assert (closed.opened_actor, closed.closed_actor) == (None, None)


async def test_a_link_carries_the_person_who_made_it(desk, add_profile):
    await add_profile()
    desk.session.staff.signed_in(BEN)
    record = await desk.links.create(request("WHO-1"))
    assert record.actor == "Ben"
    assert (await desk.session.ledger.get(record.profile_id, "WHO-1")).actor == "Ben"
