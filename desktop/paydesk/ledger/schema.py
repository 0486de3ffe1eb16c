"""The ledger's schema, as numbered migrations (``PRAGMA user_version``).

A migration is a list of steps, each one SQL statement or a function of the connection; a
migration runs in one transaction, so a file is never left half-migrated. Text is never split
on ``;``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from typing import Any

from ..service.models import TransactionState
from .actor_schema import V12
from .amounts import to_minor
from .batch_schema import V9
from .card_schema import V4, V5
from .counter_schema import V8
from .fold import fold
from .inbox_schema import V7, V10
from .records import FINAL, ORIGINS, STATES, parse_stamp, stamp
from .staff_schema import V13

Step = str | Callable[[sqlite3.Connection], None]


class SchemaTooNew(RuntimeError):
    pass


def _quoted(values: Iterable[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


V1 = [
    """CREATE TABLE links (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        tx_ref TEXT NOT NULL,
        amount TEXT NOT NULL,
        currency TEXT NOT NULL,
        email TEXT NOT NULL,
        first_name TEXT NOT NULL,
        last_name TEXT NOT NULL,
        checkout_url TEXT,
        state TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (profile_id, tx_ref)
    )""",
]

V2 = [
    "ALTER TABLE links ADD COLUMN reference TEXT",
    "ALTER TABLE links ADD COLUMN customization TEXT NOT NULL DEFAULT '{}'",
    "ALTER TABLE links ADD COLUMN meta TEXT NOT NULL DEFAULT '{}'",
    "ALTER TABLE links ADD COLUMN callback_url TEXT",
    "ALTER TABLE links ADD COLUMN return_url TEXT",
    "ALTER TABLE links ADD COLUMN origin TEXT NOT NULL DEFAULT 'link'",
    "ALTER TABLE links ADD COLUMN error TEXT",
    "ALTER TABLE links ADD COLUMN checked_at TEXT",
    "ALTER TABLE links ADD COLUMN updated_at TEXT",
    "ALTER TABLE links ADD COLUMN raw TEXT",
    "UPDATE links SET updated_at = created_at WHERE updated_at IS NULL",
    "CREATE INDEX links_recent ON links (profile_id, mode, created_at DESC)",
    "CREATE INDEX links_state ON links (profile_id, mode, state, created_at DESC)",
    "CREATE INDEX links_email ON links (profile_id, mode, email)",
    "CREATE TABLE sequences (day TEXT PRIMARY KEY, value INTEGER NOT NULL)",
]


def _v2_to_v3_functions(db: sqlite3.Connection) -> None:
    """What SQL cannot say by itself: Decimal amounts to minor units, the state vocabulary,
    one time format."""

    def minor(amount: Any, currency: str) -> int:
        return to_minor(Decimal(str(amount).replace(",", "") or "0"), currency)

    def state(text: str | None) -> str:
        word = (text or "").strip().lower()
        if word in ("creating", "rejected"):
            return word
        return TransactionState.read(word).value

    def raw_state(text: str | None) -> str | None:
        word = (text or "").strip()
        return word if word.lower() not in STATES else None

    def when(text: str | None) -> str:
        return stamp(parse_stamp(text)) if text else ""

    db.create_function("v3_minor", 2, minor, deterministic=True)
    db.create_function("v3_state", 1, state, deterministic=True)
    db.create_function("v3_state_raw", 1, raw_state, deterministic=True)
    db.create_function("v3_when", 1, when, deterministic=True)


SORT_INDEXES = {
    # the ledger browser's sorts (query.SORTS), each with its keyset columns (unique together)
    "created": ("created_at", "id"),
    "amount": ("amount_minor", "id"),
    "state": ("state", "created_at", "id"),
    "customer": ("customer_key", "id"),
    "email": ("email", "id"),
    "reference": ("tx_ref",),  # unique per profile: the UNIQUE index serves it
    "currency": ("currency", "created_at", "id"),
    "checked": ("checked_at", "id"),
}
# Text search: one generated column holds the reference, the service's reference, the e-mail
# and the name (unit separators between them, so no match spans two). Its trigram index
# (links_fts) is kept by the ledger's own writes (one statement per write or per bulk
# import), not by triggers: FTS5 flushes its buffer at every trigger's statement, which
# makes bulk inserts ten times slower. detail='none' keeps the index small; LIKE checks
# each candidate against the text itself.
SEARCH_TEXT = (
    "tx_ref || char(31) || COALESCE(reference, '') || char(31) || email || char(31) || first_name || ' ' || last_name"
)

V3: list[Step] = [
    _v2_to_v3_functions,
    f"""CREATE TABLE links_v3 (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
        tx_ref TEXT NOT NULL,
        amount_minor INTEGER NOT NULL,
        fee_minor INTEGER,
        currency TEXT NOT NULL,
        email TEXT NOT NULL,
        first_name TEXT NOT NULL,
        last_name TEXT NOT NULL,
        customer TEXT GENERATED ALWAYS AS (trim(first_name || ' ' || last_name)) VIRTUAL,
        customer_key TEXT GENERATED ALWAYS AS (lower(trim(first_name || ' ' || last_name))) VIRTUAL,
        search_text TEXT GENERATED ALWAYS AS ({SEARCH_TEXT}) VIRTUAL,
        state TEXT NOT NULL CHECK (state IN ({_quoted(STATES)})),
        state_raw TEXT,
        checkout_url TEXT,
        reference TEXT,
        customization TEXT NOT NULL DEFAULT '{{}}',
        meta TEXT NOT NULL DEFAULT '{{}}',
        callback_url TEXT,
        return_url TEXT,
        origin TEXT NOT NULL DEFAULT 'link' CHECK (origin IN ({_quoted(ORIGINS)})),
        error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        checked_at TEXT NOT NULL DEFAULT '',
        raw TEXT,
        UNIQUE (profile_id, tx_ref)
    )""",
    """INSERT INTO links_v3 (id, profile_id, mode, tx_ref, amount_minor, currency, email,
        first_name, last_name, state, state_raw, checkout_url, reference, customization, meta,
        callback_url, return_url, origin, error, created_at, updated_at, checked_at, raw)
       SELECT id, profile_id, mode, tx_ref, v3_minor(amount, currency), currency, email,
        first_name, last_name, v3_state(state), v3_state_raw(state), checkout_url, reference,
        customization, meta, callback_url, return_url, origin, error, v3_when(created_at),
        v3_when(COALESCE(updated_at, created_at)), v3_when(checked_at), raw
       FROM links""",
    "DROP TABLE links",
    "ALTER TABLE links_v3 RENAME TO links",
    *[
        f"CREATE INDEX links_by_{name} ON links (profile_id, mode, {', '.join(columns)})"
        for name, columns in SORT_INDEXES.items()
        if name != "reference"
    ],
    # what the scheduler watches and settles: few rows, found without a scan
    f"""CREATE INDEX links_open ON links (profile_id, mode, created_at)
        WHERE state NOT IN ({_quoted(FINAL)})""",
    # substring search over the references, e-mail and name: trigrams, not a scan
    """CREATE VIRTUAL TABLE links_fts USING fts5(search_text, content='links',
        content_rowid='id', tokenize='trigram', detail='none')""",
    "INSERT INTO links_fts (links_fts) VALUES ('rebuild')",
]

# V6: paid records by when they were paid (updated_at: when PayDesk saw the state change),
# re-read for refunds and reversals for 30 days (SqliteLedger.paid_since): few rows, found
# without a scan, whatever the ledger's size
V6 = ["CREATE INDEX links_paid ON links (updated_at, id) WHERE state = 'success'"]


def register_fold(db: sqlite3.Connection) -> None:
    """``paydesk_fold(text)`` on this connection: ``fold.fold``, for the writes that keep
    ``search_folded`` (sqlite/search.index_text) and for V11."""
    db.create_function("paydesk_fold", 1, fold, deterministic=True)


# V11: search folds accents and case. ``search_folded`` holds search_text folded (fold.py),
# written by the ledger's own writes beside the trigram index (sqlite/search.index_text), which
# now indexes it. Not FTS5's remove_diacritics: the SQLite Python bundles here (3.40) has
# no such option for the trigram tokenizer (3.45 has), it would leave Ø ß æ ł as they are,
# and the exact check after the index needs the folded text anyway. A plain column, not a
# generated one: a generated column calling a Python function would make the file
# unreadable to any program without it.
V11: list[Step] = [
    register_fold,
    "ALTER TABLE links ADD COLUMN search_folded TEXT NOT NULL DEFAULT ''",
    "UPDATE links SET search_folded = paydesk_fold(search_text)",
    "DROP TABLE links_fts",
    """CREATE VIRTUAL TABLE links_fts USING fts5(search_folded, content='links',
        content_rowid='id', tokenize='trigram', detail='none')""",
    "INSERT INTO links_fts (links_fts) VALUES ('rebuild')",
]

# V4: the card wallet; V5: who sent each card operation (card_schema.py); V7: the
# notification inbox and how a record's state was learned (inbox_schema.py); V8: the
# counters' book (counter_schema.py); V9: the batches of bulk links (batch_schema.py); V10:
# refused requests traced apart from the inbox (inbox_schema.py); V11: search folded (above);
# V12: who did it, and the activity book (actor_schema.py); V13: the staff book (staff_schema.py)
MIGRATIONS: list[Sequence[Step]] = [V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13]
LATEST = len(MIGRATIONS)


def migrate(db: sqlite3.Connection, target: int | None = None) -> int:
    """Bring the file to ``target`` (default: the latest); each migration in one transaction.
    ``db`` is in autocommit mode (isolation_level=None)."""
    target = LATEST if target is None else target
    while True:
        db.execute("BEGIN IMMEDIATE")  # another window may be migrating: read under the lock
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > LATEST:
            db.execute("ROLLBACK")
            raise SchemaTooNew(f"the ledger is from a newer PayDesk (schema {version}); this one knows {LATEST}")
        if version >= target:
            db.execute("COMMIT")
            return version
        try:
            for step in MIGRATIONS[version]:
                if callable(step):
                    step(db)
                else:
                    db.execute(step)
            db.execute(f"PRAGMA user_version = {version + 1}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
