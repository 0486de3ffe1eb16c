"""Importing a desk's own ledger file into the shop's shared ledger: a dry run that counts and
writes nothing, the import, a second run that adds nothing, a clash reported with the shared
record kept, and everything read back through the PostgreSQL ledgers as from the file.

The file is made by the real SQLite ledgers through their own methods; the shared ledger is
a real PostgreSQL (tests/postgres.py)."""

import json
import os
import sqlite3
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from paydesk.ledger import LinkQuery, SqliteLedger
from paydesk.ledger.cards import AuditDraft, AuditQuery, CardQuery, OperationDraft
from paydesk.ledger.postgres import PgEngine
from paydesk.ledger.postgres.importer import ImportRefused, import_ledger
from paydesk.ledger.sqlite.cards import SqliteCardLedger
from paydesk.service.models import (
    CardState,
    CardTransaction,
    PaymentLink,
    PaymentRequest,
    Transaction,
    TransactionState,
    VirtualCard,
)
from tests import file_keyring

ROOT = Path(__file__).resolve().parents[2]
DESK = "K7QW"  # the installation that wrote the file
SHOP = "m-0123456789abcdef0123"  # the merchant of the desk's profile p_shop
MERCHANTS = {"p_shop": SHOP}  # p_gone, a profile deleted since, names no merchant


def request(ref: str, amount: int = 25, currency: str = "GBP") -> PaymentRequest:
    return PaymentRequest(
        amount=Decimal(amount),
        currency=currency,
        email="ada@example.com",
        first_name="Ada",
        last_name="Lovelace",
        tx_ref=ref,
        title="Coffee",
        meta={"till": "2"},
        callback_url="https://shop.example/cb",
    )


def card(n: int) -> VirtualCard:
    return VirtualCard(
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
        created_at=datetime(2026, 1, 1, 10, n, tzinfo=UTC),
    )


def who(action: str, result: str, card_hash: str = "ch_0001", **over) -> AuditDraft:
    fields = dict(
        user="kim",
        profile_id="p_shop",
        profile_name="Shop",
        mode="test",
        action=action,
        result=result,
        card_hash=card_hash,
        masked=f"412345******{card_hash[-4:]}",
        amount=Decimal(5),
        currency="GBP",
    )
    fields.update(over)
    return AuditDraft(**fields)


async def make_desk_ledger(path) -> None:
    """A desk's file with some of everything: links made, paid, rejected and still being
    made, a transaction made elsewhere and looked up, two days' sequences, cards, their
    transactions, a done and an open operation, their audit, and a deleted profile's link."""
    ledger = SqliteLedger(path)
    await ledger.opened()
    cards = SqliteCardLedger.beside(ledger)
    try:
        for n in range(1, 5):
            # who made it: carried to the shared ledger (PDK-1 made with no staff set up)
            actor = "Ana" if n > 1 else None
            await ledger.begin_link("p_shop", "test", request(f"PDK-{n}", amount=10 * n), actor=actor)
            await ledger.complete_link(
                "p_shop", PaymentLink(tx_ref=f"PDK-{n}", checkout_url=f"https://pay.example/c/REF{n}")
            )
        await ledger.record_lookup(
            "p_shop",
            "test",
            Transaction(
                tx_ref="PDK-2",
                status=TransactionState.SUCCESS,
                status_raw="success",
                amount=Decimal(20),
                currency="GBP",
                charge=Decimal("0.40"),
                reference="REF2",
            ),
        )
        await ledger.begin_link("p_shop", "live", request("PDK-5", amount=99))
        await ledger.reject_link("p_shop", "PDK-5", "the service refused it")
        await ledger.begin_link("p_shop", "test", request("PDK-6"))  # never answered
        await ledger.record_lookup(
            "p_shop",
            "test",
            Transaction(
                tx_ref="WEB-1",
                status=TransactionState.PENDING,
                status_raw="pending",
                amount=Decimal("7.50"),
                currency="GBP",
                email="bob@example.com",
                first_name="Bob",
                last_name="Stone",
                reference="REFW1",
                raw={"status": "pending"},
            ),
        )
        await ledger.begin_link("p_gone", "test", request("OLD-1"))
        await ledger.claim_sequence(date(2026, 11, 20), 4)
        await ledger.claim_sequence(date(2026, 11, 23), 12)

        await cards.store_cards("p_shop", "test", [card(1), card(2), card(3)])
        await cards.store_transactions(
            "p_shop",
            "test",
            "ch_0001",
            [
                CardTransaction(
                    card_hash="ch_0001",
                    id="t1",
                    type="Credit",
                    amount=Decimal("50.00"),
                    description="Card funding",
                    status="successful",
                    created_at=datetime(2026, 1, 2, tzinfo=UTC),
                ),
                CardTransaction(
                    card_hash="ch_0001",
                    id="t2",
                    type="Debit",
                    amount=Decimal("4.20"),
                    description="COFFEE SHOP",
                    status="successful",
                    created_at=datetime(2026, 1, 3, tzinfo=UTC),
                ),
            ],
        )
        done = await cards.begin_operation(
            OperationDraft("p_shop", "test", "fund", "ch_0001", "412345******0001", Decimal(5), "GBP", actor="Ben"),
            who("fund", "sent", actor="Ben"),
        )
        await cards.finish_operation(
            done.id, "done", "funded", who("fund", "done", actor="Ben"), evidence="t1", answered=True
        )
        await cards.begin_operation(
            OperationDraft("p_shop", "test", "block", "ch_0002", "412345******0002"),
            who("block", "sent", "ch_0002", amount=None, currency=None),
        )
        await cards.append_audit(who("reveal", "shown", "ch_0003", amount=None, currency=None))
    finally:
        await ledger.close()


