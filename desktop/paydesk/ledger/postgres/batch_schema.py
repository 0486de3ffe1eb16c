"""The shared ledger's migration 5, mirroring the desk's file (``ledger/batch_schema.py``,
schema v9): the batches of bulk links, their rows and the rows' e-mail notes.

A batch and an e-mail note are written once; a row is never deleted and never changes its
batch, number or profile, and its reference is set once (a skipped row holds none until a
corrected file makes it valid); triggers refuse the rest, whoever sends it, TRUNCATE too.
Times are ``timestamptz``; compared text is ``COLLATE "C"`` (byte order, as SQLite's).
"""

from __future__ import annotations

from ..batch import POLICIES
from ..batch_schema import APPEND_ONLY, FIXED, KEPT, REF_ONCE, TABLES

VERSION = 5


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)


def _function(name: str, why: str) -> str:
    return f"""CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '{why}' USING ERRCODE = 'integrity_constraint_violation';
        END $$"""


def _trigger(table: str, name: str, when: str, function: str, each: str = "ROW", only: str = "") -> str:
    only = f" WHEN ({only})" if only else ""
    return f"CREATE TRIGGER {table}_{name} BEFORE {when} ON {table} FOR EACH {each}{only} EXECUTE FUNCTION {function}()"


STATEMENTS = [
    f"""CREATE TABLE batches (
        id bigserial PRIMARY KEY,
        profile_id text COLLATE "C" NOT NULL,
        mode text COLLATE "C" NOT NULL CHECK (mode IN ('test', 'live')),
        name text NOT NULL,
        file_name text COLLATE "C" NOT NULL,
        made_at timestamptz NOT NULL DEFAULT now(),
        made_by text NOT NULL,
        policy text COLLATE "C" NOT NULL CHECK (policy IN ({_quoted(POLICIES)})),
        prefix text COLLATE "C" NOT NULL
    )""",
    "CREATE INDEX batches_by_profile ON batches (profile_id, mode, id)",
    "CREATE INDEX batches_by_file ON batches (profile_id, mode, file_name, id)",
    """CREATE TABLE batch_rows (
        batch_id bigint NOT NULL REFERENCES batches (id),
        number integer NOT NULL CHECK (number > 0),
        profile_id text COLLATE "C" NOT NULL,
        tx_ref text COLLATE "C",
        cells text NOT NULL,
        skipped integer NOT NULL CHECK (skipped IN (0, 1)),
        PRIMARY KEY (batch_id, number)
    )""",
    "CREATE INDEX batch_rows_by_ref ON batch_rows (profile_id, tx_ref, batch_id)",
    """CREATE TABLE batch_emails (
        id bigserial PRIMARY KEY,
        batch_id bigint NOT NULL,
        number integer NOT NULL,
        ok integer NOT NULL CHECK (ok IN (0, 1)),
        error text,
        noted_at timestamptz NOT NULL DEFAULT now(),
        FOREIGN KEY (batch_id, number) REFERENCES batch_rows (batch_id, number)
    )""",
    "CREATE INDEX batch_emails_by_row ON batch_emails (batch_id, number, id)",
    _function("batch_book_append_only", APPEND_ONLY),
    _function("batch_book_fixed", FIXED),
    *[
        _trigger(table, "append_only", "UPDATE OR DELETE", "batch_book_append_only")
        for table in ("batches", "batch_emails")
    ],
    _trigger("batch_rows", "append_only", "DELETE", "batch_book_append_only"),
    _trigger("batch_rows", "fixed", f"UPDATE OF {', '.join(KEPT)}", "batch_book_fixed"),
    _trigger("batch_rows", "ref_once", "UPDATE OF tx_ref", "batch_book_fixed", only=REF_ONCE),
    *[_trigger(table, "no_truncate", "TRUNCATE", "batch_book_append_only", "STATEMENT") for table in TABLES],
]

MIGRATION: tuple[int, str] = (VERSION, ";\n".join(STATEMENTS))
