"""The card wallet's tables on PostgreSQL (migration 2), mirroring the SQLite ledger's
(``ledger/card_schema.py``, schema v4 and v5): the cards as last seen, their transactions,
every operation written before its call, and the audit log, which the database itself keeps
append-only (a trigger refuses UPDATE, DELETE and TRUNCATE, whoever sends them).

As in the file: one open operation per card, and one open create per merchant and mode, by
partial unique indexes, so a second desk of the shop is refused by the database too. No
column holds a full card number: ``masked`` may hold no run of more than ten digits.

Times are ``timestamptz``; a card's or a card transaction's unknown creation time is
``-infinity`` (so it sorts last, newest first, as the file's empty text does). Text that is
sorted, compared or searched is ``COLLATE "C"``: byte order, as SQLite's, so pages come in
the same order (and ``lower`` and ``ILIKE`` fold ASCII only, as SQLite's do).

``origin_key`` ("<installation id>:<local id>") of an operation or an audit line is set only
by the importer of a desk's file, so an import run twice adds nothing twice.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..card_schema import OPEN_OPERATION_STATES, OPERATION_KINDS, OPERATION_STATES

VERSION = 2


def _quoted(values: Iterable[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


_NO_PAN = "masked !~ '[0-9]{11}'"  # at most the first six and the last four digits
_OPEN = f"state IN ({_quoted(OPEN_OPERATION_STATES)})"
APPEND_ONLY = "the card audit log is append-only"

STATEMENTS = [
    f"""CREATE TABLE cards (
        profile_id text COLLATE "C" NOT NULL,
        mode text COLLATE "C" NOT NULL CHECK (mode IN ('test', 'live')),
        card_hash text COLLATE "C" NOT NULL,
        masked text COLLATE "C" NOT NULL DEFAULT '' CHECK ({_NO_PAN}),
        name_on_card text COLLATE "C" NOT NULL DEFAULT '',
        currency_code text,
        balance_minor bigint,
        amount_minor bigint,
        charge_minor bigint,
        paid_minor bigint,
        state integer,
        expiration text,
        card_type text,
        callback text,
        created_at timestamptz NOT NULL DEFAULT '-infinity',
        seen_at timestamptz NOT NULL,
        listed boolean NOT NULL DEFAULT true,
        search_text text COLLATE "C" GENERATED ALWAYS AS (
            lower(masked || chr(31) || name_on_card || chr(31) || right(masked, 4))) STORED,
        PRIMARY KEY (profile_id, mode, card_hash)
    )""",
    "CREATE INDEX cards_by_created ON cards (profile_id, mode, created_at, card_hash)",
    "CREATE INDEX cards_by_state ON cards (profile_id, mode, state, created_at, card_hash)",
    "CREATE INDEX cards_search ON cards USING gin (search_text gin_trgm_ops)",
    """CREATE TABLE card_lists (
        profile_id text COLLATE "C" NOT NULL,
        mode text COLLATE "C" NOT NULL,
        refreshed_at timestamptz NOT NULL,
        PRIMARY KEY (profile_id, mode)
    )""",
    """CREATE TABLE card_transactions (
        profile_id text COLLATE "C" NOT NULL,
        mode text COLLATE "C" NOT NULL,
        card_hash text COLLATE "C" NOT NULL,
        tx_id text COLLATE "C" NOT NULL,
        type text NOT NULL DEFAULT '',
        amount_minor bigint,
        description text COLLATE "C" NOT NULL DEFAULT '',
        status text,
        created_at timestamptz NOT NULL DEFAULT '-infinity',
        first_seen timestamptz NOT NULL,
        PRIMARY KEY (profile_id, mode, card_hash, tx_id)
    )""",
    """CREATE INDEX card_transactions_newest
        ON card_transactions (profile_id, mode, card_hash, created_at, tx_id)""",
    f"""CREATE TABLE card_operations (
        id bigserial PRIMARY KEY,
        profile_id text COLLATE "C" NOT NULL,
        mode text COLLATE "C" NOT NULL CHECK (mode IN ('test', 'live')),
        kind text COLLATE "C" NOT NULL CHECK (kind IN ({_quoted(OPERATION_KINDS)})),
        card_hash text COLLATE "C",
        masked text COLLATE "C" NOT NULL DEFAULT '' CHECK ({_NO_PAN}),
        amount_minor bigint,
        currency text,
        callback_url text,
        state text COLLATE "C" NOT NULL CHECK (state IN ({_quoted(OPERATION_STATES)})),
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        result text,
        evidence text COLLATE "C",
        settled boolean NOT NULL DEFAULT false,
        owner text,
        origin_key text UNIQUE
    )""",
    # one operation at a time per card, and one create at a time per merchant and mode: the
    # second is refused by the database itself, even from another desk of the shop
    f"""CREATE UNIQUE INDEX card_operations_one_per_card
        ON card_operations (profile_id, mode, card_hash)
        WHERE {_OPEN} AND card_hash IS NOT NULL""",
    f"""CREATE UNIQUE INDEX card_operations_one_create ON card_operations (profile_id, mode)
        WHERE {_OPEN} AND kind = 'create'""",
    f"CREATE INDEX card_operations_open ON card_operations (id) WHERE {_OPEN}",
    "CREATE INDEX card_operations_by_card ON card_operations (profile_id, mode, card_hash, id)",
    f"""CREATE TABLE card_audit (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL,
        "user" text COLLATE "C" NOT NULL,
        profile_id text COLLATE "C" NOT NULL,
        profile_name text NOT NULL,
        mode text COLLATE "C" NOT NULL,
        card_hash text COLLATE "C",
        masked text COLLATE "C" NOT NULL DEFAULT '' CHECK ({_NO_PAN}),
        action text COLLATE "C" NOT NULL,
        amount_minor bigint,
        currency text,
        result text COLLATE "C" NOT NULL,
        detail text COLLATE "C" NOT NULL DEFAULT '',
        operation_id bigint,
        origin_key text UNIQUE
    )""",
    "CREATE INDEX card_audit_by_scope ON card_audit (profile_id, mode, id)",
    f"""CREATE FUNCTION card_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '{APPEND_ONLY}' USING ERRCODE = 'integrity_constraint_violation';
        END $$""",
    """CREATE TRIGGER card_audit_append_only BEFORE UPDATE OR DELETE ON card_audit
        FOR EACH ROW EXECUTE FUNCTION card_audit_append_only()""",
    """CREATE TRIGGER card_audit_no_truncate BEFORE TRUNCATE ON card_audit
        FOR EACH STATEMENT EXECUTE FUNCTION card_audit_append_only()""",
]

MIGRATION: tuple[int, str] = (VERSION, ";\n".join(STATEMENTS))
