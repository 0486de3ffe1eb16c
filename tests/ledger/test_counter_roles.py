"""A counter's own database role on a shop's shared ledger (a real PostgreSQL): the script
``paydesk-receiver --counter-role-sql`` prints, run with psql as the superuser as
docs/SHARED_LEDGER.md runs it, on a database owned by the desks' role (as a shop's is).
Logged in as the counter's role: each allowance and each refusal, the row-level security
holding it to its own counter's rows; the desks' role still sees and writes everything."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import psycopg
import pytest
from psycopg import errors

from paydesk.ledger.counter import SaleQuery
from paydesk.ledger.postgres.counter import PostgresCounterBook
from paydesk.ledger.postgres.requests import SaleRequests
from paydesk.ledger.postgres.shared import open_shared
from paydesk.service.models import PaymentRequest
from tests.counter_roles import OWNER, OWNER_PW, TILL, TILL_PW, owned_database, psql
from tests.counter_roles import script as role_script


def _request(tx_ref: str) -> PaymentRequest:
    return PaymentRequest(
        amount=Decimal(12), currency="GBP", email="kim@example.com", first_name="Kim", last_name="Lee", tx_ref=tx_ref
    )


@pytest.fixture
async def shop(pg_server):
    """A database owned by the desks' role, its tables made by a desk; two counters' shifts
    and sales with their links, a sale request of each; the role ``till1`` made by the
    script for "Till 1" (limits 500 and 60 an hour)."""
    cluster = pg_server
    dbname = owned_database(cluster)
    url = cluster.url(dbname, OWNER)
    engine, ledger, _ = open_shared(url, password=OWNER_PW, desk="desk-1")
    await ledger.opened()
    book = PostgresCounterBook(engine)
    requests = SaleRequests(engine)
    for counter, tx_ref in (("Till 1", "T1-0001"), ("Till 2", "T2-0001")):
        shift = await book.open_shift(counter, "p_shop", "test", "ann")
        await book.add_sale(shift.id, tx_ref, "ann")
        await ledger.begin_link("p_shop", "test", _request(tx_ref))
        await requests.ask(
            counter, "p_shop", "test", amount=Decimal(5), currency="GBP", email="k@example.com", made_by="ann"
        )
    await ledger.begin_link("p_shop", "test", _request("FIN-0001"))  # a finance desk's link
    script = await asyncio.to_thread(role_script)
    done = await asyncio.to_thread(
        psql, cluster, dbname, f"role={TILL}", "counter=Till 1", "largest_sale=500", "sales_per_hour=60", text=script
    )
    assert done.returncode == 0, done.stderr
    assert 'The role till1 sells as the counter "Till 1"' in done.stderr
    till = psycopg.connect(cluster.url(dbname, TILL), password=TILL_PW, autocommit=True)
    try:
        yield cluster, dbname, engine, till, script
    finally:
        till.close()
        await engine.close()
        cluster.drop_later(dbname)


def _refused(conn, statement: str, params=(), error=errors.InsufficientPrivilege) -> None:
    with pytest.raises(error):
        conn.execute(statement, params)


async def test_a_counter_role_reads_its_own_counter_s_sales_links_and_requests_only(shop):
    _, _, _, till, _ = shop
    assert till.execute("SELECT tx_ref FROM counter_sales").fetchall() == [("T1-0001",)]
    assert [r[0] for r in till.execute("SELECT tx_ref FROM links")] == ["T1-0001"]  # not Till 2's, not finance's
    assert [r[0] for r in till.execute("SELECT counter FROM counter_shifts")] == ["Till 1"]
    assert [r[0] for r in till.execute("SELECT counter FROM sale_requests")] == ["Till 1"]
    kinds = {(r[0], r[1]) for r in till.execute("SELECT kind, key FROM events")}
    assert ("link", "T1-0001") in kinds and ("sale", "T1-0001") in kinds
    assert not any(key in ("T2-0001", "FIN-0001") for _, key in kinds)
    assert till.execute("SELECT paydesk_counter()").fetchone() == ("Till 1",)
    (merchants,) = till.execute("SELECT count(*) FROM counter_merchants()").fetchone()
    assert merchants == 0  # (none saved here) the function runs for a counter
    till.execute("SELECT holder FROM poller_lease").fetchall()  # whether the key holder is there


async def test_a_counter_role_writes_its_own_requests_and_withdrawals_only(shop):
    _, _, _, till, _ = shop
    (made,) = till.execute(
        "INSERT INTO sale_requests (counter, profile_id, mode, amount, currency, email, made_by)"
        " VALUES ('Till 1', 'p_shop', 'test', 7, 'GBP', 'k@example.com', 'bo') RETURNING id"
    ).fetchone()
    till.execute(
        "INSERT INTO sale_request_answers (request_id, outcome, why) VALUES (%s, 'withdrawn', 'gave up')", (made,)
    )
    _refused(
        till,
        "INSERT INTO sale_requests (counter, profile_id, mode, amount, currency, email, made_by)"
        " VALUES ('Till 2', 'p_shop', 'test', 7, 'GBP', 'k@example.com', 'bo')",
        error=errors.InsufficientPrivilege,
    )
    (theirs,) = till.execute("SELECT count(*) FROM sale_requests").fetchone()
    assert theirs == 2  # its two; Till 2's never seen
    _refused(
        till, "INSERT INTO sale_request_answers (request_id, outcome, tx_ref) VALUES (%s, 'taken', 'X-1')", (made + 1,)
    )
    _refused(till, "UPDATE sale_requests SET amount = 1")
    _refused(till, "DELETE FROM sale_requests")
    _refused(till, "UPDATE links SET state = 'success'")
    _refused(till, "UPDATE links SET checked_at = now()")  # the column a void's lock asks for
    with till.transaction():  # a void holds its own sale's link, as the book's void does
        assert till.execute("SELECT 1 FROM links WHERE tx_ref = 'T1-0001' FOR SHARE").fetchall() == [(1,)]
        assert till.execute("SELECT 1 FROM links WHERE tx_ref = 'T2-0001' FOR SHARE").fetchall() == []
    _refused(till, "INSERT INTO counter_limits (counter, sales_per_hour) VALUES ('Till 1', 1000)")


@pytest.mark.parametrize(
    "table",
    [
        "cards",
        "card_transactions",
        "card_operations",
        "card_audit",
        "inbox",
        "merchants",
        "sequences",
        "desks",
        "call_budgets",
        "counter_limits",
        "counter_logins",
        "batches",
    ],
)
async def test_a_counter_role_cannot_read_what_is_not_a_counter_s(shop, table):
    _, _, _, till, _ = shop
    _refused(till, f"SELECT * FROM {table} LIMIT 1")


async def test_a_counter_role_cannot_read_the_staff_s_pin_hashes(shop):
    cluster, dbname, _, till, script = shop
    staff = till.execute("SELECT to_regclass('staff') IS NOT NULL").fetchone()[0]
    if not staff:  # the staff book's table, made here as it is shaped, to prove the script's grants
        with cluster.connect(dbname) as conn:
            conn.execute(
                f"CREATE TABLE staff (id text PRIMARY KEY, pin_hash bytea) ; ALTER TABLE staff OWNER TO {OWNER}"
            )
            conn.execute(
                "CREATE FUNCTION staff_check(person text, hash bytea) RETURNS boolean LANGUAGE sql SECURITY DEFINER"
                " AS $$ SELECT EXISTS (SELECT 1 FROM staff WHERE id = person AND pin_hash = hash) $$"
            )
        assert psql(cluster, dbname, f"role={TILL}", "counter=Till 1", text=script).returncode == 0
    _refused(till, "SELECT * FROM staff")
    till.execute("SELECT staff_check('ana', '\\x00'::bytea)")  # the PIN is checked by the ledger


async def test_the_desks_role_still_sees_and_writes_everything(shop):
    _, _, engine, _, _ = shop
    book = PostgresCounterBook(engine)
    assert len(await book.sales(SaleQuery())) == 2
    requests = SaleRequests(engine)
    made = await requests.ask(
        "Till 2", "p_shop", "test", amount=Decimal(9), currency="GBP", email="k@example.com", made_by="bo"
    )
    assert (await requests.answer(made, "taken", tx_ref="T2-0002")).outcome == "taken"
    assert (await requests.limits("Till 1")).largest_sale == Decimal(500)


async def test_the_script_refuses_the_desks_own_role_in_one_sentence(shop):
    cluster, dbname, _, _, script = shop
    done = psql(cluster, dbname, f"role={OWNER}", "counter=Till 9", text=script)
    assert done.returncode != 0
    assert "is the desks' own (or a superuser): give the counter a role of its own" in done.stderr
