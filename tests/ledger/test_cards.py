"""The card wallet's ledger: cards as last seen, one operation at a time per card, operations
finished once, an audit log the ledger itself keeps append-only, and no full card number.

Every rule on both backends (``wallet``: the file's SQLite, the shop's PostgreSQL); what only
one of them has is named for it (here the file's schema; tests/ledger/test_cards_postgres.py
the shared ledger's)."""

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from paydesk.ledger import SqliteLedger
from paydesk.ledger.cards import AuditDraft, AuditQuery, CardQuery, OperationDraft, OperationUnderWay, mask
from paydesk.ledger.schema import LATEST
from paydesk.ledger.sqlite.cards import SqliteCardLedger
from paydesk.service.models import CardState, CardTransaction, VirtualCard
from tests.card_ledgers import BACKENDS, open_wallet

PAN = "4123450000001234"


def card(n: int, **over) -> VirtualCard:
    fields = dict(
        card_hash=f"ch_{n:04d}",
        status=CardState.ACTIVE,
        status_raw=1,
        masked_card=f"412345******{n:04d}",
        card_pan=f"41234500000{n:05d}",
        cvv="123",
        expiration="2029-05",
        name_on_card=f"SHOP {n}",
        currency="GBP",
        currency_code="12",
        amount=Decimal("50.00"),
        charge=Decimal("1.50"),
        paid=Decimal("51.50"),
        balance=Decimal("50.00"),
        created_at=datetime(2026, 1, 1, 10, tzinfo=UTC) + timedelta(seconds=n),
    )
    fields.update(over)
    return VirtualCard(**fields)


def who(action="fund", result="sent", **over) -> AuditDraft:
    fields = dict(
        user="kim",
        profile_id="p1",
        profile_name="Shop",
        mode="test",
        action=action,
        result=result,
        card_hash="ch_0001",
        masked="412345******0001",
        amount=Decimal(5),
        currency="GBP",
    )
    fields.update(over)
    return AuditDraft(**fields)


@pytest.fixture(params=BACKENDS)
async def wallet(request, tmp_path):
    async with open_wallet(request.param, request, tmp_path) as opened:
        yield opened


@pytest.fixture
def cards(wallet):
    return wallet.cards


@pytest.fixture
async def both(tmp_path):
    """The file's ledger and its wallet (SQLite only)."""
    ledger = SqliteLedger(tmp_path / "ledger.sqlite3")
    await ledger.opened()
    yield ledger, SqliteCardLedger.beside(ledger)
    await ledger.close()


async def test_sqlite_schema_v4_holds_the_wallet(both, tmp_path):
    ledger, _ = both
    assert ledger.version == LATEST >= 5  # v6 added the paid index (refunds)
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as db:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    assert {
        "cards",
        "card_transactions",
        "card_operations",
        "card_audit",
        "card_lists",
        "card_audit_append_only_update",
        "card_audit_append_only_delete",
    } <= names


async def test_cards_are_stored_masked_and_paged_newest_first(wallet):
    cards = wallet.cards
    gone = await cards.store_cards("p1", "test", [card(n) for n in range(1, 251)])
    assert gone == []
    query = CardQuery("p1", "test")
    assert await cards.card_count(query) == 250
    first = await cards.card_page(query, limit=100)
    assert first.more and [r.card_hash for r in first.records[:2]] == ["ch_0250", "ch_0249"]
    second = await cards.card_page(query, after=first.end, limit=100)
    third = await cards.card_page(query, after=second.end, limit=100)
    seen = [r.card_hash for page in (first, second, third) for r in page.records]
    assert len(seen) == len(set(seen)) == 250 and not third.more
    one = await cards.card("p1", "test", "ch_0007")
    assert one.masked == "412345******0007" and one.last4 == "0007"
    assert one.balance == Decimal("50.00") and one.currency_code == "12" and one.state == 1
    assert await cards.card_count(CardQuery("p1", "live")) == 0  # modes apart
    dump = wallet.dump()
    assert "412345******0250" in dump
    assert all(f"41234500000{n:05d}" not in dump for n in range(1, 251))


