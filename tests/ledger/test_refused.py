"""Refused requests on both backends (a desk's SQLite file, a shop's PostgreSQL): a body no
key verifies is never kept whole, only traced (time, peer, size, SHA-256, its first bytes),
a peer traces at most so many a minute and the rest are counted in one row, the traces are
grouped by peer for the Notifications window, and pruned after their time. Verified
notifications are kept whole as before."""

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from paydesk.ledger import SqliteLedger
from paydesk.ledger.inbox import (
    NO_SIGNATURE,
    REFUSED_ALL_PER_MINUTE,
    REFUSED_HEAD,
    REFUSED_PER_MINUTE,
    InboxQuery,
    body_hash,
)
from paydesk.ledger.schema import LATEST, migrate
from tests.link_ledgers import inbox_beside

FORGED = b'{"event":"payment.completed","data":{"tx_ref":"PDK-1"}}' + b" " * 60_000


async def test_a_refused_body_is_traced_not_kept(inbox):
    trace = await inbox.refuse(FORGED, "10.0.0.7")
    assert trace.remote == "10.0.0.7" and trace.size == len(FORGED) and trace.count == 1
    assert trace.body_hash == body_hash(FORGED)
    assert trace.head == FORGED[:REFUSED_HEAD] and len(trace.head) == REFUSED_HEAD
    assert trace.reason == "bad signature" and not trace.counted
    assert trace.received_at.tzinfo is not None and trace.last_at == trace.received_at
    unsigned = await inbox.refuse(b"{}", "10.0.0.8", reason=NO_SIGNATURE)
    assert unsigned.reason == NO_SIGNATURE and unsigned.head == b"{}" and unsigned.size == 2
    # nothing of it in the notifications: the inbox lists verified notifications only
    assert await inbox.count(InboxQuery()) == 0
    assert [t.id for t in await inbox.refused_page()] == [unsigned.id, trace.id]
    assert [t.id for t in await inbox.refused_page(before=unsigned.id)] == [trace.id]


async def test_a_flood_from_one_peer_is_traced_a_few_times_and_counted(inbox):
    for _ in range(104):
        await inbox.refuse(FORGED, "10.0.0.7")
    await inbox.refuse(b"x", "203.0.113.9")
    rows = await inbox.refused_page(limit=500)
    from_flood = [t for t in rows if t.remote == "10.0.0.7"]
    traced = [t for t in from_flood if not t.counted]
    counted = [t for t in from_flood if t.counted]
    assert len(traced) == REFUSED_PER_MINUTE or len(counted) == 2  # (a minute may turn)
    assert len(from_flood) <= REFUSED_PER_MINUTE * 2 + 2
    assert sum(t.count for t in from_flood) == 104
    assert sum(t.size for t in from_flood) == 104 * len(FORGED)
    assert all(t.head == b"" and t.body_hash is None for t in counted)
    assert sum(len(t.head) for t in rows) <= len(rows) * REFUSED_HEAD
    # grouped by peer, the most first
    groups = await inbox.refused_groups(datetime.now(UTC) - timedelta(hours=1))
    assert [(g.remote, g.count, g.size) for g in groups] == [
        ("10.0.0.7", 104, 104 * len(FORGED)),
        ("203.0.113.9", 1, 1),
    ]
    assert groups[0].first_at <= groups[0].last_at
    assert await inbox.refused_groups(datetime.now(UTC) + timedelta(minutes=1)) == []


async def test_many_peers_together_are_bounded_too(inbox):
    """Each peer traced once, but not more than so many a minute from all of them: the
    rest are counted in one row for every other address."""
    for n in range(REFUSED_ALL_PER_MINUTE + 40):
        await inbox.refuse(b"forged", f"198.51.100.{n % 250}" if n < 250 else f"2001:db8::{n}")
    rows = await inbox.refused_page(limit=1000)
    assert sum(t.count for t in rows) == REFUSED_ALL_PER_MINUTE + 40
    assert len(rows) <= 2 * REFUSED_ALL_PER_MINUTE + 2  # (a minute may turn)
    groups = await inbox.refused_groups(datetime.now(UTC) - timedelta(hours=1), limit=500)
    assert sum(g.count for g in groups) == REFUSED_ALL_PER_MINUTE + 40
    assert "*" in {g.remote for g in groups}  # every other address, counted together