@pytest.fixture
async def desk_file(tmp_path):
    path = tmp_path / "desk" / "ledger.sqlite3"
    path.parent.mkdir()
    await make_desk_ledger(path)
    return path


@pytest.fixture
async def engine(pg_url):
    opened = PgEngine(pg_url, desk="desk-finance")
    await opened.opened()
    yield opened
    await opened.close()


def counted(pg_url) -> dict[str, int]:
    with psycopg.connect(pg_url) as conn:
        return {
            table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in (
                "links",
                "sequences",
                "cards",
                "card_lists",
                "card_transactions",
                "card_operations",
                "card_audit",
                "events",
            )
        }


def figures(report) -> dict[str, tuple[int, int, int, int, int]]:
    return {name: (c.added, c.raised, c.same, c.clashes, c.skipped) for name, c in report.tables.items()}


# (added, raised, already there, clashes, skipped) of the file above, into an empty ledger
FIRST = {
    "sequences": (2, 0, 0, 0, 0),
    "card_lists": (1, 0, 0, 0, 0),
    "links": (7, 0, 0, 0, 1),
    "cards": (3, 0, 0, 0, 0),
    "card_transactions": (2, 0, 0, 0, 0),
    "card_operations": (2, 0, 0, 0, 0),
    "card_audit": (4, 0, 0, 0, 0),
}
# the same file again: everything already there
AGAIN = {
    "sequences": (0, 0, 2, 0, 0),
    "card_lists": (0, 0, 1, 0, 0),
    "links": (0, 0, 7, 0, 1),
    "cards": (0, 0, 3, 0, 0),
    "card_transactions": (0, 0, 2, 0, 0),
    "card_operations": (0, 0, 2, 0, 0),
    "card_audit": (0, 0, 4, 0, 0),
}


async def test_a_dry_run_counts_and_writes_nothing(engine, desk_file, pg_url):
    before = counted(pg_url)
    report = await import_ledger(engine, desk_file, MERCHANTS, dry_run=True, installation=DESK)
    assert figures(report) == FIRST
    assert report.dry_run and report.clash_count == 0 and report.added == 21
    assert dict(report.unmapped) == {"p_gone": 1}
    assert counted(pg_url) == before  # not even the event
    text = "\n".join(report.lines())
    assert text.startswith("Dry run: nothing was written.")
    assert "Skipped: 1 record of profile p_gone, which names no merchant" in text
    assert [line.split()[:2] for line in report.lines()[2:5]] == [
        ["links", "and"],
        ["day", "sequences"],
        ["cards", "3"],
    ]