async def test_search_by_masked_number_name_or_last_four_and_filter_by_state(cards):
    await cards.store_cards(
        "p1", "test", [card(1), card(2, name_on_card="Ada Lovelace"), card(3, status_raw=2, status=CardState.BLOCKED)]
    )

    async def hashes(**kw):
        page = await cards.card_page(CardQuery("p1", "test", **kw))
        return sorted(r.card_hash for r in page.records)

    assert await hashes(text="0002") == ["ch_0002"]  # last four
    assert await hashes(text="lovelace") == ["ch_0002"]  # name, any case
    assert await hashes(text="4123 45") == ["ch_0001", "ch_0002", "ch_0003"]  # typed in groups
    assert await hashes(text="%") == []  # LIKE's wildcards are plain characters
    assert await hashes(states=frozenset({2})) == ["ch_0003"]
    assert await hashes(states=frozenset({1}), text="0003") == []


async def test_a_card_missing_from_the_list_is_kept_and_marked(cards):
    await cards.store_cards("p1", "test", [card(1), card(2)])
    first = await cards.refreshed_at("p1", "test")
    await asyncio.sleep(0.002)
    gone = await cards.store_cards("p1", "test", [card(1, balance=Decimal("7.00"))])
    assert gone == ["ch_0002"]
    assert (await cards.card("p1", "test", "ch_0002")).listed is False
    kept = await cards.card("p1", "test", "ch_0001")
    assert kept.listed and kept.balance == Decimal("7.00")
    assert await cards.refreshed_at("p1", "test") > first
    # a create's answer has no balance: what was known stays
    again = await cards.store_card("p1", "test", card(1, balance=None))
    assert again.balance == Decimal("7.00")


async def test_the_ledger_refuses_a_full_number_as_masked(wallet):
    assert mask(None, PAN) == "412345******1234"
    assert mask(PAN) == "412345******1234"  # a service that sends the whole number as masked
    assert mask("4123 45** **** 1234") == "4123 45** **** 1234"
    stored = await wallet.cards.store_card("p1", "test", card(9, masked_card=PAN))
    assert stored.masked == "412345******1234"
    with pytest.raises(wallet.refused):
        wallet.sql("UPDATE cards SET masked = ?", (PAN,))
    with pytest.raises(wallet.refused):
        wallet.sql(
            'INSERT INTO card_audit (at, "user", profile_id, profile_name, mode, masked,'
            " action, result) VALUES ('2026-01-01T00:00:00Z', 'x', 'p1', 'Shop', 'test', ?,"
            " 'x', 'x')",
            (PAN,),
        )


async def test_one_operation_at_a_time_per_card(cards):
    fund = OperationDraft("p1", "test", "fund", "ch_0001", "412345******0001", Decimal(5), "GBP")
    first = await cards.begin_operation(fund, who())
    assert first.state == "sending" and first.amount == Decimal(5)
    with pytest.raises(OperationUnderWay, match="still under way"):
        await cards.begin_operation(fund, who())
    other_card = await cards.begin_operation(
        OperationDraft("p1", "test", "block", "ch_0002", "412345******0002"), who("block")
    )
    assert other_card.state == "sending"
    create = OperationDraft("p1", "test", "create", None, amount=Decimal(10), currency="GBP")
    creating = await cards.begin_operation(create, who("create"))
    with pytest.raises(OperationUnderWay, match="Another card creation"):
        await cards.begin_operation(create, who("create"))
    # (ids grow, but need not be consecutive: PostgreSQL's sequence skips the refused one)
    assert [o.id for o in await cards.open_operations()] == [first.id, other_card.id, creating.id]
    done = await cards.finish_operation(
        first.id, "done", "Card Funding successful", who(result="done"), evidence="tx-1"
    )
    assert done.state == "done" and done.evidence == "tx-1" and done.finished_at
    again = await cards.begin_operation(fund, who())  # the card is free again
    assert again.state == "sending"


