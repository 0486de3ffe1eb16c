"""Search folds accents and case (issue 28, item 17b), on both backends alike: "Odeg",
"degard" and "ØDEGÅRD" find "Ødegård"; letters that no decomposition takes apart fold too
(Ø ø ß æ œ ł đ ð þ: "Odegard", "Strasse", "Lukasz"); through the trigram index for a
selective term and along the sort's index for a broad one; a file or a database made before
the folding is migrated, its rows searchable at once."""

from __future__ import annotations

import os
import sqlite3
import unicodedata
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from paydesk.ledger import LinkQuery, LinkRecord, SqliteLedger
from paydesk.ledger.fold import fold
from paydesk.ledger.schema import LATEST, migrate
from tests.link_ledgers import BACKENDS, make_ledger, shared_ledger

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
PEOPLE = {  # tx_ref: (first name, last name, e-mail)
    "F-1": ("Sigrid", "Ødegård", "sigrid@example.no"),
    "F-2": ("Ole", "Odegard", "ole@example.no"),
    "F-3": ("Zoë", "Brontë", "zoe.b@example.com"),
    "F-4": ("Johann", "Straßer", "johann@example.at"),
    "F-5": ("Łukasz", "Żółć", "lukasz@example.pl"),
    "F-6": ("Æsa", "Cœur", "aesa@example.fr"),
    "F-7": ("ÉLODIE", "Dupont", "élodie@exemple.fr"),
    "F-8": ("Þóra", "Ðórsdóttir", "thora@example.is"),
    "F-9": ("Ada", "Lovelace", "ada@example.com"),
    # decomposed (NFD) as some keyboards and forms send it: O + combining ring, e + acute
    "F-10": ("Ma\u030ailin", "Dage\u0301", "malin@example.se"),
}


def records(profile: str = "p1") -> list[LinkRecord]:
    return [
        LinkRecord(
            id=0,
            profile_id=profile,
            mode="test",
            tx_ref=ref,
            amount=Decimal(5),
            currency="GBP",
            email=email,
            first_name=first,
            last_name=last,
            state="pending",
            created_at=NOW - timedelta(minutes=i),
            updated_at=NOW - timedelta(minutes=i),
            reference=f"PDK-{i:04d}",
        )
        for i, (ref, (first, last, email)) in enumerate(PEOPLE.items())
    ]


@pytest.fixture(params=BACKENDS)
async def ledger(request, tmp_path):
    opened = make_ledger(request, tmp_path / "f.sqlite3")
    assert await opened.import_records(records()) == len(PEOPLE)
    yield opened
    await opened.close()


async def found(ledger, text: str, **over) -> set[str]:
    out, after = set(), None
    query = LinkQuery("p1", "test", text=text, **over)
    while True:
        page = await ledger.page(query, after=after, limit=3)
        out |= {r.tx_ref for r in page.records}
        if not page.more:
            assert await ledger.count(query) == len(out)
            return out
        after = page.end


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Odeg", {"F-1", "F-2"}),
        ("degård", {"F-1", "F-2"}),
        ("Ødegård", {"F-1", "F-2"}),
        ("ØDEGÅRD", {"F-1", "F-2"}),
        ("odegard", {"F-1", "F-2"}),
        ("sigrid ode", {"F-1"}),
        ("zoe", {"F-3"}),
        ("ZOË", {"F-3"}),
        ("bronte", {"F-3"}),
        ("strasse", {"F-4"}),
        ("Straß", {"F-4"}),
        ("STRASSER", {"F-4"}),
        ("lukasz", {"F-5"}),
        ("zolc", {"F-5"}),
        ("ŻÓŁĆ", {"F-5"}),
        ("aesa", {"F-6"}),
        ("coeur", {"F-6"}),
        ("Œ", {"F-3", "F-6"}),
        ("elodie", {"F-7"}),
        ("Élodie", {"F-7"}),
        ("exemple", {"F-7"}),
        ("thora", {"F-8"}),
        ("dorsdottir", {"F-8"}),
        ("Þóra", {"F-8"}),
        ("malin", {"F-10"}),
        ("Målin", {"F-10"}),
        ("dage", {"F-10"}),
        ("lovelace", {"F-9"}),
        ("o", {"F-1", "F-2", "F-3", "F-4", "F-5", "F-6", "F-7", "F-8", "F-9"}),
        ("pdk-0003", {"F-4"}),
        ("f-1", {"F-1", "F-10"}),
        ("nobody", set()),
    ],
)
async def test_search_folds_accents_and_case(ledger, text, expected):
    assert await found(ledger, text) == expected
    assert await found(ledger, text, sort="customer") == expected