async def test_an_import_run_twice_adds_nothing_twice(engine, desk_file, pg_url):
    first = await import_ledger(engine, desk_file, MERCHANTS, installation=DESK)
    assert figures(first) == FIRST and not first.dry_run
    after = counted(pg_url)
    assert after == {
        "links": 7,
        "sequences": 2,
        "cards": 3,
        "card_lists": 1,
        "card_transactions": 2,
        "card_operations": 2,
        "card_audit": 4,
        "events": 1,
    }
    again = await import_ledger(engine, desk_file, MERCHANTS, installation=DESK)
    assert figures(again) == AGAIN and again.added == 0
    assert counted(pg_url) == {**after, "events": 2}  # one "import" event per run
    with psycopg.connect(pg_url) as conn:
        kinds = [r[0] for r in conn.execute("SELECT kind FROM events ORDER BY id")]
        assert kinds == ["import", "import"]
        # the audit lines name their operations by the ids the shared ledger gave them
        rows = conn.execute(
            "SELECT a.origin_key, a.action, o.origin_key FROM card_audit a"
            " LEFT JOIN card_operations o ON o.id = a.operation_id ORDER BY a.id"
        ).fetchall()
        assert rows == [
            (f"{DESK}:1", "fund", f"{DESK}:1"),
            (f"{DESK}:2", "fund", f"{DESK}:1"),
            (f"{DESK}:3", "block", f"{DESK}:2"),
            (f"{DESK}:4", "reveal", None),
        ]
        assert {r[0] for r in conn.execute("SELECT DISTINCT profile_id FROM links")} == {SHOP}
        assert conn.execute("SELECT value FROM sequences WHERE day = '2026-11-23'").fetchone()[0] == 12


async def test_a_clash_is_reported_and_the_shared_record_kept(engine, desk_file, pg_url):
    # another desk of the shop already has PDK-3 for the same merchant, for 31.00 (the
    # file says 30.00); and a later day's sequence than the file's
    with psycopg.connect(pg_url) as conn:
        conn.execute(
            "INSERT INTO links (profile_id, mode, tx_ref, amount_minor, currency, email,"
            " first_name, last_name, state, created_at, updated_at)"
            " VALUES (%s, 'test', 'PDK-3', 3100, 'GBP', 'ada@example.com', 'Ada', 'Lovelace',"
            " 'pending', now(), now())",
            (SHOP,),
        )
        conn.execute("INSERT INTO sequences (day, value) VALUES ('2026-11-23', 30), ('2026-11-20', 1)")
    report = await import_ledger(engine, desk_file, MERCHANTS, installation=DESK)
    assert figures(report)["links"] == (6, 0, 0, 1, 1)
    assert figures(report)["sequences"] == (0, 1, 1, 0, 0)  # 20th raised to 4, 23rd kept at 30
    assert [c.text() for c in report.clashes] == [
        f"links {SHOP} / PDK-3: amount_minor 3000 here, 3100 in the shared ledger"
    ]
    assert "Clashes, the shared ledger's record kept:" in report.lines()
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT amount_minor FROM links WHERE tx_ref = 'PDK-3'").fetchone()[0] == 3100
        assert dict(conn.execute("SELECT day::text, value FROM sequences").fetchall()) == {
            "2026-11-20": 4,
            "2026-11-23": 30,
        }


async def test_what_cannot_be_imported_is_refused_whole(engine, tmp_path, pg_url):
    with pytest.raises(ImportRefused, match="There is no ledger at"):
        await import_ledger(engine, tmp_path / "nowhere.sqlite3", MERCHANTS)
    (tmp_path / "notes.txt").write_text("not a ledger")
    with pytest.raises(ImportRefused, match="is not a PayDesk ledger"):
        await import_ledger(engine, tmp_path / "notes.txt", MERCHANTS)
    for version, said in ((99, "written by a newer PayDesk"), (3, "open it once with this")):
        other = tmp_path / f"v{version}.sqlite3"
        with sqlite3.connect(other) as db:
            db.execute(f"PRAGMA user_version = {version}")
        with pytest.raises(ImportRefused, match=said):
            await import_ledger(engine, other, MERCHANTS)
    assert counted(pg_url)["events"] == 0


