"""The batches' book on both backends (a desk's SQLite file, a shop's PostgreSQL): a batch and
its rows written in one go, the reference each row maps to (its own, or the batch's prefix
and its number), a corrected file adding only what is missing, a row's state derived from its
link, the figures counted in SQL, e-mail notes (the latest wins), the batches that still have
rows waiting, and what the tables refuse."""

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from paydesk.ledger import LedgerError, SqliteLedger
from paydesk.ledger.batch import (
    CREATED,
    CREATING,
    FAILED,
    NOT_SENT,
    PAID,
    REFUSED,
    SENT,
    SKIPPED,
    WAITING,
    BatchFigures,
    new_prefix,
)
from paydesk.ledger.schema import LATEST
from paydesk.service.models import PaymentLink, PaymentRequest, Transaction, TransactionState
from tests.link_ledgers import batches_beside, below, same_store

TABLES = ("batches", "batch_rows", "batch_emails")


@pytest.fixture
def book(ledger):
    return batches_beside(ledger)


def values(n, **extra):
    return {
        "amount": str(n),
        "currency": "GBP",
        "email": f"c{n}@example.com",
        "first_name": "Ann",
        "last_name": f"Row{n}",
        "title": "Term fees",
        **extra,
    }


def rows(*numbers, skipped=(), refs=None):
    refs = refs or {}
    return [(n, refs.get(n, ""), values(n), n in skipped) for n in numbers]


def request(row):
    v = row.values
    return PaymentRequest(
        amount=Decimal(v["amount"]),
        currency=v["currency"],
        email=v["email"],
        first_name=v["first_name"],
        last_name=v["last_name"],
        tx_ref=row.tx_ref,
        title=v["title"],
    )


async def sent(ledger, row, profile="p1", mode="test"):
    await ledger.begin_link(profile, mode, request(row))
    return await ledger.complete_link(profile, PaymentLink(row.tx_ref, f"http://h/pay/{row.tx_ref}"))


async def settled(ledger, ref, state, profile="p1", mode="test"):
    tx = Transaction(tx_ref=ref, status=TransactionState.read(state), status_raw=state, raw={"status": state})
    record, _ = await ledger.record_lookup(profile, mode, tx)
    return record


async def test_the_book_is_in_the_schema(ledger, book):
    if isinstance(ledger, SqliteLedger):  # the file's v9
        assert ledger.version == LATEST >= 9
        names = await ledger._engine.read(
            lambda db: [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()]
        )
    else:  # the shared ledger's migration 5
        from paydesk.ledger.postgres.schema import KNOWN

        assert ledger._engine.version == KNOWN >= 5
        names = await ledger._engine.read(
            lambda conn: [
                r["tablename"]
                for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
            ]
        )
    assert set(TABLES) <= set(names)


def test_a_prefix_is_the_profiles_and_six_characters():
    one, two = new_prefix("SHOP"), new_prefix("SHOP")
    assert re.fullmatch(r"SHOP-[0-9A-HJKMNP-TV-Z]{6}", one) and one != two


async def test_a_batch_and_its_rows_are_written_together(book):
    batch = await book.add_batch(
        "p1",
        "test",
        "October fees",
        "fees.csv",
        "skip",
        "ann",
        rows(2, 3, 5, skipped=(5,), refs={3: "OWN-REF-3"}),
        txref_prefix="SCH",
    )
    assert (batch.profile_id, batch.mode, batch.name, batch.file_name, batch.made_by, batch.policy, batch.rows) == (
        "p1",
        "test",
        "October fees",
        "fees.csv",
        "ann",
        "skip",
        3,
    )
    assert batch.prefix.startswith("SCH-") and batch.made_at.tzinfo is not None
    assert await book.batch(batch.id) == batch
    assert await book.batch(batch.id + 100) is None
    got = await book.rows(batch.id)
    assert [(r.number, r.tx_ref, r.state) for r in got] == [
        (2, f"{batch.prefix}-00002", WAITING),
        (3, "OWN-REF-3", WAITING),
        (5, "", SKIPPED),
    ]  # a skipped row holds no reference
    assert got[0].tx_ref == batch.ref(2) and got[0].values == values(2)
    assert got[0].record is None and got[0].email_state is None and not got[0].skipped
    assert got[2].skipped
    assert await book.row(batch.id, 3) == got[1]
    assert await book.row(batch.id, 4) is None
    assert await book.figures(batch.id) == BatchFigures(rows=3, waiting=2, skipped=1)
    with pytest.raises(ValueError):
        await book.add_batch("p1", "test", "x", "x.csv", "maybe", "ann", rows(2))


