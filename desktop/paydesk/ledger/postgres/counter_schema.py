"""The shared ledger's migration 4, mirroring the desk's file (``ledger/counter_schema.py``,
schema v8): the counters' book (shifts and their closes, sales, voids, decisions after a
void), each one row written once. The database keeps it append-only: a trigger refuses
UPDATE, DELETE and TRUNCATE on every table, whoever sends them.

At most one open shift per counter, profile and mode, and one number per sale of a counter,
with several desks: ``PostgresCounterBook`` takes a transaction's advisory lock on the
counter's name before it reads and writes (``UNIQUE (counter, number)`` stands behind it).
Times are ``timestamptz``; compared text is ``COLLATE "C"`` (byte order, as SQLite's).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..counter import DECISIONS
from ..counter_schema import APPEND_ONLY, SALES_INDEXES, TABLES

VERSION = 4


def _quoted(values: Iterable[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


def _append_only(table: str) -> list[str]:
    return [
        f"""CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
                FOR EACH ROW EXECUTE FUNCTION counter_book_append_only()""",
        f"""CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table}
                FOR EACH STATEMENT EXECUTE FUNCTION counter_book_append_only()""",
    ]


STATEMENTS = [
    """CREATE TABLE counter_shifts (
        id bigserial PRIMARY KEY,
        counter text COLLATE "C" NOT NULL,
        profile_id text COLLATE "C" NOT NULL,
        mode text COLLATE "C" NOT NULL CHECK (mode IN ('test', 'live')),
        opened_at timestamptz NOT NULL DEFAULT now(),
        opened_by text NOT NULL
    )""",
    "CREATE INDEX counter_shifts_by_counter ON counter_shifts (counter, profile_id, mode, id)",
    "CREATE INDEX counter_shifts_by_profile ON counter_shifts (profile_id, mode, id)",
    """CREATE TABLE counter_shift_closes (
        shift_id bigint NOT NULL UNIQUE REFERENCES counter_shifts (id),
        closed_at timestamptz NOT NULL DEFAULT now(),
        closed_by text NOT NULL,
        figures text NOT NULL
    )""",
    """CREATE TABLE counter_sales (
        id bigserial PRIMARY KEY,
        profile_id text COLLATE "C" NOT NULL,
        mode text COLLATE "C" NOT NULL CHECK (mode IN ('test', 'live')),
        tx_ref text COLLATE "C" NOT NULL,
        counter text COLLATE "C" NOT NULL,
        shift_id bigint NOT NULL REFERENCES counter_shifts (id),
        number integer NOT NULL CHECK (number > 0),
        made_at timestamptz NOT NULL DEFAULT now(),
        made_by text NOT NULL,
        UNIQUE (profile_id, tx_ref),
        UNIQUE (counter, number)
    )""",
    *SALES_INDEXES,
    """CREATE TABLE counter_voids (
        profile_id text COLLATE "C" NOT NULL,
        tx_ref text COLLATE "C" NOT NULL,
        voided_at timestamptz NOT NULL DEFAULT now(),
        voided_by text NOT NULL,
        UNIQUE (profile_id, tx_ref),
        FOREIGN KEY (profile_id, tx_ref) REFERENCES counter_sales (profile_id, tx_ref)
    )""",
    f"""CREATE TABLE counter_decisions (
        profile_id text COLLATE "C" NOT NULL,
        tx_ref text COLLATE "C" NOT NULL,
        decision text COLLATE "C" NOT NULL CHECK (decision IN ({_quoted(DECISIONS)})),
        decided_at timestamptz NOT NULL DEFAULT now(),
        decided_by text NOT NULL,
        UNIQUE (profile_id, tx_ref),
        FOREIGN KEY (profile_id, tx_ref) REFERENCES counter_sales (profile_id, tx_ref)
    )""",
    f"""CREATE FUNCTION counter_book_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '{APPEND_ONLY}' USING ERRCODE = 'integrity_constraint_violation';
        END $$""",
    *[step for table in TABLES for step in _append_only(table)],
]

MIGRATION: tuple[int, str] = (VERSION, ";\n".join(STATEMENTS))