async def test_an_operation_another_desk_has_under_way_is_a_clash(engine, desk_file, pg_url):
    # another desk is blocking card 2 right now: the file's own open block of it cannot be
    # one more open operation on that card (the shared ledger's partial unique index)
    with psycopg.connect(pg_url) as conn:
        conn.execute(
            "INSERT INTO card_operations (profile_id, mode, kind, card_hash, state,"
            " started_at) VALUES (%s, 'test', 'block', 'ch_0002', 'sending', now())",
            (SHOP,),
        )
    report = await import_ledger(engine, desk_file, MERCHANTS, installation=DESK)
    assert figures(report)["card_operations"] == (1, 0, 0, 1, 0)
    assert figures(report)["card_audit"] == (4, 0, 0, 0, 0)  # the history is kept whole
    assert [c.text() for c in report.clashes] == [
        f"card_operations {DESK}:2: refused by the shared ledger: another operation on this"
        " card (or another card creation) is under way there"
    ]
    with psycopg.connect(pg_url) as conn:
        # its audit line is there, naming no operation of the shared ledger
        assert (
            conn.execute("SELECT operation_id FROM card_audit WHERE origin_key = %s", (f"{DESK}:3",)).fetchone()[0]
            is None
        )
        assert conn.execute("SELECT count(*) FROM card_operations WHERE state = 'sending'").fetchone()[0] == 1


def _link(record):
    """A record as both ledgers must agree on it: its id and profile id are each ledger's."""
    return None if record is None else (replace(record, id=0, profile_id=""), record.raw_json)


def _operation(op, ids):
    return replace(op, id=ids[op.id], profile_id="")


async def test_the_shared_ledger_reads_as_the_file_did(engine, desk_file):
    from paydesk.ledger.postgres.cards import PostgresCardLedger
    from paydesk.ledger.postgres.links import PostgresLedger

    await import_ledger(engine, desk_file, MERCHANTS, installation=DESK)
    here = SqliteLedger(desk_file)
    await here.opened()
    here_cards = SqliteCardLedger.beside(here)
    shared, shared_cards = PostgresLedger(engine), PostgresCardLedger(engine)
    try:
        # every record, one by one and as the browser pages, searches and counts them
        for ref in ("PDK-1", "PDK-2", "PDK-3", "PDK-4", "PDK-5", "PDK-6", "WEB-1"):
            assert _link(await shared.get(SHOP, ref)) == _link(await here.get("p_shop", ref))
        assert await shared.get(SHOP, "OLD-1") is None  # its profile names no merchant
        for mode in ("test", "live"):
            for query in (
                LinkQuery("p_shop", mode),
                LinkQuery("p_shop", mode, text="lovelace"),
                LinkQuery("p_shop", mode, sort="amount", descending=False),
                LinkQuery("p_shop", mode, states=frozenset({"pending"})),
                LinkQuery("p_shop", mode, origin="lookup"),
            ):
                mapped = replace(query, profile_id=SHOP)
                want = await here.page(query, limit=3)
                got = await shared.page(mapped, limit=3)
                assert [_link(r) for r in got.records] == [_link(r) for r in want.records]
                assert got.more == want.more
                assert await shared.count(mapped) == await here.count(query)
        day = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        want_day = await here.day_summary("p_shop", "test", day, day + timedelta(days=1))
        got_day = await shared.day_summary(SHOP, "test", day, day + timedelta(days=1))
        assert (got_day.states, got_day.totals) == (want_day.states, want_day.totals)
        assert [_link(r) for r in await shared.open_records(SHOP)] == [
            _link(r) for r in await here.open_records("p_shop")
        ]
        assert [_link(r) for r in await shared.unsettled(SHOP)] == [_link(r) for r in await here.unsettled("p_shop")]
        since = datetime(2020, 1, 1, tzinfo=UTC)
        assert [_link(r) for r in (await shared.paid_since(since, SHOP)).records] == [
            _link(r) for r in (await here.paid_since(since, "p_shop")).records
        ]
        assert await shared.by_reference(SHOP, "REFW1") is not None
        for on in (date(2026, 11, 20), date(2026, 11, 23), date(2026, 11, 24)):
            assert await shared.peek_sequence(on) == await here.peek_sequence(on)

        # the wallet: cards, their transactions, operations and the audit
        query = CardQuery("p_shop", "test")
        want_cards = (await here_cards.card_page(query)).records
        got_cards = (await shared_cards.card_page(replace(query, profile_id=SHOP))).records
        assert [replace(c, profile_id="") for c in got_cards] == [replace(c, profile_id="") for c in want_cards]
        assert await shared_cards.card_count(CardQuery(SHOP, "test", text="0002")) == 1
        assert await shared_cards.refreshed_at(SHOP, "test") == await here_cards.refreshed_at("p_shop", "test")
        assert await shared_cards.transactions(SHOP, "test", "ch_0001") == await here_cards.transactions(
            "p_shop", "test", "ch_0001"
        )
        want_ops = await here_cards.operations("p_shop", "test")
        got_ops = await shared_cards.operations(SHOP, "test")
        ids = {mine.id: theirs.id for mine, theirs in zip(want_ops, got_ops, strict=True)}
        assert [replace(o, profile_id="") for o in got_ops] == [_operation(o, ids) for o in want_ops]
        assert [o.id for o in await shared_cards.open_operations(SHOP)] == [
            ids[o.id] for o in await here_cards.open_operations("p_shop")
        ]
        assert await shared_cards.service_words(SHOP, "test", "fund") == await here_cards.service_words(
            "p_shop", "test", "fund"
        )
        want_audit, want_more = await here_cards.audit_page(AuditQuery("p_shop", "test"))
        got_audit, got_more = await shared_cards.audit_page(AuditQuery(SHOP, "test"))
        assert got_more == want_more and len(got_audit) == len(want_audit) == 4
        for mine, theirs in zip(want_audit, got_audit, strict=True):
            assert replace(theirs, id=0, profile_id="", operation_id=None) == replace(
                mine, id=0, profile_id="", operation_id=None
            )
            assert theirs.operation_id == (ids[mine.operation_id] if mine.operation_id else None)
        assert await shared_cards.audit_count(AuditQuery(SHOP, "test", text="kim")) == 4
    finally:
        await here.close()