async def test_rows_are_paged_by_number_and_by_state(book, ledger):
    batch = await book.add_batch("p1", "test", "big", "big.csv", "skip", "ann", rows(*range(2, 12), skipped=(4,)))
    first = await book.rows(batch.id, limit=4)
    assert [r.number for r in first] == [2, 3, 4, 5]
    assert [r.number for r in await book.rows(batch.id, after=5, limit=4)] == [6, 7, 8, 9]
    await sent(ledger, first[0])
    waiting = await book.rows(batch.id, states=(WAITING,), limit=3)
    assert [r.number for r in waiting] == [3, 5, 6]
    assert [r.number for r in await book.rows(batch.id, states=(WAITING,), after=6, limit=100)] == [7, 8, 9, 10, 11]
    assert [r.number for r in await book.rows(batch.id, states=(CREATED, SKIPPED))] == [2, 4]
    with pytest.raises(ValueError):
        await book.rows(batch.id, states=("lost",))


async def test_a_rows_state_follows_its_link(book, ledger):
    batch = await book.add_batch("p1", "test", "b", "b.csv", "skip", "ann", rows(*range(2, 9)))
    r = {row.number: row for row in await book.rows(batch.id)}
    await ledger.begin_link("p1", "test", request(r[2]))  # intent written, no answer yet
    for n in range(3, 9):
        await sent(ledger, r[n])
    await settled(ledger, r[4].tx_ref, "success")
    await settled(ledger, r[5].tx_ref, "failed")
    await settled(ledger, r[6].tx_ref, "cancelled")
    await settled(ledger, r[7].tx_ref, "refunded")
    now = {row.number: row for row in await book.rows(batch.id)}
    assert {n: row.state for n, row in now.items()} == {
        2: CREATING,
        3: CREATED,
        4: PAID,
        5: FAILED,
        6: FAILED,
        7: PAID,
        8: CREATED,
    }
    assert now[3].record.checkout_url == f"http://h/pay/{r[3].tx_ref}"
    assert now[3].record.tx_ref == r[3].tx_ref
    assert await book.figures(batch.id) == BatchFigures(rows=7, creating=1, created=2, paid=2, failed=2)
    refused = await book.add_batch("p1", "test", "c", "c.csv", "skip", "ann", rows(2))
    row = (await book.rows(refused.id))[0]
    await ledger.begin_link("p1", "test", request(row))
    await ledger.reject_link("p1", row.tx_ref, "no such currency")
    row = await book.row(refused.id, 2)
    assert row.state == REFUSED and row.record.error == "no such currency"


async def test_a_row_of_another_profile_is_not_its_link(book, ledger):
    batch = await book.add_batch("p1", "test", "b", "b.csv", "skip", "ann", rows(2))
    row = (await book.rows(batch.id))[0]
    await sent(ledger, row, profile="p2")  # the same reference, another merchant
    assert (await book.row(batch.id, 2)).state == WAITING


async def test_a_corrected_file_adds_only_what_is_missing(book, ledger):
    batch = await book.add_batch("p1", "test", "fees", "fees.csv", "skip", "ann", rows(2, 3, 4, skipped=(3,)))
    before = {r.number: r for r in await book.rows(batch.id)}
    await sent(ledger, before[2])
    assert await book.find("p1", "test", "fees.csv") == batch
    assert await book.find("p1", "live", "fees.csv") is None
    assert await book.find("p1", "test", "other.csv") is None
    fixed = [
        (2, "", values(2, title="changed"), False),  # sent: stays as it was
        (3, "OTHER-REF", values(3, email="fixed@example.com"), False),  # unskipped
        (4, "", values(4), True),  # now skipped (never sent)
        (6, "", values(6), False),
    ]  # new
    assert await book.add_rows(batch.id, fixed) == 3
    after = {r.number: r for r in await book.rows(batch.id)}
    assert after[2].values == values(2) and after[2].state == CREATED
    assert before[3].tx_ref == ""  # a skipped row holds no reference...
    assert after[3].tx_ref == "OTHER-REF"  # ...until made valid: the corrected file's
    assert after[3].values["email"] == "fixed@example.com" and after[3].state == WAITING
    assert after[4].tx_ref == before[4].tx_ref  # a row keeps its reference
    assert after[4].state == SKIPPED
    assert after[6].tx_ref == batch.ref(6) and after[6].state == WAITING
    assert (await book.batch(batch.id)).rows == 4
    assert await book.add_rows(batch.id, [(2, "", values(2), False)]) == 0
    with pytest.raises(LedgerError):
        await book.add_rows(batch.id + 100, fixed)
    newer = await book.add_batch("p1", "test", "fees again", "fees.csv", "all", "bob", rows(2))
    assert (await book.find("p1", "test", "fees.csv")).id == newer.id  # the newest of a name


