"""The card wallet on the shop's shared ledger (PostgreSQL) only: what several desks on one
database need beyond the rules tests/ledger/test_cards.py proves on both backends. The
audit stays append-only whoever writes to the database; two desks never have two operations
open on one card; what one desk begins, finishes or stores, the others see, and each change
leaves its event (and rings the doorbell) in its own transaction."""

import asyncio
from decimal import Decimal

import psycopg
import pytest

from paydesk.ledger.cards import AuditDraft, AuditQuery, OperationDraft, OperationUnderWay
from paydesk.ledger.errors import LedgerError
from paydesk.ledger.postgres.engine import LedgerUnreachable
from paydesk.service.models import CardState, CardTransaction, VirtualCard
from tests.card_ledgers import another_desk, open_wallet

pytestmark = pytest.mark.postgresql  # its wallet asks for the cluster inside the fixture


def card(n: int) -> VirtualCard:
    return VirtualCard(
        card_hash=f"ch_{n:04d}",
        status=CardState.ACTIVE,
        status_raw=1,
        masked_card=f"412345******{n:04d}",
        name_on_card=f"SHOP {n}",
        currency_code="12",
        balance=Decimal("50.00"),
    )


def who(action="fund", result="sent", n=1) -> AuditDraft:
    return AuditDraft(
        user="kim",
        profile_id="p1",
        profile_name="Shop",
        mode="test",
        action=action,
        result=result,
        card_hash=f"ch_{n:04d}",
        masked=f"412345******{n:04d}",
        amount=Decimal(5),
        currency="GBP",
    )


def fund(n: int = 1) -> OperationDraft:
    return OperationDraft("p1", "test", "fund", f"ch_{n:04d}", f"412345******{n:04d}", Decimal(5), "GBP")


@pytest.fixture
async def wallet(request, tmp_path):
    async with open_wallet("postgresql", request, tmp_path) as opened:
        yield opened


@pytest.fixture
async def desk_b(wallet):
    """The same database from a second desk, with an engine of its own."""
    return await another_desk(wallet, "desk-b")