@pytest.mark.slow  # a large ledger on each backend, about 9 s and 4 s: ./dev test runs it, ./dev check leaves it out
async def test_a_broad_folded_term_is_found_along_the_sorts_index(ledger):
    """Thousands of "Ødegård": a term that broad is checked row by row (SQLite's BROAD),
    folded all the same."""
    many = [
        LinkRecord(
            id=0,
            profile_id="p1",
            mode="test",
            tx_ref=f"B-{i:05d}",
            amount=Decimal(5),
            currency="GBP",
            email=f"b{i}@example.no",
            first_name="Bjørn",
            last_name="Ødegård",
            state="success",
            created_at=NOW - timedelta(hours=i),
            updated_at=NOW,
            reference=None,
        )
        for i in range(2100)
    ]
    assert await ledger.import_records(many) == 2100
    assert len(await found(ledger, "odegard")) == 2100 + 2
    assert len(await found(ledger, "bjorn ode")) == 2100
    assert len(await found(ledger, "BJØRN")) == 2100


async def test_by_the_services_reference_still_finds_it(ledger):
    assert (await ledger.by_reference("p1", "PDK-0004")).tx_ref == "F-5"
    assert await ledger.by_reference("p1", "pdk-0004") is None  # the reference, exactly


def test_the_fold_is_idempotent_and_keeps_what_it_does_not_know():
    sample = "".join(chr(c) for c in range(0x20, 0x2000) if unicodedata.category(chr(c))[0] != "C")
    once = fold(sample)
    assert fold(once) == once
    assert fold("Ødegård Strauß ŁÓDŹ Æble Œuvre ÞÓRA Ðan") == "odegard strauss lodz aeble oeuvre thora dan"
    assert fold("O\u030a") == "o" and fold("\x1f") == "\x1f" and fold("漢字 😀") == "漢字 😀"
    assert fold("ABC xyz 123 _%\\") == "abc xyz 123 _%\\"


async def test_postgresql_folds_every_letter_as_the_desk_does(pg_url):
    """The shared ledger's generated column folds with a function of its own (made from the
    same table): every character of the folded ranges, and then some, folds alike."""
    ledger = shared_ledger(pg_url)
    try:
        await ledger.opened()
        text = (
            "".join(chr(c) for c in range(0x20, 0x2000) if unicodedata.category(chr(c))[0] != "C") + "\x1f漢字😀 한국 Ǿ"
        )
        row = await ledger._engine.read(
            lambda conn: conn.execute("SELECT paydesk_fold(%s) AS folded", (text,)).fetchone()
        )
        assert row["folded"] == fold(text)
    finally:
        await ledger.close()


async def test_a_file_made_before_the_folding_is_searchable_once_opened(tmp_path):
    path = tmp_path / "v9.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, target=9)
    db.execute(
        "INSERT INTO links (profile_id, mode, tx_ref, amount_minor, currency, email,"
        " first_name, last_name, state, created_at, updated_at)"
        " VALUES ('p1', 'test', 'OLD-1', 500, 'GBP', 'x@example.no', 'Sigrid',"
        " 'Ødegård', 'pending', '2026-01-02T10:00:00.000000Z',"
        " '2026-01-02T10:00:00.000000Z')"
    )
    db.execute("INSERT INTO links_fts (rowid, search_text) SELECT id, search_text FROM links")
    db.close()
    ledger = SqliteLedger(path)
    try:
        await ledger.opened()
        assert ledger.version == LATEST
        assert await found(ledger, "odegard") == {"OLD-1"}
        assert await found(ledger, "Ødeg") == {"OLD-1"}
    finally:
        await ledger.close()


async def test_a_shared_ledger_made_before_the_folding_is_searchable_once_opened(pg_server):
    """A database at migration 5 (no folding), with a row in it, opened by this PayDesk."""
    import psycopg

    from paydesk.ledger.postgres import schema

    name = pg_server.create_database(f"before_folding_{os.getpid()}")
    url = pg_server.url(name)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(schema._LEDGER)
        for number, sql in schema.MIGRATIONS:
            if number <= 5:
                with conn.transaction():
                    conn.execute(sql)
                    conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (number,))
        conn.execute(
            "INSERT INTO links (profile_id, mode, tx_ref, amount_minor, currency,"
            " email, first_name, last_name, state, created_at, updated_at) VALUES"
            " ('p1', 'test', 'OLD-1', 500, 'GBP', 'x@example.no', 'Sigrid',"
            " 'Ødegård', 'pending', now(), now())"
        )
    ledger = shared_ledger(url)
    try:
        await ledger.opened()
        assert ledger.version == schema.KNOWN > 5
        assert await found(ledger, "odegard") == {"OLD-1"}
    finally:
        await ledger.close()
        pg_server.drop_database(name)
