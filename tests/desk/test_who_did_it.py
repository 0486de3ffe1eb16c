"""Every write a person makes at a desk carries who they are (``session.staff.actor``): the
counter's sale (and its link), its void and the decision after it, the shift's opening and
close; a link made in the Links tab; a card operation and its audit lines; an export, a
profile's keys saved and a switch to live in the activity book. Read once where the person
acted: a lock during the sale does not unname it. A shop without staff names nobody, and
what PayDesk does by itself (a check) names nobody either."""

from __future__ import annotations

import asyncio
import csv
from decimal import Decimal

from paydesk.desk.export import export_audit
from paydesk.desk.staff import Person, Role
from paydesk.ledger import LinkQuery
from paydesk.ledger.activity import EXPORT, KEYS_SAVED, SWITCHED_TO_LIVE
from paydesk.ledger.cards import AuditQuery
from paydesk.ledger.counter import KEEP, PAID_AFTER_VOID, VOIDED
from paydesk.service.models import PaymentRequest
from tests import profiles

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


async def test_a_card_operation_and_its_audit_lines_carry_the_person(desk, add_profile):
    profile = await add_profile()
    desk.session.staff.signed_in(ANA)
    made = await desk.cards.create(profile, "test", Decimal(10), "USD", None)
    assert made.state == "done" and made.actor == "Ana"
    desk.session.staff.signed_in(Person("p-cy", "Cy", Role.ADMIN))
    card = await desk.session.card_ledger.card(profile.id, "test", made.card_hash)
    blocked = await desk.cards.block(card)
    assert blocked.actor == "Cy"
    await desk.cards.reveal(card)
    lines, _ = await desk.session.card_ledger.audit_page(AuditQuery(profile.id, "test"))
    said = [(line.action, line.result, line.actor) for line in reversed(lines)]
    assert said == [
        ("create", "sent", "Ana"),
        ("create", "done", "Ana"),
        ("block", "sent", "Cy"),
        ("block", "done", "Cy"),
        ("reveal", "done", "Cy"),
    ]
    # found by the person's name, as the log's search finds a user
    found, _ = await desk.session.card_ledger.audit_page(AuditQuery(profile.id, "test", text="cy"))
    assert {line.actor for line in found} == {"Cy"} and len(found) == 3


async def test_an_export_says_who_made_each_record_and_is_noted(desk, add_profile, tmp_path):
    profile = await add_profile()
    desk.session.staff.signed_in(BEN)
    await desk.links.create(request("WHO-2"))
    desk.session.staff.signed_in(ANA)
    path = tmp_path / "list.csv"
    assert await desk.transactions.export(LinkQuery(profile.id, "test"), path) == 1
    with path.open(encoding="utf-8-sig", newline="") as handle:
        [row] = list(csv.DictReader(handle))
    assert row["tx_ref"] == "WHO-2" and row["by"] == "Ben"
    noted = (await desk.session.activity.page())[0]  # the newest
    assert (noted.action, noted.actor, noted.profile_id, noted.mode) == (EXPORT, "Ana", profile.id, "test")
    assert noted.detail == "Transactions: 1 record to list.csv"


async def test_an_audit_export_names_each_lines_person_and_is_noted(desk, add_profile, tmp_path):
    profile = await add_profile()
    desk.session.staff.signed_in(ANA)
    await desk.cards.create(profile, "test", Decimal(10), "USD", None)
    desk.session.staff.signed_in(BEN)
    path = await export_audit(
        desk.session.card_ledger, AuditQuery(profile.id, "test"), tmp_path / "a.csv", desk.session
    )
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["By"] for r in rows] == ["Ana", "Ana"]
    noted = (await desk.session.activity.page())[0]  # the newest
    assert (noted.action, noted.actor, noted.detail) == (EXPORT, "Ben", "Card audit: 2 lines to a.csv")


async def test_keys_saved_and_a_switch_to_live_are_noted_with_the_person(desk, add_profile, sandbox):
    profile = await add_profile()  # no staff yet: noted, by nobody
    [first] = await desk.session.activity.page()
    assert (first.action, first.actor, first.profile_id) == (KEYS_SAVED, None, profile.id)
    assert first.detail == f"{profile.name}: test secret, live secret"
    desk.session.staff.signed_in(ANA)
    again = profiles.keys_of(sandbox, profiles.TEST_SECRET)
    await desk.session.save_profile(profile, again)
    assert len(await desk.session.activity.page()) == 1  # the same key again: nothing changed
    await desk.session.save_profile(profile, {("live", "public"): "pk_live_new"})
    await desk.session.set_mode("live")
    await desk.session.set_mode("test")  # back to test: nothing to note
    noted = await desk.session.activity.page()
    assert [(a.action, a.actor, a.detail) for a in noted[:2]] == [
        (SWITCHED_TO_LIVE, "Ana", ""),
        (KEYS_SAVED, "Ana", f"{profile.name}: live public"),
    ]
    assert (noted[0].profile_id, noted[0].mode) == (profile.id, "live")