def run_paydesk(*args, keyring_file, timeout=120):
    """``paydesk ARGS`` in a process of its own, with no display (the import opens no
    window: a window would stop at "no display"), its keyring the test's file."""
    env = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "tests.file_keyring.FileKeyring",
        file_keyring.VARIABLE: str(keyring_file),
        "QT_QPA_PLATFORM": "xcb",
    }
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "paydesk", *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.slow  # a process importing a ledger, about 9 s: ./dev test runs it, ./dev check leaves it out
async def test_the_command_line_imports_this_desks_ledger(tmp_path, pg_url):
    from paydesk.config.merchants import merchant_id

    data = tmp_path / "data"
    data.mkdir()
    await make_desk_ledger(data / "ledger.sqlite3")
    (data / "profiles.json").write_text(
        json.dumps(
            {
                "profiles": [{"id": "p_shop", "name": "Shop", "base_url": "https://pay.example/"}],
                "active_profile": "p_shop",
                "installation_id": DESK,
            }
        )
    )
    keys = tmp_path / "keyring.json"
    file_keyring.write(keys, {("PayDesk", "p_shop/test/public"): "PK_TEST-0001"})
    merchant = merchant_id("https://pay.example", "PK_TEST-0001")

    counted_first = run_paydesk(
        "--data-dir", data, "--ledger", pg_url, "--import-ledger", "--dry-run", keyring_file=keys
    )
    assert counted_first.returncode == 0, counted_first.stderr
    lines = counted_first.stdout.splitlines()
    assert lines[0].startswith("Dry run: nothing was written. Importing ")
    assert any(line.split() == ["links", "and", "lookups", "7", "0", "0", "0", "1"] for line in lines)
    assert lines[-1].startswith("Skipped: 1 record of profile p_gone, which names no merchant")
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM links").fetchone()[0] == 0

    done = run_paydesk("--data-dir", data, "--ledger", pg_url, "--import-ledger", keyring_file=keys)
    assert done.returncode == 0, done.stderr
    assert not done.stdout.startswith("Dry run")
    again = run_paydesk(
        "--data-dir", data, "--ledger", pg_url, "--import-ledger", data / "ledger.sqlite3", keyring_file=keys
    )
    assert again.returncode == 0, again.stderr
    assert any(
        line.split() == ["links", "and", "lookups", "0", "0", "7", "0", "1"] for line in again.stdout.splitlines()
    )
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*), min(profile_id) FROM links").fetchone() == (7, merchant)
        assert (
            conn.execute("SELECT desk, kind FROM events").fetchall() == [(DESK, "import")] * 2
        )  # the real runs' (not the dry run's)

    missing = run_paydesk(
        "--data-dir", data, "--ledger", pg_url, "--import-ledger", tmp_path / "elsewhere.sqlite3", keyring_file=keys
    )
    assert missing.returncode == 1
    assert "There is no ledger at" in missing.stderr
    unnamed = run_paydesk("--data-dir", data, "--import-ledger", keyring_file=keys)
    assert unnamed.returncode == 2 and "--ledger URL" in unnamed.stderr