async def test_an_operation_finishes_once(cards):
    op = await cards.begin_operation(
        OperationDraft("p1", "test", "withdraw", "ch_0001", "412345******0001", Decimal(3)), who()
    )
    lost = await cards.mark_lost(op.id, "The connection to the service was cut", who(result="answer lost"))
    assert lost.state == "lost"
    settled = await cards.finish_operation(op.id, "not-done", "No matching debit", who(result="not done"), settled=True)
    assert settled.state == "not-done" and settled.settled
    late = await cards.finish_operation(op.id, "done", "late answer", who(result="done"))
    assert late.state == "not-done"  # nothing changes it after
    lines = (await cards.audit_page(AuditQuery("p1", "test")))[0]
    assert [e.result for e in lines] == ["not done", "answer lost", "sent"]
    assert all(e.operation_id == op.id for e in lines)
    with pytest.raises(ValueError):
        await cards.finish_operation(op.id, "sending", "x", who())


async def test_the_audit_log_is_append_only(wallet):
    entry = await wallet.cards.append_audit(who("reveal", "done", amount=None))
    assert entry.user == "kim" and entry.masked == "412345******0001"
    with pytest.raises(wallet.refused, match="append-only"):
        wallet.sql("UPDATE card_audit SET result = 'refused' WHERE id = ?", (entry.id,))
    with pytest.raises(wallet.refused, match="append-only"):
        wallet.sql("DELETE FROM card_audit")
    assert wallet.sql("SELECT result FROM card_audit") == [("done",)]


async def test_audit_pages_and_filters(cards):
    for n in range(30):
        await cards.append_audit(
            who(
                "fund" if n % 3 else "block",
                "done" if n % 2 else "refused",
                masked=f"412345******{n:04d}",
                detail=f"line {n}",
            )
        )
    query = AuditQuery("p1", "test")
    page, more = await cards.audit_page(query, limit=20)
    assert more and len(page) == 20 and page[0].detail == "line 29"
    rest, more = await cards.audit_page(query, before=page[-1].id, limit=20)
    assert not more and len(rest) == 10
    assert await cards.audit_count(AuditQuery("p1", "test", action="block")) == 10
    assert await cards.audit_count(AuditQuery("p1", "test", result="refused")) == 15
    assert await cards.audit_count(AuditQuery("p1", "test", text="0007")) == 1
    assert await cards.audit_count(AuditQuery("p1", "live")) == 0


async def test_card_transactions_are_kept_newest_first(cards):
    def tx(n, kind="Credit", tx_id=None):
        return CardTransaction(
            id=tx_id if tx_id is not None else f"t{n}",
            card_hash="ch_0001",
            type=kind,
            amount=Decimal(n),
            description=f"d{n}",
            status="success",
            created_at=datetime(2026, 1, 1, 10, n, tzinfo=UTC),
        )

    await cards.store_transactions("p1", "test", "ch_0001", [tx(1), tx(2, "Debit")])
    await cards.store_transactions("p1", "test", "ch_0001", [tx(1), tx(2, "Debit"), tx(3), tx(4, tx_id="")])
    stored = await cards.transactions("p1", "test", "ch_0001")
    assert [t.description for t in stored] == ["d4", "d3", "d2", "d1"]
    assert stored[0].tx_id.startswith("h:") and stored[2].type == "Debit"
    assert stored[1].amount == Decimal("3.00")


