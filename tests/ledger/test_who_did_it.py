"""Who did it, on both backends: the person signed in is kept beside a counter's sale, void,
decision and shift (opened, closed), and the activity book keeps what has no record of its
own (an export, keys saved, a switch to live), newest first, a page at a time, append-only.
None is kept as None: a shop without staff."""

from dataclasses import replace
from decimal import Decimal

import pytest

from paydesk.ledger import LinkQuery, SqliteLedger
from paydesk.ledger.activity import EXPORT, KEYS_SAVED, SWITCHED_TO_LIVE, ActivityBook
from paydesk.ledger.cards import AuditDraft, AuditQuery, OperationDraft
from paydesk.ledger.counter import KEEP, SaleQuery
from paydesk.service.models import PaymentLink
from tests.ledger.test_counter_book import linked, request, settled
from tests.link_ledgers import book_beside


def activity_beside(ledger) -> ActivityBook:
    if isinstance(ledger, SqliteLedger):
        from paydesk.ledger.sqlite.activity import SqliteActivityBook

        return SqliteActivityBook.beside(ledger)
    from paydesk.ledger.postgres.activity import PostgresActivityBook

    return PostgresActivityBook(ledger._engine)


async def test_a_counter_book_keeps_who_did_each_thing(ledger):
    book = book_beside(ledger)
    shift = await book.open_shift("Till 1", "p1", "test", "till-login", actor="Ana")
    assert shift.opened_actor == "Ana" and shift.opened_by == "till-login"
    await book.add_sale(shift.id, "S-1", "till-login", actor="Ana")
    await linked(ledger, "S-1")
    sale = await book.sale("p1", "S-1")
    assert (sale.actor, sale.voided_actor, sale.decided_actor) == ("Ana", None, None)
    voided = await book.void("p1", "S-1", "till-login", actor="Ben")
    assert (voided.actor, voided.voided_actor) == ("Ana", "Ben")
    await settled(ledger, "S-1", "success")  # paid after its void
    decided = await book.decide("p1", "S-1", KEEP, "till-login", actor="Carla")
    assert (decided.actor, decided.voided_actor, decided.decided_actor) == ("Ana", "Ben", "Carla")
    listed = await book.sales(SaleQuery(shift_id=shift.id))
    assert [(s.actor, s.voided_actor, s.decided_actor) for s in listed] == [("Ana", "Ben", "Carla")]
    closed = await book.close_shift(shift.id, "till-login", actor="Dan")
    assert (closed.opened_actor, closed.closed_actor, closed.closed_by) == ("Ana", "Dan", "till-login")
    assert [(s.opened_actor, s.closed_actor) for s in await book.shifts(profile_id="p1")] == [("Ana", "Dan")]


async def test_without_staff_nobody_is_named(ledger):
    book = book_beside(ledger)
    shift = await book.open_shift("Till 1", "p1", "test", "till-login")
    await book.add_sale(shift.id, "S-1", "till-login")
    closed = await book.close_shift(shift.id, "till-login")
    sale = await book.sale("p1", "S-1")
    assert (sale.actor, closed.opened_actor, closed.closed_actor) == (None, None, None)


async def test_the_activity_book_pages_newest_first(ledger):
    book = activity_beside(ledger)
    assert await book.page() == [] and await book.count() == 0
    first = await book.note(EXPORT, "Ana", profile_id="p1", mode="test", detail="Transactions to may.csv")
    await book.note(KEYS_SAVED, None, profile_id="p1", detail="Corner shop")
    third = await book.note(SWITCHED_TO_LIVE, "Ben", profile_id="p1", mode="live")
    assert first.at.tzinfo is not None and first.actor == "Ana" and first.detail == "Transactions to may.csv"
    assert await book.count() == 3
    page = await book.page(limit=2)
    assert [(a.action, a.actor) for a in page] == [(SWITCHED_TO_LIVE, "Ben"), (KEYS_SAVED, None)]
    assert page[0] == third and (third.profile_id, third.mode) == ("p1", "live")
    rest = await book.page(before=page[-1].id, limit=2)
    assert rest == [first]
    with pytest.raises(ValueError):
        await book.note("deleted everything", "Ana")


async def test_the_activity_book_is_append_only(ledger):
    book = activity_beside(ledger)
    await book.note(EXPORT, "Ana")
    for sql in ("UPDATE activity SET actor = 'Eve'", "DELETE FROM activity"):
        with pytest.raises(Exception, match="append-only"):
            await ledger._engine.write(lambda conn, sql=sql: conn.execute(sql))
    assert [a.actor for a in await book.page()] == ["Ana"]


def cards_beside(ledger):
    if isinstance(ledger, SqliteLedger):
        from paydesk.ledger.sqlite.cards import SqliteCardLedger

        return SqliteCardLedger.beside(ledger)
    from paydesk.ledger.postgres.cards import PostgresCardLedger

    return PostgresCardLedger(ledger._engine)


async def test_a_link_keeps_who_made_it_and_a_lookup_names_nobody(ledger):
    made = await ledger.begin_link("p1", "test", request("L-1"), actor="Ana")
    assert made.actor == "Ana"
    done = await ledger.complete_link("p1", PaymentLink("L-1", "http://h/pay/L-1"))
    assert done.actor == "Ana" and (await ledger.get("p1", "L-1")).actor == "Ana"
    paid = await settled(ledger, "L-1", "success")  # a check: the maker stays
    assert paid.actor == "Ana"
    looked_up = await settled(ledger, "WEB-1", "pending")  # made elsewhere: nobody here
    assert looked_up.actor is None
    page = await ledger.page(LinkQuery("p1", "test"))
    assert {r.tx_ref: r.actor for r in page.records} == {"L-1": "Ana", "WEB-1": None}


async def test_a_card_operation_and_its_audit_lines_keep_who_sent_them(ledger):
    cards = cards_beside(ledger)
    draft = OperationDraft("p1", "test", "fund", "ch_1", "412345******0001", Decimal(5), "GBP", actor="Ana")
    line = AuditDraft(user="till", profile_id="p1", profile_name="Shop", mode="test", action="fund", result="sent")
    op = await cards.begin_operation(draft, replace(line, actor="Ana"))
    assert op.actor == "Ana" and (await cards.operation(op.id)).actor == "Ana"
    await cards.finish_operation(op.id, "done", "funded", replace(line, result="checked: done"), settled=True)
    lines, _ = await cards.audit_page(AuditQuery("p1", "test"))
    assert [(e.result, e.actor, e.user) for e in lines] == [("checked: done", None, "till"), ("sent", "Ana", "till")]
    found, _ = await cards.audit_page(AuditQuery("p1", "test", text="ANA"))
    assert [e.result for e in found] == ["sent"]
