"""The counters' book in a desk's SQLite file (schema v8): shifts and their closes, sales,
voids and decisions after a void, each one row written once. Triggers refuse UPDATE and
DELETE on every table, as on the card audit (``card_schema.py``): what a sale *is* now is
derived when read (``counter_sql.KIND``), and a closed shift's figures never change.

A shift is open while it has no close row. Sale numbers run per counter across its shifts
(UNIQUE (counter, number)); a sale's link is the ``links`` row of the same (profile_id,
tx_ref), written after the sale.
"""

from __future__ import annotations

from collections.abc import Iterable

from .counter import DECISIONS

TABLES = ("counter_shifts", "counter_shift_closes", "counter_sales", "counter_voids", "counter_decisions")
APPEND_ONLY = "the counter book is append-only"  # said inside SQL quotes
# the lists' seeks (both backends), newest first: a counter's, a profile's, a shift's; a
# counter's day (its sales since a time); the voided and open ones are found from
# counter_voids and links_open (counter_sql._few)
SALES_INDEXES = [
    "CREATE INDEX counter_sales_by_counter ON counter_sales (counter, profile_id, mode, id)",
    "CREATE INDEX counter_sales_by_day ON counter_sales (counter, profile_id, mode, made_at)",
    "CREATE INDEX counter_sales_by_profile ON counter_sales (profile_id, mode, id)",
    "CREATE INDEX counter_sales_by_shift ON counter_sales (shift_id, id)",
]


def _quoted(values: Iterable[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


def _append_only(table: str) -> list[str]:
    return [
        f"""CREATE TRIGGER {table}_append_only_{verb.lower()} BEFORE {verb} ON {table}
               BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}'); END"""
        for verb in ("UPDATE", "DELETE")
    ]


V8 = [
    """CREATE TABLE counter_shifts (
        id INTEGER PRIMARY KEY,
        counter TEXT NOT NULL,
        profile_id TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
        opened_at TEXT NOT NULL,
        opened_by TEXT NOT NULL
    )""",
    # a counter's open shift (the newest of its profile and mode); every counter's shifts
    "CREATE INDEX counter_shifts_by_counter ON counter_shifts (counter, profile_id, mode, id)",
    "CREATE INDEX counter_shifts_by_profile ON counter_shifts (profile_id, mode, id)",
    """CREATE TABLE counter_shift_closes (
        shift_id INTEGER NOT NULL UNIQUE REFERENCES counter_shifts (id),
        closed_at TEXT NOT NULL,
        closed_by TEXT NOT NULL,
        figures TEXT NOT NULL
    )""",
    """CREATE TABLE counter_sales (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
        tx_ref TEXT NOT NULL,
        counter TEXT NOT NULL,
        shift_id INTEGER NOT NULL REFERENCES counter_shifts (id),
        number INTEGER NOT NULL CHECK (number > 0),
        made_at TEXT NOT NULL,
        made_by TEXT NOT NULL,
        UNIQUE (profile_id, tx_ref),
        UNIQUE (counter, number)
    )""",
    *SALES_INDEXES,
    """CREATE TABLE counter_voids (
        profile_id TEXT NOT NULL,
        tx_ref TEXT NOT NULL,
        voided_at TEXT NOT NULL,
        voided_by TEXT NOT NULL,
        UNIQUE (profile_id, tx_ref),
        FOREIGN KEY (profile_id, tx_ref) REFERENCES counter_sales (profile_id, tx_ref)
    )""",
    f"""CREATE TABLE counter_decisions (
        profile_id TEXT NOT NULL,
        tx_ref TEXT NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ({_quoted(DECISIONS)})),
        decided_at TEXT NOT NULL,
        decided_by TEXT NOT NULL,
        UNIQUE (profile_id, tx_ref),
        FOREIGN KEY (profile_id, tx_ref) REFERENCES counter_sales (profile_id, tx_ref)
    )""",
    *[step for table in TABLES for step in _append_only(table)],
]