async def test_a_skipped_row_never_reads_another_payments_link(book, ledger):
    """A row skipped because its reference is another payment's (in the ledger, or twice in
    the file) holds no reference: it is skipped, with no record, in the figures and pages."""
    other = await book.add_batch("p1", "test", "a", "a.csv", "skip", "me", [(2, "INV-1", values(1), False)])
    await sent(ledger, (await book.rows(other.id))[0])
    batch = await book.add_batch(
        "p1",
        "test",
        "b",
        "b.csv",
        "skip",
        "me",
        [
            (2, "INV-1", values(99), True),  # in the ledger
            (3, "INV-2", values(3), True),  # twice in the file
            (4, "INV-2", values(4), True),
        ],
    )
    assert [(r.tx_ref, r.state, r.record) for r in await book.rows(batch.id)] == [("", SKIPPED, None)] * 3
    assert await book.rows(batch.id, states=(CREATED, PAID, WAITING)) == []
    assert await book.figures(batch.id) == BatchFigures(rows=3, skipped=3)
    assert await book.batch_of("p1", "INV-1") == other.id
    assert await book.unfinished("p1", "test") == []
    # one of the file's twins given another reference: it takes it; the other stays skipped
    assert await book.add_rows(batch.id, [(4, "INV-4", values(4), False)]) == 1
    row = await book.row(batch.id, 4)
    assert (row.tx_ref, row.state, row.record) == ("INV-4", WAITING, None)
    await sent(ledger, row)
    assert (await book.row(batch.id, 4)).state == CREATED
    assert (await book.row(batch.id, 3)).state == SKIPPED


async def test_a_reference_fixed_in_a_corrected_file_is_used(book):
    """Rows skipped for a reference Excel damaged (1.23E+15), fixed in the corrected file,
    are sent with the fixed references, each its own; a row without one takes the batch's."""
    damaged = "1.23E+15"
    batch = await book.add_batch(
        "p1",
        "test",
        "a",
        "a.csv",
        "skip",
        "me",
        [
            (2, damaged, values(1, tx_ref=damaged), True),
            (3, damaged, values(2, tx_ref=damaged), True),
            (4, "", values(3), True),
        ],
    )
    fixed = [
        (2, "1230000000000001", values(1, tx_ref="1230000000000001"), False),
        (3, "1230000000000002", values(2, tx_ref="1230000000000002"), False),
        (4, "", values(3), False),
    ]
    assert await book.add_rows(batch.id, fixed) == 3
    waiting = await book.rows(batch.id, states=(WAITING,))
    assert [(r.number, r.tx_ref) for r in waiting] == [
        (2, "1230000000000001"),
        (3, "1230000000000002"),
        (4, batch.ref(4)),
    ]
    assert all(r.tx_ref == (r.values.get("tx_ref") or batch.ref(r.number)) for r in waiting)
    # set once: the same rows again change nothing, another reference cannot replace it
    assert await book.add_rows(batch.id, fixed) == 0
    await book.add_rows(batch.id, [(2, "OTHER", values(1, tx_ref="OTHER"), False)])
    assert (await book.row(batch.id, 2)).tx_ref == "1230000000000001"


async def test_batches_newest_first_by_profile_and_mode(book):
    made = [await book.add_batch("p1", "test", f"b{i}", f"{i}.csv", "skip", "ann", rows(2)) for i in range(5)]
    await book.add_batch("p1", "live", "live", "l.csv", "skip", "ann", rows(2))
    await book.add_batch("p2", "test", "other", "o.csv", "skip", "ann", rows(2))
    listed = await book.batches("p1", "test")
    assert [b.id for b in listed] == [b.id for b in reversed(made)]
    page = await book.batches("p1", "test", before=made[3].id, limit=2)
    assert [b.id for b in page] == [made[2].id, made[1].id]


