"""The ledger's schema, as numbered migrations (PRAGMA user_version)."""

from __future__ import annotations

import sqlite3

MIGRATIONS: list[str] = [
    # 1: the first schema
    """
    CREATE TABLE links (
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
    );
    """,
    # 2: everything the request and the service said; lookups; indexes; sequences
    """
    ALTER TABLE links ADD COLUMN reference TEXT;
    ALTER TABLE links ADD COLUMN customization TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE links ADD COLUMN meta TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE links ADD COLUMN callback_url TEXT;
    ALTER TABLE links ADD COLUMN return_url TEXT;
    ALTER TABLE links ADD COLUMN origin TEXT NOT NULL DEFAULT 'link';
    ALTER TABLE links ADD COLUMN error TEXT;
    ALTER TABLE links ADD COLUMN checked_at TEXT;
    ALTER TABLE links ADD COLUMN updated_at TEXT;
    ALTER TABLE links ADD COLUMN raw TEXT;
    UPDATE links SET updated_at = created_at WHERE updated_at IS NULL;
    CREATE INDEX links_recent ON links (profile_id, mode, created_at DESC);
    CREATE INDEX links_state ON links (profile_id, mode, state, created_at DESC);
    CREATE INDEX links_email ON links (profile_id, mode, email);
    CREATE TABLE sequences (day TEXT PRIMARY KEY, value INTEGER NOT NULL);
    """,
]


def migrate(db: sqlite3.Connection, target: int | None = None) -> int:
    """Bring the file to ``target`` (default: latest); each step in its own transaction."""
    target = len(MIGRATIONS) if target is None else target
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise RuntimeError(f"the ledger is from a newer PayDesk (schema {version})")
    while version < target:
        script = MIGRATIONS[version]
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in filter(str.strip, script.split(";")):
                db.execute(statement)
            version += 1
            db.execute(f"PRAGMA user_version = {version}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    return version