async def test_postgresql_migration_2_holds_the_wallet(wallet):
    assert (2,) in wallet.sql("SELECT version FROM schema_migrations")
    tables = {r[0] for r in wallet.sql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert {"cards", "card_lists", "card_transactions", "card_operations", "card_audit"} <= tables
    triggers = {r[0] for r in wallet.sql("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")}
    assert {"card_audit_append_only", "card_audit_no_truncate"} <= triggers
    # the importer's key: an operation or audit line imported twice is refused the second time
    for table in ("card_operations", "card_audit"):
        assert wallet.sql(
            "SELECT is_nullable FROM information_schema.columns WHERE table_name = ? AND column_name = 'origin_key'",
            (table,),
        ) == [("YES",)]
    op = await wallet.cards.begin_operation(fund(), who())
    wallet.sql("UPDATE card_operations SET origin_key = 'desk-x:1' WHERE id = ?", (op.id,))
    with pytest.raises(psycopg.errors.UniqueViolation):
        wallet.sql(
            "INSERT INTO card_operations (profile_id, mode, kind, state, started_at,"
            " origin_key) VALUES ('p1', 'test', 'fund', 'done', now(), 'desk-x:1')"
        )


async def test_the_shared_audit_refuses_update_delete_and_truncate_from_raw_sql(wallet):
    entry = await wallet.cards.append_audit(who("reveal", "done"))
    for statement in (
        "UPDATE card_audit SET result = 'refused'",
        "DELETE FROM card_audit",
        "TRUNCATE card_audit",
        "TRUNCATE card_audit CASCADE",
    ):
        with pytest.raises(psycopg.IntegrityError, match="append-only"):
            wallet.sql(statement)
    with (
        wallet.raw() as db,
        pytest.raises(psycopg.IntegrityError, match="append-only"),
        db.transaction(),
    ):  # inside a transaction as well as alone
        db.execute("DELETE FROM card_audit WHERE id = %s", (entry.id,))
    assert wallet.sql("SELECT id, result FROM card_audit") == [(entry.id, "done")]


async def test_two_desks_cannot_open_two_operations_on_one_card_at_once(wallet, desk_b):
    desk_a = wallet.cards
    for n in range(1, 11):  # each card asked for by both desks at the same moment
        results = await asyncio.gather(
            desk_a.begin_operation(fund(n), who(n=n)), desk_b.begin_operation(fund(n), who(n=n)), return_exceptions=True
        )
        refused = [r for r in results if isinstance(r, OperationUnderWay)]
        begun = [r for r in results if not isinstance(r, BaseException)]
        assert len(refused) == 1 and len(begun) == 1, results
    create = OperationDraft("p1", "test", "create", None, amount=Decimal(10), currency="GBP")
    results = await asyncio.gather(
        desk_a.begin_operation(create, who("create")),
        desk_b.begin_operation(create, who("create")),
        return_exceptions=True,
    )
    assert sum(isinstance(r, OperationUnderWay) for r in results) == 1, results
    assert len(await desk_a.open_operations()) == 11
    # one audit line for each operation begun, none for those refused
    assert await desk_b.audit_count(AuditQuery("p1", "test")) == 11


async def test_an_operation_begun_at_one_desk_is_seen_and_settled_at_another(wallet, desk_b):
    desk_a = wallet.cards
    op = await desk_a.begin_operation(fund(), who())
    seen = await desk_b.open_operations("p1")
    assert [(o.id, o.state, o.card_hash, o.amount) for o in seen] == [(op.id, "sending", "ch_0001", Decimal("5.00"))]
    with pytest.raises(OperationUnderWay):
        await desk_b.begin_operation(fund(), who())
    await desk_a.mark_lost(op.id, "The connection to the service was cut", who(result="answer lost"))
    done = await desk_b.finish_operation(op.id, "done", "read back", who(result="done"), evidence="tx-9", settled=True)
    assert (await desk_a.operation(op.id)) == done and done.state == "done"
    assert await desk_a.open_operations() == []
    lines, _ = await desk_a.audit_page(AuditQuery("p1", "test"))
    assert [e.result for e in lines] == ["done", "answer lost", "sent"]


async def test_two_desks_finishing_one_operation_finish_it_once(wallet, desk_b):
    desk_a = wallet.cards
    for n in range(1, 6):
        op = await desk_a.begin_operation(fund(n), who(n=n))
        results = await asyncio.gather(
            desk_a.finish_operation(op.id, "done", "answered", who(result="done", n=n)),
            desk_b.finish_operation(op.id, "not-done", "read back", who(result="not done", n=n), settled=True),
        )
        assert results[0] == results[1]  # the second found it finished, and left it so
        lines, _ = await desk_b.audit_page(AuditQuery("p1", "test", text=f"{n:04d}"))
        assert [e.result for e in lines][1:] == ["sent"] and len(lines) == 2


async def test_every_change_leaves_its_event_and_rings_the_doorbell(wallet, desk_b):
    cards = wallet.cards
    with psycopg.connect(wallet.url, autocommit=True) as listening:
        listening.execute("LISTEN paydesk_events")
        await cards.store_cards("p1", "test", [card(1), card(2)])
        await cards.store_card("p1", "test", card(3))
        await cards.note_state("p1", "test", "ch_0003", 2)
        await cards.store_transactions(
            "p1",
            "test",
            "ch_0001",
            [
                CardTransaction(
                    id="t1",
                    card_hash="ch_0001",
                    type="Credit",
                    amount=Decimal(5),
                    description="Funded",
                    status="success",
                    created_at=None,
                )
            ],
        )
        op = await cards.begin_operation(fund(), who())
        with pytest.raises(OperationUnderWay):
            await cards.begin_operation(fund(), who())  # refused: nothing written, no event
        await cards.mark_lost(op.id, "cut", who(result="answer lost"))
        await cards.finish_operation(op.id, "done", "read back", who(result="done"), settled=True)
        await cards.finish_operation(op.id, "done", "again", who(result="done"))  # no change
        await cards.attach_evidence(op.id, "t1")
        await cards.attach_evidence(op.id, "t2")  # already has one: no change
        entry = await desk_b.append_audit(who("reveal", "done"))
        events = wallet.sql("SELECT id, desk, kind, profile_id, mode, key FROM events ORDER BY id")
        rung = [int(n.payload) for n in listening.notifies(timeout=5, stop_after=len(events))]
    assert rung == [e[0] for e in events]  # the doorbell carries each event's id, in order
    audit_ids = [e.id for e in (await cards.audit_page(AuditQuery("p1", "test")))[0]][::-1]
    assert [e[1:] for e in events] == [
        ("desk-a", "cards", "p1", "test", ""),
        ("desk-a", "card", "p1", "test", "ch_0003"),
        ("desk-a", "card", "p1", "test", "ch_0003"),
        ("desk-a", "card_tx", "p1", "test", "ch_0001"),
        ("desk-a", "audit", "p1", "test", str(audit_ids[0])),
        ("desk-a", "operation", "p1", "test", str(op.id)),
        ("desk-a", "audit", "p1", "test", str(audit_ids[1])),
        ("desk-a", "operation", "p1", "test", str(op.id)),
        ("desk-a", "audit", "p1", "test", str(audit_ids[2])),
        ("desk-a", "operation", "p1", "test", str(op.id)),
        ("desk-a", "operation", "p1", "test", str(op.id)),
        ("desk-b", "audit", "p1", "test", str(entry.id)),
    ]


async def test_two_desks_storing_one_list_at_once_keep_every_card(wallet, desk_b):
    listing = [card(n) for n in range(1, 81)]
    gone = await asyncio.gather(
        wallet.cards.store_cards("p1", "test", listing), desk_b.store_cards("p1", "test", listing[::-1])
    )
    assert gone == [[], []]
    assert wallet.sql("SELECT count(*) FROM cards WHERE listed") == [(80,)]
    assert await desk_b.refreshed_at("p1", "test") is not None


async def test_no_card_operation_begins_while_the_shared_ledger_is_unreachable(wallet, pg_server):
    with pg_server.down():
        with pytest.raises(LedgerUnreachable, match="unreachable since") as refused:
            await wallet.cards.begin_operation(fund(), who())
        assert isinstance(refused.value, LedgerError)  # what the wallet already shows the user
    assert await wallet.cards.open_operations() == []  # nothing was written, so nothing sent
    begun = await wallet.cards.begin_operation(fund(), who())  # back: it begins
    assert begun.state == "sending"