async def test_email_notes_the_latest_wins(book):
    batch = await book.add_batch("p1", "test", "b", "b.csv", "skip", "ann", rows(2, 3))
    before = datetime.now(UTC)
    await book.note_email(batch.id, 2, False, "mailbox full")
    row = await book.row(batch.id, 2)
    assert (row.email_state, row.email_error) == (NOT_SENT, "mailbox full")
    failed_at = row.email_at
    assert failed_at.tzinfo is not None and before - timedelta(seconds=1) <= failed_at
    await book.note_email(batch.id, 2, True)
    row = await book.row(batch.id, 2)
    assert (row.email_state, row.email_error) == (SENT, None)
    assert failed_at <= row.email_at <= datetime.now(UTC) + timedelta(seconds=1)
    assert (await book.rows(batch.id))[0].email_at == row.email_at  # a page says it too
    never = await book.row(batch.id, 3)
    assert never.email_state is None and never.email_at is None
    with pytest.raises(LedgerError):
        await book.note_email(batch.id, 9, True)


async def test_unfinished_batches_have_rows_waiting(book, ledger):
    done = await book.add_batch("p1", "test", "done", "d.csv", "skip", "ann", rows(2, 3, skipped=(3,)))
    await sent(ledger, (await book.rows(done.id))[0])
    half = await book.add_batch("p1", "test", "half", "h.csv", "skip", "ann", rows(2, 3))
    await sent(ledger, (await book.rows(half.id))[0])
    await book.add_batch("p1", "live", "other mode", "h.csv", "skip", "ann", rows(2))
    assert [b.id for b in await book.unfinished("p1", "test")] == [half.id]
    assert await book.batch_of("p1", half.ref(3)) == half.id
    assert await book.batch_of("p1", "NOT-A-ROW") is None


async def test_another_desk_sees_the_batch(book, ledger):
    batch = await book.add_batch("p1", "test", "b", "b.csv", "skip", "ann", rows(2, 3))
    other = same_store(ledger)
    await other.opened()
    try:
        assert await batches_beside(other).batch(batch.id) == batch
    finally:
        await other.close()


async def test_what_the_tables_refuse(book, ledger):
    batch = await book.add_batch("p1", "test", "b", "b.csv", "skip", "ann", rows(2))
    await book.note_email(batch.id, 2, True)
    for sql in (
        "UPDATE batches SET name = 'x'",
        "DELETE FROM batches",
        "DELETE FROM batch_rows",
        "UPDATE batch_rows SET tx_ref = 'x'",
        "UPDATE batch_rows SET number = 9",
        "UPDATE batch_emails SET ok = 0",
        "DELETE FROM batch_emails",
    ):
        with pytest.raises(Exception, match="batch book is append-only|keeps its batch"):
            await below(ledger, sql)
    assert (await book.row(batch.id, 2)).tx_ref == batch.ref(2)
    # a skipped row's reference (none) is set once, then kept
    skipped = await book.add_batch("p1", "test", "s", "s.csv", "skip", "ann", rows(2, skipped=(2,)))
    where = f"WHERE batch_id = {skipped.id}"
    await below(ledger, f"UPDATE batch_rows SET tx_ref = 'SET-ONCE' {where}")
    with pytest.raises(Exception, match="keeps its batch"):
        await below(ledger, f"UPDATE batch_rows SET tx_ref = 'AGAIN' {where}")
    with pytest.raises(Exception, match="keeps its batch"):
        await below(ledger, f"UPDATE batch_rows SET tx_ref = NULL {where}")
    assert (await book.row(skipped.id, 2)).tx_ref == "SET-ONCE"


async def test_every_write_on_the_shared_ledger_is_an_event(ledger, book):
    if isinstance(ledger, SqliteLedger):
        pytest.skip("events are the shared ledger's")

    async def news():
        found = await ledger._engine.read(
            lambda conn: conn.execute(
                "SELECT kind, profile_id, mode, key FROM events WHERE kind = 'batch' ORDER BY id"
            ).fetchall()
        )
        return [(r["kind"], r["profile_id"], r["mode"], r["key"]) for r in found]

    batch = await book.add_batch("p1", "test", "b", "b.csv", "skip", "ann", rows(2))
    await book.add_rows(batch.id, rows(2))  # nothing added: nothing said
    await book.add_rows(batch.id, rows(3))
    await book.note_email(batch.id, 2, True)
    assert await news() == [("batch", "p1", "test", str(batch.id))] * 3
