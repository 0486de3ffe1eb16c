"""The staff book on both backends (a desk's SQLite file, a shop's PostgreSQL): people listed
without their hashes, PINs of 4 to 8 digits hashed with argon2id and never stored plainly,
wrong PINs counted with a growing wait kept in the store (a restart does not end it), the
last Admin kept, and on PostgreSQL a role that does not own the table checking a PIN
through the functions while it cannot read a hash."""

from datetime import UTC, datetime, timedelta

import pytest

from paydesk.ledger import SqliteLedger
from paydesk.ledger.staff import (
    LastAdmin,
    NameTaken,
    NoSuchPerson,
    Person,
    PinRefused,
    Role,
    wait_after,
)
from tests.link_ledgers import below, same_store, staff_beside


@pytest.fixture
def staff(ledger):
    return staff_beside(ledger)


async def row_of(ledger, person_id):
    """The person's row as the store holds it (below the book)."""
    if isinstance(ledger, SqliteLedger):
        return await ledger._engine.read(
            lambda db: dict(db.execute("SELECT * FROM staff WHERE id = ?", (person_id,)).fetchone())
        )
    return await ledger._engine.read(
        lambda conn: conn.execute("SELECT * FROM staff WHERE id = %s", (person_id,)).fetchone()
    )


async def wait_over(ledger, person_id):
    """The person's wait ended (as if its seconds had passed), below the book."""
    past = datetime.now(UTC) - timedelta(seconds=1)
    if isinstance(ledger, SqliteLedger):
        from paydesk.ledger.records import stamp

        await ledger._engine.write(
            lambda db: db.execute("UPDATE staff SET wait_until = ? WHERE id = ?", (stamp(past), person_id))
        )
    else:
        await ledger._engine.write(
            lambda conn: conn.execute("UPDATE staff SET wait_until = %s WHERE id = %s", (past, person_id))
        )


def test_the_wait_grows_from_the_fourth_wrong_pin_and_stops_at_five_minutes():
    assert [wait_after(n) for n in range(1, 12)] == [0, 0, 0, 2, 4, 8, 16, 32, 64, 128, 256]
    assert wait_after(12) == wait_after(40) == wait_after(10_000) == 300


async def test_people_are_listed_by_name_without_their_pins(ledger, staff):
    assert await staff.people() == []
    ana = await staff.add("  Ana ", Role.ADMIN, "1234")
    bo = await staff.add("bo", Role.COUNTER, "98765432")
    cy = await staff.add("Cy", Role.FINANCE, "0000")
    assert ana == Person(ana.id, "Ana", Role.ADMIN)
    assert await staff.people() == [ana, bo, cy]
    row = await row_of(ledger, bo.id)
    assert "98765432" not in repr(row)
    assert len(bytes(row["hash"])) == 32 and len(bytes(row["salt"])) == 16
    assert (row["time_cost"], row["memory_cost"], row["parallelism"]) == (2, 19 * 1024, 1)
    # another window, or another desk, sees the same list
    other = same_store(ledger)
    try:
        assert await staff_beside(other).people() == [ana, bo, cy]
    finally:
        await other.close()


@pytest.mark.parametrize("pin", ["123", "123456789", "12a4", "", " 1234", "１２３４"])
async def test_a_pin_is_four_to_eight_digits(staff, pin):
    with pytest.raises(PinRefused, match=r"^A PIN is 4 to 8 digits\.$"):
        await staff.add("Ana", Role.ADMIN, pin)
    assert await staff.people() == []


async def test_a_name_is_given_once(staff):
    await staff.add("Ana", Role.ADMIN, "1234")
    with pytest.raises(NameTaken, match="There is already someone called ANA on the staff list."):
        await staff.add("ANA", Role.COUNTER, "5678")
    with pytest.raises(PinRefused, match="Give the person a name."):
        await staff.add("  ", Role.COUNTER, "5678")
    assert [p.name for p in await staff.people()] == ["Ana"]


async def test_the_right_pin_signs_the_person_in(staff):
    ana = await staff.add("Ana", Role.ADMIN, "1234")
    bo = await staff.add("Bo", Role.COUNTER, "1234")  # the same PIN, another salt, another hash
    answer = await staff.check_pin(bo.id, "1234")
    assert (answer.ok, answer.person, answer.wait_s) == (True, bo, 0)
    assert (await staff.check_pin(ana.id, "1234")).person == ana
    wrong = await staff.check_pin(ana.id, "4321")
    assert (wrong.ok, wrong.person, wrong.wait_s) == (False, None, 0)
    with pytest.raises(NoSuchPerson):
        await staff.check_pin("nobody", "1234")


