"""The shared ledger's engine against a real PostgreSQL (tests/postgres.py): it migrates once,
writes in one transaction, rings the doorbell with an event's id, refuses to write a newer
PayDesk's schema, says when the server is gone and when it is back, and never lets the
password into an exception's text."""

from __future__ import annotations

import asyncio
import logging
import re
import traceback
import uuid

import psycopg
import pytest

from paydesk.ledger import LedgerError
from paydesk.ledger.postgres import (
    CHANNEL,
    KNOWN,
    MIGRATIONS,
    LedgerUnreachable,
    PgEngine,
    SchemaTooNew,
    emit,
)

PASSWORD = "Tr0ub4dor-&-3-secret"


def texts(exc: BaseException) -> str:
    """Everything an exception could show: its text, repr, and the whole printed chain."""
    return f"{exc}\n{exc!r}\n" + "".join(traceback.format_exception(exc))


@pytest.fixture
async def engine(pg_url):
    opened = PgEngine(pg_url, desk="desk-a")
    await opened.opened()
    yield opened
    await opened.close()


async def test_two_engines_on_a_new_database_migrate_it_once(pg_server):
    name = pg_server.create_database(f"empty_{uuid.uuid4().hex}")  # not from the template
    url = pg_server.url(name)
    engines = [PgEngine(url, desk=f"desk-{i}") for i in range(2)]
    await asyncio.gather(*(e.opened() for e in engines))
    assert [e.version for e in engines] == [KNOWN, KNOWN]
    assert not any(e.read_only for e in engines)
    versions = await engines[0].read(
        lambda c: c.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall()
    )
    assert [row["version"] for row in versions] == [v for v, _ in MIGRATIONS]
    tables = await engines[1].read(
        lambda c: {row["tablename"] for row in c.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    )
    assert {"links", "sequences", "events", "poller_lease", "merchants", "schema_migrations"} <= tables
    trgm = await engines[0].read(
        lambda c: c.execute("SELECT count(*) AS n FROM pg_extension WHERE extname = 'pg_trgm'").fetchone()
    )
    assert trgm == {"n": 1}
    for e in engines:
        await e.close()
    # opening it again finds it migrated: nothing applied twice
    again = PgEngine(url, desk="desk-c")
    await again.opened()
    count = await again.read(lambda c: c.execute("SELECT count(*) AS n FROM schema_migrations").fetchone())
    assert count == {"n": len(MIGRATIONS)}
    await again.close()


async def test_a_write_is_one_transaction(engine):
    def half_then_fail(conn):
        conn.execute("INSERT INTO sequences (day, value) VALUES ('2026-11-23', 1)")
        emit(conn, engine.desk, "sequence", key="2026-11-23")
        raise ValueError("second thoughts")

    with pytest.raises(ValueError, match="second thoughts"):
        await engine.write(half_then_fail)
    left = await engine.read(
        lambda c: c.execute(
            "SELECT (SELECT count(*) FROM sequences) AS sequences, (SELECT count(*) FROM events) AS events"
        ).fetchone()
    )
    assert left == {"sequences": 0, "events": 0}

    def claim(conn):
        return conn.execute(
            "INSERT INTO sequences (day, value) VALUES ('2026-11-23', 1)"
            " ON CONFLICT (day) DO UPDATE SET value = sequences.value + 1"
            " RETURNING value"
        ).fetchone()["value"]

    assert [await engine.write(claim) for _ in range(3)] == [1, 2, 3]


async def test_emit_rings_the_doorbell_with_the_event_id_only(engine):
    with psycopg.connect(**engine.conninfo(), autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        event = await engine.write(
            lambda c: emit(c, engine.desk, "link", "m-0123456789abcdef0123", "test", "SHOP-261123-K7QM4X-0001")
        )
        heard = list(listener.notifies(timeout=10, stop_after=1))
    assert [(n.channel, n.payload) for n in heard] == [(CHANNEL, str(event))]
    row = await engine.read(
        lambda c: c.execute("SELECT desk, kind, profile_id, mode, key FROM events WHERE id = %s", (event,)).fetchone()
    )
    assert row == {
        "desk": "desk-a",
        "kind": "link",
        "profile_id": "m-0123456789abcdef0123",
        "mode": "test",
        "key": "SHOP-261123-K7QM4X-0001",
    }


async def test_a_write_whose_caller_stopped_waiting_still_lands(engine):
    def slow_claim(conn):
        conn.execute("SELECT pg_sleep(0.3)")
        conn.execute("INSERT INTO sequences (day, value) VALUES ('2026-11-24', 7)")

    task = asyncio.ensure_future(engine.write(slow_claim))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the writer runs writes in order: this one comes after the cancelled one
    value = await engine.write(lambda c: c.execute("SELECT value FROM sequences WHERE day = '2026-11-24'").fetchone())
    assert value == {"value": 7}


async def test_a_superseded_read_is_cancelled_on_the_server(pg_url):
    engine = PgEngine(pg_url, desk="desk-a", readers=1)
    await engine.opened()
    task = asyncio.ensure_future(engine.read(lambda c: c.execute("SELECT pg_sleep(60)")))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the only reader is free again: had the statement gone on, this would wait a minute
    assert await asyncio.wait_for(engine.read(lambda c: c.execute("SELECT 1 AS one").fetchone()), 30) == {"one": 1}
    await engine.close()


async def test_a_newer_schema_opens_read_only(pg_server, pg_url):
    name = pg_url.rsplit("/", 1)[1]
    pg_server.sql(f"INSERT INTO schema_migrations (version) VALUES ({KNOWN + 1})", name)
    engine = PgEngine(pg_url, desk="desk-old")
    await engine.opened()
    assert (engine.version, engine.read_only) == (KNOWN + 1, True)
    assert await engine.read(lambda c: c.execute("SELECT count(*) AS n FROM links").fetchone()) == {"n": 0}
    with pytest.raises(SchemaTooNew) as refused:
        await engine.write(lambda c: c.execute("INSERT INTO sequences (day, value) VALUES ('2026-11-23', 1)"))
    assert isinstance(refused.value, LedgerError)
    assert str(refused.value) == ("This shop's ledger was upgraded by a newer PayDesk: update PayDesk on this computer")
    # and a read cannot write either: the engine's connections are read-only
    with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        await engine.read(lambda c: c.execute("INSERT INTO sequences (day, value) VALUES ('2026-11-23', 1)"))
    versions = pg_server.sql("SELECT version FROM schema_migrations ORDER BY version", name)
    assert versions[-1] == (KNOWN + 1,) and len(versions) == len(MIGRATIONS) + 1
    await engine.close()


async def test_a_stopped_server_is_unreachable_until_it_is_back(pg_server, pg_url):
    heard: list[bool] = []
    engine = PgEngine(pg_url, desk="desk-a", on_reachable=heard.append)
    await engine.opened()
    await engine.write(lambda c: emit(c, engine.desk, "lease"))

    with pg_server.down():
        with pytest.raises(LedgerUnreachable) as lost:
            await engine.read(lambda c: c.execute("SELECT count(*) FROM events").fetchone())
        assert re.fullmatch(r"Shared ledger unreachable since \d\d:\d\d, retrying", str(lost.value))
        assert isinstance(lost.value, LedgerError)
        assert engine.reachable is False and engine.down_since is not None
        since = lost.value.since
        # still down: the same "since", and no second word to the listener
        with pytest.raises(LedgerUnreachable) as again:
            await engine.write(lambda c: emit(c, engine.desk, "lease"))
        assert again.value.since == since
        await asyncio.sleep(0)  # the loop's turn for the callbacks
        assert heard == [False]

    events = await engine.read(lambda c: c.execute("SELECT count(*) AS n FROM events").fetchone())
    assert events == {"n": 1}  # the write refused while down was not half-made
    assert engine.reachable is True and engine.down_since is None
    await engine.write(lambda c: emit(c, engine.desk, "lease"))
    await asyncio.sleep(0)
    assert heard == [False, True]
    await engine.close()


@pytest.mark.slow  # waits out the retries, about 7 s: ./dev test runs it, ./dev check leaves it out
async def test_a_lost_server_is_asked_again_until_it_answers(pg_server, pg_url):
    """With nothing else asking (no feed, no lease keeper, no view), the engine asks a lost
    server again by itself, and hears it back within seconds of its return."""
    from tests.waiting import until_async

    heard: list[bool] = []
    engine = PgEngine(pg_url, desk="desk-a", on_reachable=heard.append)
    await engine.opened()
    with pg_server.down():
        with pytest.raises(LedgerUnreachable):
            await engine.read(lambda c: c.execute("SELECT 1").fetchone())
        await asyncio.sleep(4)  # asked again meanwhile (not a measure): still down
        assert heard == [False] and engine.reachable is False
    await until_async(lambda: engine.reachable, 10, "the engine to hear the server again")
    assert heard == [False, True]
    await engine.close()


async def test_a_server_restarted_between_jobs_costs_no_job(pg_server, pg_url):
    heard: list[bool] = []
    engine = PgEngine(pg_url, desk="desk-a", on_reachable=heard.append)
    await engine.opened()
    pg_server.restart()  # the pooled connection is dead; the server is up again
    assert await engine.read(lambda c: c.execute("SELECT 1 AS one").fetchone()) == {"one": 1}
    await engine.write(lambda c: emit(c, engine.desk, "lease"))
    assert heard == []
    await engine.close()


async def test_the_password_never_reaches_an_exception_or_a_log(pg_server, pg_url, caplog):
    caplog.set_level(logging.DEBUG)
    name = pg_url.rsplit("/", 1)[1]
    pg_server.login_role("clerk", PASSWORD, name)
    url = pg_server.url(name, "clerk")  # over TCP: scram-sha-256, keepalives

    engine = PgEngine(url, password=PASSWORD, desk="desk-a")
    await engine.opened()
    await engine.write(lambda c: emit(c, engine.desk, "lease"))
    assert engine.conninfo()["password"] == PASSWORD  # for the listener's own connection
    failures: list[BaseException] = []
    with pg_server.down():
        for job in (engine.read, engine.write):
            with pytest.raises(LedgerUnreachable) as lost:
                await job(lambda c: c.execute("SELECT 1"))
            failures.append(lost.value)
    await engine.close()

    # the wrong password: the server answers, and says no
    wrong = PgEngine(url, password=PASSWORD + "-old", desk="desk-a")
    with pytest.raises(LedgerError, match="refused this password for clerk") as refused:
        await wrong.opened()
    assert not isinstance(refused.value, LedgerUnreachable)
    failures.append(refused.value)
    await wrong.close()

    # a password written into the URL, with an option libpq does not know
    with pytest.raises(LedgerError) as bad:
        PgEngine(f"postgresql://clerk:{PASSWORD}@127.0.0.1:{pg_server.port}/{name}?colour=blue", desk="desk-a")
    failures.append(bad.value)

    for failure in failures:
        assert PASSWORD not in texts(failure)
    assert PASSWORD not in caplog.text


async def test_closing_lands_the_writes_queued_before_the_engine_connected(pg_url):
    engine = PgEngine(pg_url, desk="desk-a")
    writes = [
        asyncio.ensure_future(engine.write(lambda c, i=i: emit(c, engine.desk, "sequence", key=str(i))))
        for i in range(5)
    ]
    await asyncio.sleep(0)
    await engine.close()
    assert sorted(await asyncio.gather(*writes)) == [1, 2, 3, 4, 5]
    with pytest.raises(LedgerError, match="closed"):
        await engine.write(lambda c: emit(c, engine.desk, "lease"))
    again = PgEngine(pg_url, desk="desk-b")
    assert await again.read(lambda c: c.execute("SELECT count(*) AS n FROM events").fetchone()) == {"n": 5}
    await again.close()


async def test_jobs_at_once_when_the_server_goes_each_say_unreachable(pg_server, pg_url):
    """Readers and the writer find the server gone together: one drops the pool, the others
    get a new one or the same answer, never the closed pool's error."""
    engine = PgEngine(pg_url, desk="desk-a", readers=3)
    await engine.opened()

    def jobs():
        reads = [engine.read(lambda c: c.execute("SELECT count(*) AS n FROM events").fetchone()) for _ in range(6)]
        return [*reads, engine.write(lambda c: emit(c, engine.desk, "lease"))]

    await asyncio.gather(*jobs())  # every thread holds a pooled connection
    with pg_server.down("immediate"):  # as if killed: it keeps what it acknowledged
        outcomes = await asyncio.gather(*jobs(), return_exceptions=True)
        assert {type(o) for o in outcomes} == {LedgerUnreachable}
    outcomes = await asyncio.gather(*jobs())
    assert outcomes[0]["n"] in (1, 2) and isinstance(outcomes[-1], int)  # (in any order)
    assert engine.reachable
    await engine.close()


async def test_opening_connects_once(pg_url, monkeypatch):
    """The engine's own first connection (it finds the server answering and the schema
    migrated) is the pool's first too: opening the ledger and reading from it connects once
    (each connection is a new process on the server: a few milliseconds of every "open").
    The connections are counted as they are made, each made for real."""
    made = []
    connect, connect_class = psycopg.connect, psycopg.Connection.connect
    # this test's database only: an earlier test's pool in this worker, still closing, may
    # connect to its own meanwhile (seen under load on a fresh clone)
    database = psycopg.conninfo.conninfo_to_dict(pg_url)["dbname"]

    def count(args, kwargs):
        if database in repr((args, kwargs)):
            made.append(1)

    def counted(*args, **kwargs):
        count(args, kwargs)
        return connect(*args, **kwargs)

    def counted_class(cls, *args, **kwargs):
        count(args, kwargs)
        return connect_class(*args, **kwargs)

    monkeypatch.setattr(psycopg, "connect", counted)
    monkeypatch.setattr(psycopg.Connection, "connect", classmethod(counted_class))
    engine = PgEngine(pg_url, desk="desk-a")
    await engine.opened()
    assert await engine.read(lambda c: c.execute("SELECT 1 AS one").fetchone()) == {"one": 1}
    await engine.close()
    assert len(made) == 1


async def test_a_cancel_meant_for_an_earlier_read_does_not_stop_the_next(pg_url):
    """A superseded read is cancelled from a thread of its own; by the time the server hears
    it, the connection may be running the next asker's read (seen in the counter shifts
    window: its recount raised QueryCanceled into Qt's loop). That read is asked again."""
    import threading

    from paydesk.ledger.postgres.connection import _cancel

    engine = PgEngine(pg_url, desk="desk-a", readers=1)
    await engine.opened()
    stray = []

    def read(conn):
        if not stray:  # the stray cancel lands while this read runs
            stray.append(threading.Timer(0.2, _cancel, (conn,)))
            stray[0].start()
        return conn.execute("SELECT pg_sleep(0.6), 1 AS one").fetchone()["one"]

    assert await asyncio.wait_for(engine.read(read), 30) == 1
    await engine.close()