async def test_operations_of_a_card_newest_first_and_the_services_own_words(cards):
    def tx(tx_id, description, kind="Credit"):
        return CardTransaction(
            id=tx_id,
            card_hash="ch_0001",
            type=kind,
            amount=Decimal(5),
            description=description,
            status="success",
            created_at=datetime(2026, 1, 1, 10, int(tx_id[1:]), tzinfo=UTC),
        )

    async def done(kind, n, evidence, **how):
        op = await cards.begin_operation(
            OperationDraft(
                "p1",
                "test",
                kind,
                f"ch_{n:04d}",
                f"412345******{n:04d}",
                None if kind == "block" else Decimal(5),
                "GBP",
            ),
            who(kind),
        )
        return await cards.finish_operation(op.id, "done", "ok", who(kind, "done"), evidence=evidence, **how)

    await cards.store_transactions(
        "p1", "test", "ch_0001", [tx("t1", "Card Funding"), tx("t2", "Withdrawal", "Debit"), tx("t4", "Shop")]
    )
    await cards.store_transactions("p1", "test", "ch_0002", [tx("t3", "")])
    funded = await done("fund", 1, "t1")  # the service said done: its words count
    withdrawn = await done("withdraw", 1, "t2", settled=True)  # decided by reading back: not
    blocked = await done("block", 1, None)
    other = await done("fund", 2, "t3")  # no words
    assert await cards.service_words("p1", "test", "fund") == {"Card Funding"}
    assert await cards.service_words("p1", "test", "withdraw") == set()
    assert await cards.service_words("p1", "live", "fund") == set()
    ids = [o.id for o in await cards.operations("p1", "test", "ch_0001")]
    assert ids == [blocked.id, withdrawn.id, funded.id]
    assert [o.id for o in await cards.operations("p1", "test", "ch_0001", kinds=("fund", "withdraw"))] == [
        withdrawn.id,
        funded.id,
    ]
    assert [o.id for o in await cards.operations("p1", "test", limit=2)] == [other.id, blocked.id]
    assert await cards.operations("p1", "live") == []
    await cards.attach_evidence(blocked.id, "t4")
    await cards.attach_evidence(blocked.id, "t9")  # it has its evidence: kept
    assert (await cards.operation(blocked.id)).evidence == "t4"
    assert await cards.operation(blocked.id + 1000) is None


async def test_the_services_late_answer_outranks_reading_back(cards):
    op = await cards.begin_operation(
        OperationDraft("p1", "test", "fund", "ch_0001", "412345******0001", Decimal(5)), who()
    )
    await cards.mark_lost(op.id, "cut", who(result="answer lost"))
    assert (await cards.mark_lost(op.id, "cut again", who(result="answer lost"))).result == "cut"
    read_back = await cards.finish_operation(
        op.id, "not-done", "No matching credit", who(result="not done"), settled=True
    )
    late = await cards.finish_operation(
        op.id, "done", "Card Funding successful", who(result="done"), evidence="t1", answered=True
    )
    assert (read_back.state, read_back.settled) == ("not-done", True)
    assert (late.state, late.settled, late.evidence) == ("done", False, "t1")
    assert late.started_at <= late.finished_at and late.started_at.tzinfo is not None
    assert await cards.audit_count(AuditQuery("p1", "test")) == 4


async def test_a_state_noted_and_times_the_service_did_not_give(cards):
    await cards.store_cards("p1", "test", [card(1), card(2), card(3, created_at=None)])
    terminated = await cards.note_state("p1", "test", "ch_0001", 0)
    assert terminated.state == 0 and terminated.balance == Decimal("0.00")
    assert (await cards.note_state("p1", "test", "ch_0002", 2)).balance == Decimal("50.00")
    assert await cards.note_state("p1", "test", "ch_none", 2) is None
    undated = await cards.card("p1", "test", "ch_0003")
    assert undated.created_at is None and undated.seen_at.tzinfo is not None
    query, seen, after = CardQuery("p1", "test"), [], None
    while True:  # one card a page: the undated one comes last
        page = await cards.card_page(query, after=after, limit=1)
        seen += [r.card_hash for r in page.records]
        if not page.more:
            break
        after = page.end
    assert seen == ["ch_0002", "ch_0001", "ch_0003"]
    assert await cards.card_count(CardQuery("p1", "test", states=frozenset({0, 2}))) == 2
    await cards.store_transactions(
        "p1",
        "test",
        "ch_0001",
        [
            CardTransaction(
                id="t1",
                card_hash="ch_0001",
                type="Credit",
                amount=Decimal(1),
                description="a",
                status=None,
                created_at=None,
            ),
            CardTransaction(
                id="t2",
                card_hash="ch_0001",
                type="Debit",
                amount=None,
                description="b",
                status=None,
                created_at=datetime(2026, 1, 1, 10),
            ),
        ],
    )  # no zone: UTC
    stored = await cards.transactions("p1", "test", "ch_0001")
    assert [(t.tx_id, t.created_at) for t in stored] == [("t2", datetime(2026, 1, 1, 10, tzinfo=UTC)), ("t1", None)]
    assert stored[0].amount is None and stored[1].amount == Decimal("1.00")
    assert await cards.transactions("p1", "test", "ch_0001", limit=1) == stored[:1]
    assert await cards.refreshed_at("p1", "live") is None
