"""The shared ledger's schema, as numbered migrations recorded in ``schema_migrations``.

Each migration is one SQL text (several statements, no parameters) run in one transaction;
``migrate`` runs those a database lacks under an advisory lock, so two desks opening a new
database at the same moment migrate it once. A database whose newest migration is above
``KNOWN`` was upgraded by a newer PayDesk: ``migrate`` leaves it alone and returns its
version (the engine then opens it read-only).

The links table mirrors SQLite's (``..schema``): the same columns, checks and an index per
sort (``SORT_INDEXES``). Text that is sorted or compared is ``COLLATE "C"``: byte order, as
SQLite's BINARY, whatever the database's locale, so both backends page in the same order
(and ``lower`` folds ASCII only, as SQLite's does).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from psycopg import Connection, errors

from ..records import FINAL, ORIGINS, STATES
from ..schema import SORT_INDEXES
from . import (
    actor_schema,
    batch_schema,
    budget_learn,
    budget_schema,
    budget_spread,
    card_schema,
    counter_schema,
    desks,
    inbox_schema,
    refused_schema,
    requests_schema,
    search_schema,
    staff_schema,
)
from .search_schema import SEARCH_TEXT

LOCK = 0x7061_7964_6573_6B  # pg_advisory_lock key of migrations ("paydesk")


def _quoted(values: Iterable[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


V1 = f"""
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE links (
    id bigserial PRIMARY KEY,
    profile_id text COLLATE "C" NOT NULL,   -- the merchant (merchants.id) on a shared ledger
    mode text COLLATE "C" NOT NULL CHECK (mode IN ('test', 'live')),
    tx_ref text COLLATE "C" NOT NULL,
    amount_minor bigint NOT NULL,
    fee_minor bigint,
    currency text COLLATE "C" NOT NULL,
    email text COLLATE "C" NOT NULL,
    first_name text COLLATE "C" NOT NULL,
    last_name text COLLATE "C" NOT NULL,
    customer text COLLATE "C" GENERATED ALWAYS AS (trim(first_name || ' ' || last_name)) STORED,
    customer_key text COLLATE "C"
        GENERATED ALWAYS AS (lower(trim(first_name || ' ' || last_name))) STORED,
    search_text text COLLATE "C" GENERATED ALWAYS AS ({SEARCH_TEXT}) STORED,
    state text COLLATE "C" NOT NULL CHECK (state IN ({_quoted(STATES)})),
    state_raw text,
    checkout_url text,
    reference text COLLATE "C",
    customization text NOT NULL DEFAULT '{{}}',
    meta text NOT NULL DEFAULT '{{}}',
    callback_url text,
    return_url text,
    origin text COLLATE "C" NOT NULL DEFAULT 'link' CHECK (origin IN ({_quoted(ORIGINS)})),
    error text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    checked_at timestamptz,
    raw text,
    UNIQUE (profile_id, tx_ref)
);
{
    "".join(
        f'''
CREATE INDEX links_by_{name} ON links (profile_id, mode, {", ".join(columns)});'''
        for name, columns in SORT_INDEXES.items()
        if name != "reference"
    )
}
-- what the poller watches and settles: few rows, found without a scan
CREATE INDEX links_open ON links (profile_id, mode, created_at)
    WHERE state NOT IN ({_quoted(FINAL)});
-- paid records by when they were paid, re-read for refunds and reversals (paid_since)
CREATE INDEX links_paid ON links (updated_at, id) WHERE state = 'success';
-- substring search over the references, e-mail and name: trigrams, not a scan (built
-- again on the folded text by migration 6)
CREATE INDEX links_search ON links USING gin (search_text gin_trgm_ops);

-- the day's reference sequence, claimed atomically (UPDATE ... RETURNING)
CREATE TABLE sequences (
    day date PRIMARY KEY,
    value integer NOT NULL
);

-- every change, in the transaction that made it; NOTIFY paydesk_events carries the id only
CREATE TABLE events (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT now(),
    desk text NOT NULL,
    kind text NOT NULL,
    profile_id text NOT NULL DEFAULT '',
    mode text NOT NULL DEFAULT '',
    key text NOT NULL DEFAULT ''
);

