"""The batches' book in a desk's SQLite file (schema v9, ``batch.py``): the batches, their
rows (each with the reference it maps to) and the e-mail notes of the rows.

A batch and an e-mail note are written once (triggers refuse UPDATE and DELETE, as on the
counter's book). A row is never deleted and its batch, number and profile never change; its
reference is set once (triggers refuse the rest): a skipped row holds none (NULL) until a
corrected file makes it valid, so a row skipped because its reference is another payment's
never reads that payment as its own. Only a row never sent takes a corrected file's values
and skipped flag (``add_rows``). What a row *is* is derived when read from its link
(``batch_sql.STATE``), joined by (profile_id, tx_ref) when it has a reference.
"""

from __future__ import annotations

from .batch import POLICIES

TABLES = ("batches", "batch_rows", "batch_emails")
APPEND_ONLY = "the batch book is append-only"  # said inside SQL quotes
FIXED = "a batch row keeps its batch, number and reference"
KEPT = ("batch_id", "number", "profile_id")  # the row columns that never change
REF_ONCE = "OLD.tx_ref IS NOT NULL"  # tx_ref changes only from NULL (a skipped row made valid)


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)


def _refuse(table: str, verb: str, why: str, of: str = "", when: str = "", name: str = "") -> str:
    when = f" FOR EACH ROW WHEN {when}" if when else ""
    return f"""CREATE TRIGGER {table}_refuse_{name or verb.lower()} BEFORE {verb}{of} ON {table}
               {when} BEGIN SELECT RAISE(ABORT, '{why}'); END"""


V9 = [
    f"""CREATE TABLE batches (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
        name TEXT NOT NULL,
        file_name TEXT NOT NULL,
        made_at TEXT NOT NULL,
        made_by TEXT NOT NULL,
        policy TEXT NOT NULL CHECK (policy IN ({_quoted(POLICIES)})),
        prefix TEXT NOT NULL
    )""",
    # a profile's batches newest first; the newest of a file name (a corrected file)
    "CREATE INDEX batches_by_profile ON batches (profile_id, mode, id)",
    "CREATE INDEX batches_by_file ON batches (profile_id, mode, file_name, id)",
    """CREATE TABLE batch_rows (
        batch_id INTEGER NOT NULL REFERENCES batches (id),
        number INTEGER NOT NULL CHECK (number > 0),
        profile_id TEXT NOT NULL,
        tx_ref TEXT,
        cells TEXT NOT NULL,
        skipped INTEGER NOT NULL CHECK (skipped IN (0, 1)),
        PRIMARY KEY (batch_id, number)
    )""",
    # which batch a link is in (its change shown live in that batch's figures)
    "CREATE INDEX batch_rows_by_ref ON batch_rows (profile_id, tx_ref, batch_id)",
    """CREATE TABLE batch_emails (
        id INTEGER PRIMARY KEY,
        batch_id INTEGER NOT NULL,
        number INTEGER NOT NULL,
        ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
        error TEXT,
        noted_at TEXT NOT NULL,
        FOREIGN KEY (batch_id, number) REFERENCES batch_rows (batch_id, number)
    )""",
    "CREATE INDEX batch_emails_by_row ON batch_emails (batch_id, number, id)",
    *[_refuse(table, verb, APPEND_ONLY) for table in ("batches", "batch_emails") for verb in ("UPDATE", "DELETE")],
    _refuse("batch_rows", "DELETE", APPEND_ONLY),
    _refuse("batch_rows", "UPDATE", FIXED, f" OF {', '.join(KEPT)}"),
    _refuse("batch_rows", "UPDATE", FIXED, " OF tx_ref", REF_ONCE, "ref"),
]