async def test_refused_traces_are_pruned_after_their_time(inbox):
    for _ in range(REFUSED_PER_MINUTE + 5):
        await inbox.refuse(FORGED, "10.0.0.7")
    entry, _ = await inbox.receive(b'{"tx_ref":"PDK-1"}', {}, "10.0.0.9", profile_id="p1", mode="test", tx_ref="PDK-1")
    assert await inbox.prune_refused(datetime.now(UTC) - timedelta(days=7)) == 0
    assert await inbox.prune_refused(datetime.now(UTC) + timedelta(seconds=1)) >= 2
    assert await inbox.refused_page() == []
    # a verified notification is kept whole, whatever its age
    assert (await inbox.get(entry.id)).body == b'{"tx_ref":"PDK-1"}'


async def test_the_migration_moves_old_bad_signatures_out_of_the_inbox(tmp_path):
    """A desk's file of schema 9 kept forged bodies whole as "bad signature" entries: they
    become traces, and the inbox keeps its verified notifications only."""
    path = tmp_path / "ledger.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    assert migrate(db, target=9) == 9
    for n, (verdict, original) in enumerate((("bad signature", None), ("pending", 1))):
        raw = FORGED if verdict == "bad signature" else b'{"tx_ref":"PDK-1"}'
        db.execute(
            "INSERT INTO inbox (received_at, body_hash, body, remote, verdict, original,"
            " decided_at) VALUES (?, ?, ?, '10.0.0.7', ?, ?, ?)",
            (f"2026-01-02T03:04:0{n}.000000Z", body_hash(raw), raw, verdict, original, None),
        )
    db.close()
    ledger = SqliteLedger(path)
    await ledger.opened()
    try:
        assert ledger.version == LATEST >= 10
        inbox = inbox_beside(ledger)
        assert [e.verdict for e in await inbox.page(InboxQuery())] == ["pending"]
        (trace,) = await inbox.refused_page()
        assert (trace.remote, trace.size, trace.body_hash, trace.head) == (
            "10.0.0.7",
            len(FORGED),
            body_hash(FORGED),
            FORGED[:REFUSED_HEAD],
        )
        assert trace.received_at == datetime(2026, 1, 2, 3, 4, 0, tzinfo=UTC)
    finally:
        await ledger.close()


async def test_the_shared_ledgers_migration_moves_them_too(pg_server, monkeypatch):
    import paydesk.ledger.postgres.schema as schema
    from tests.link_ledgers import shared_ledger

    name = pg_server.create_database(f"r{id(pg_server)}_old")
    try:
        with pg_server.connect(name) as conn:  # a shared ledger as the last version left it
            with monkeypatch.context() as before:
                before.setattr(schema, "MIGRATIONS", [m for m in schema.MIGRATIONS if m[0] <= 5])
                assert schema.migrate(conn) == 5
            conn.execute(
                "INSERT INTO inbox (body_hash, body, remote, verdict, decided_at)"
                " VALUES (%s, %s, '10.0.0.7', 'bad signature', now())",
                (body_hash(FORGED), FORGED),
            )
        ledger = shared_ledger(pg_server.url(name), "desk-a")
        await ledger.opened()
        try:
            assert schema.KNOWN >= 6
            inbox = inbox_beside(ledger)
            assert await inbox.count(InboxQuery()) == 0
            (trace,) = await inbox.refused_page()
            assert (trace.remote, trace.size, trace.head) == ("10.0.0.7", len(FORGED), FORGED[:REFUSED_HEAD])
        finally:
            await ledger.close()
    finally:
        pg_server.drop_database(name)


@pytest.fixture
async def shared(pg_url):
    from tests.link_ledgers import shared_ledger

    ledger = shared_ledger(pg_url, "desk-a")
    await ledger.opened()
    yield ledger, inbox_beside(ledger)
    await ledger.close()


async def test_on_the_shared_ledger_a_trace_is_news_and_a_count_is_not(shared):
    """The other desks hear of each trace (a "refused" event), not of each one counted."""
    ledger, inbox = shared
    for _ in range(REFUSED_PER_MINUTE + 30):
        await inbox.refuse(b"forged", "10.0.0.7")
    rows = await ledger._engine.read(
        lambda conn: conn.execute("SELECT kind, key FROM events WHERE kind = 'refused'").fetchall()
    )
    assert REFUSED_PER_MINUTE <= len(rows) <= 2 * REFUSED_PER_MINUTE + 2
    assert {r["key"] for r in rows} == {"10.0.0.7"}