-- one poller per shop: the desk holding this row checks open links for all
CREATE TABLE poller_lease (
    shop integer PRIMARY KEY DEFAULT 1,
    holder text,
    holder_name text,
    epoch bigint NOT NULL DEFAULT 0,
    expires_at timestamptz
);

-- the shop's merchants (profiles without their keys), shared by every desk
CREATE TABLE merchants (
    id text PRIMARY KEY,
    profile jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    updated_by text
);
"""

# (version, SQL); each desk's PayDesk knows up to KNOWN. Migration 2 (the card tables) is
# card_schema.py's; 3 (the notification inbox, links.learned_by, the lease's priority)
# inbox_schema.py's; 4 (the counters' book) counter_schema.py's; 5 (the batches of bulk
# links) batch_schema.py's; 6 (refused requests traced apart from the inbox)
# refused_schema.py's; 7 (the shop's desks, by name) desks.py's; 8 (search folding accents
# and case) search_schema.py's; 9 (the shop's call budget) budget_schema.py's; 10 (the
# classes below a person's spread their calls) budget_spread.py's; 11 (a limit learned from
# a 429 only in a window the shop's calls began) budget_learn.py's; 12 (sale requests of
# counters without keys, their limits) requests_schema.py's; 13 (the staff book)
# staff_schema.py's; 14 (who did it, and the activity book) actor_schema.py's. In order of
# their numbers.
MIGRATIONS: list[tuple[int, str]] = [
    (1, V1),
    card_schema.MIGRATION,
    inbox_schema.MIGRATION,
    counter_schema.MIGRATION,
    batch_schema.MIGRATION,
    refused_schema.MIGRATION,
    desks.MIGRATION,
    search_schema.MIGRATION,
    budget_schema.MIGRATION,
    budget_spread.MIGRATION,
    budget_learn.MIGRATION,
    requests_schema.MIGRATION,
    staff_schema.MIGRATION,
    actor_schema.MIGRATION,
]
KNOWN = max(version for version, _ in MIGRATIONS)

_LEDGER = """CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
)"""


def version(conn: Connection[Any]) -> int:
    """The newest migration the database holds (0: none, or not a PayDesk ledger yet)."""
    row = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL AS made").fetchone()
    if not _first(row):
        return 0
    row = conn.execute("SELECT COALESCE(max(version), 0) AS version FROM schema_migrations").fetchone()
    return int(_first(row))


def _version_at_once(conn: Connection[Any]) -> int:
    """The database's version in one round trip, without the lock (0: no migrations table).
    Each migration commits with its row, so a version read here is wholly there."""
    try:
        row = conn.execute("SELECT COALESCE(max(version), 0) AS version FROM schema_migrations").fetchone()
    except errors.UndefinedTable:  # a new database (autocommit: nothing to roll back)
        return 0
    return int(_first(row))


def migrate(conn: Connection[Any]) -> int:
    """Apply the migrations the database lacks, each in one transaction, under an advisory
    lock; return the database's version afterwards (above KNOWN: a newer PayDesk's, left
    as it is). ``conn`` is in autocommit mode and outside any transaction. A database
    already at KNOWN (or above) costs one round trip: no lock is taken to find that."""
    current = _version_at_once(conn)
    if current >= KNOWN:
        return current
    conn.execute("SELECT pg_advisory_lock(%s)", (LOCK,))
    try:
        current = version(conn)
        if current > KNOWN:
            return current
        if current == 0:
            conn.execute(_LEDGER)
        for number, sql in MIGRATIONS:
            if number <= current:
                continue
            with conn.transaction():
                conn.execute(sql)  # several statements: so no parameters
                conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (number,))
            current = number
        return current
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (LOCK,))


def _first(row: Any) -> Any:
    """A row's first value, whatever the connection's row factory."""
    if row is None:
        return None
    if isinstance(row, dict):
        return next(iter(row.values()))
    return row[0]