async def test_wrong_pins_bring_a_growing_wait_kept_in_the_store(ledger, staff):
    ana = await staff.add("Ana", Role.ADMIN, "1234")
    for _ in range(3):  # three free tries
        assert (await staff.check_pin(ana.id, "0000")).wait_s == 0
    fourth = await staff.check_pin(ana.id, "0000")
    assert (fourth.wait_s, fourth.waiting) == (2, False)  # the fourth: 2 s
    during = await staff.check_pin(ana.id, "1234")  # the right PIN, refused while it runs
    assert not during.ok and during.waiting and 0 < during.wait_s <= 2
    row = await row_of(ledger, ana.id)
    assert row["failures"] == 4  # a PIN refused during the wait is not counted
    other = same_store(ledger)  # PayDesk restarted: the wait is still there
    try:
        again = await staff_beside(other).check_pin(ana.id, "1234")
        assert not again.ok and again.waiting and again.wait_s > 0
    finally:
        await other.close()
    await wait_over(ledger, ana.id)
    assert (await staff.check_pin(ana.id, "0000")).wait_s == 4  # the fifth: doubled
    await wait_over(ledger, ana.id)
    assert (await staff.check_pin(ana.id, "1234")).ok  # the right one, after the wait
    row = await row_of(ledger, ana.id)
    assert row["failures"] == 0 and row["wait_until"] in (None, "")
    assert (await staff.check_pin(ana.id, "0000")).wait_s == 0  # counting starts again


async def test_the_wait_stops_growing_at_five_minutes(ledger, staff):
    ana = await staff.add("Ana", Role.ADMIN, "1234")
    await below(ledger, f"UPDATE staff SET failures = 40 WHERE id = '{ana.id}'")
    assert (await staff.check_pin(ana.id, "0000")).wait_s == 300


async def test_a_new_pin_ends_the_wait_and_the_old_pin(ledger, staff):
    ana = await staff.add("Ana", Role.ADMIN, "1234")
    await below(ledger, f"UPDATE staff SET failures = 9 WHERE id = '{ana.id}'")
    assert (await staff.check_pin(ana.id, "0000")).wait_s == 128
    await staff.change(ana.id, pin="56781234")
    assert not (await staff.check_pin(ana.id, "1234")).ok
    assert (await staff.check_pin(ana.id, "56781234")).ok


async def test_names_and_roles_change_and_the_last_admin_stays(staff):
    ana = await staff.add("Ana", Role.ADMIN, "1234")
    bo = await staff.add("Bo", Role.COUNTER, "1234")
    with pytest.raises(LastAdmin, match="at least one Admin"):
        await staff.change(ana.id, role=Role.FINANCE)
    with pytest.raises(LastAdmin):
        await staff.remove(ana.id)
    with pytest.raises(NameTaken):
        await staff.change(bo.id, name="ana")
    assert await staff.people() == [ana, bo]
    bo = await staff.change(bo.id, name="Bob", role=Role.ADMIN)
    assert bo == Person(bo.id, "Bob", Role.ADMIN)
    assert (await staff.change(ana.id, role=Role.COUNTER)).role is Role.COUNTER
    await staff.change(ana.id, name="Ana")  # her own name again: not taken by herself
    await staff.remove(ana.id)
    assert await staff.people() == [bo]
    with pytest.raises(NoSuchPerson):
        await staff.change(ana.id, name="Ana")


@pytest.mark.parametrize("ledger", ["postgresql"], indirect=True)
async def test_a_role_that_does_not_own_the_table_checks_pins_but_reads_no_hash(ledger, staff, pg_server):
    import psycopg
    from psycopg.rows import dict_row

    ana = await staff.add("Ana", Role.ADMIN, "1234")
    dbname = ledger._engine.conninfo()["dbname"]
    role = f"till_{ana.id[:8]}"
    pg_server.login_role(role, "till-secret")
    pg_server.sql(f'GRANT CONNECT ON DATABASE "{dbname}" TO {role}', dbname)
    pg_server.sql(f"GRANT USAGE ON SCHEMA public TO {role}", dbname)
    pg_server.sql(f"GRANT SELECT ON schema_migrations TO {role}", dbname)  # to see it is migrated
    url = pg_server.url(dbname, user=role).replace(f"{role}@", f"{role}:till-secret@")

    with psycopg.connect(url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT hash FROM staff")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE staff SET failures = 0")
        rows = conn.execute("SELECT * FROM staff_people()").fetchall()
        assert rows == [(ana.id, "Ana", "admin")]

    from paydesk.ledger.postgres.engine import PgEngine
    from paydesk.ledger.postgres.staff import PostgresStaffBook

    engine = PgEngine(url, desk="till")
    try:
        till = PostgresStaffBook(engine)
        assert await till.people() == [ana]
        assert (await till.check_pin(ana.id, "1234")).person == ana
        for _ in range(4):
            wrong = await till.check_pin(ana.id, "9999")
        assert wrong.wait_s == 2  # counted by the function, as the owner's book counts
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            await till.add("Eve", Role.ADMIN, "1234")
    finally:
        await engine.close()
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM staff WHERE id = %s", (ana.id,))
    assert (await row_of(ledger, ana.id))["failures"] == 4
