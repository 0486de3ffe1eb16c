"""The card wallet's tables (schema v4): the cards as last seen, their transactions, every
operation written before its call, and the audit log, which the ledger itself keeps
append-only.

No column holds a full card number or a security code: ``masked`` is checked by the schema
to hold no run of more than ten digits.
"""

from __future__ import annotations

from collections.abc import Iterable

OPERATION_KINDS = ("create", "fund", "withdraw", "block", "unblock", "terminate")
# sending: written before the call; lost: the answer never came, being settled by reading
# back; done: it happened; not-done: the service did not do it (refused, or read back and
# found not done)
OPERATION_STATES = ("sending", "lost", "done", "not-done")
OPEN_OPERATION_STATES = ("sending", "lost")


def _quoted(values: Iterable[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


# a masked number keeps at most the first six and the last four digits
_NO_PAN = "masked NOT GLOB '*[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'"

V4 = [
    f"""CREATE TABLE cards (
        profile_id TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
        card_hash TEXT NOT NULL,
        masked TEXT NOT NULL DEFAULT '' CHECK ({_NO_PAN}),
        name_on_card TEXT NOT NULL DEFAULT '',
        currency_code TEXT,
        balance_minor INTEGER,
        amount_minor INTEGER,
        charge_minor INTEGER,
        paid_minor INTEGER,
        state INTEGER,
        expiration TEXT,
        card_type TEXT,
        callback TEXT,
        created_at TEXT NOT NULL DEFAULT '',
        seen_at TEXT NOT NULL,
        listed INTEGER NOT NULL DEFAULT 1,
        search_text TEXT GENERATED ALWAYS AS (
            lower(masked || char(31) || name_on_card || char(31) || substr(masked, -4))) VIRTUAL,
        PRIMARY KEY (profile_id, mode, card_hash)
    ) WITHOUT ROWID""",
    "CREATE INDEX cards_by_created ON cards (profile_id, mode, created_at, card_hash)",
    "CREATE INDEX cards_by_state ON cards (profile_id, mode, state, created_at, card_hash)",
    """CREATE TABLE card_lists (
        profile_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        refreshed_at TEXT NOT NULL,
        PRIMARY KEY (profile_id, mode)
    )""",
    """CREATE TABLE card_transactions (
        profile_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        card_hash TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        type TEXT NOT NULL DEFAULT '',
        amount_minor INTEGER,
        description TEXT NOT NULL DEFAULT '',
        status TEXT,
        created_at TEXT NOT NULL DEFAULT '',
        first_seen TEXT NOT NULL,
        PRIMARY KEY (profile_id, mode, card_hash, tx_id)
    ) WITHOUT ROWID""",
    f"""CREATE TABLE card_operations (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
        kind TEXT NOT NULL CHECK (kind IN ({_quoted(OPERATION_KINDS)})),
        card_hash TEXT,
        masked TEXT NOT NULL DEFAULT '' CHECK ({_NO_PAN}),
        amount_minor INTEGER,
        currency TEXT,
        callback_url TEXT,
        state TEXT NOT NULL CHECK (state IN ({_quoted(OPERATION_STATES)})),
        started_at TEXT NOT NULL,
        finished_at TEXT,
        result TEXT,
        evidence TEXT,
        settled INTEGER NOT NULL DEFAULT 0
    )""",
    # one operation at a time per card, and one create at a time per profile and mode:
    # the second is refused by the ledger itself, even from another window
    f"""CREATE UNIQUE INDEX card_operations_one_per_card
        ON card_operations (profile_id, mode, card_hash)
        WHERE state IN ({_quoted(OPEN_OPERATION_STATES)}) AND card_hash IS NOT NULL""",
    f"""CREATE UNIQUE INDEX card_operations_one_create ON card_operations (profile_id, mode)
        WHERE state IN ({_quoted(OPEN_OPERATION_STATES)}) AND kind = 'create'""",
    f"""CREATE INDEX card_operations_open ON card_operations (id)
        WHERE state IN ({_quoted(OPEN_OPERATION_STATES)})""",
    "CREATE INDEX card_operations_by_card ON card_operations (profile_id, mode, card_hash, id)",
    f"""CREATE TABLE card_audit (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        user TEXT NOT NULL,
        profile_id TEXT NOT NULL,
        profile_name TEXT NOT NULL,
        mode TEXT NOT NULL,
        card_hash TEXT,
        masked TEXT NOT NULL DEFAULT '' CHECK ({_NO_PAN}),
        action TEXT NOT NULL,
        amount_minor INTEGER,
        currency TEXT,
        result TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT '',
        operation_id INTEGER
    )""",
    "CREATE INDEX card_audit_by_scope ON card_audit (profile_id, mode, id)",
    """CREATE TRIGGER card_audit_append_only_update BEFORE UPDATE ON card_audit
       BEGIN SELECT RAISE(ABORT, 'the card audit log is append-only'); END""",
    """CREATE TRIGGER card_audit_append_only_delete BEFORE DELETE ON card_audit
       BEGIN SELECT RAISE(ABORT, 'the card audit log is append-only'); END""",
]


# who sent each operation (ledger/owner.py): a later run settles at once what a killed run
# left open, and waits for an operation another live window may still be answered for
V5 = ["ALTER TABLE card_operations ADD COLUMN owner TEXT"]
