"""The notification inbox in a desk's SQLite file (schema v7), and how a record's state was
learned (``links.learned_by``: "check" or "notification"; NULL for what was there before);
refused requests traced apart from it (schema v10).

One original per body: ``original`` is 1 on the first verified arrival of a body and NULL on
every other row; UNIQUE (body_hash, original) then holds one original per hash (NULLs are
distinct), so two receivers on the same file keep one original between them. Entries are
listed newest first by id (the primary key), by verdict, or by merchant and mode.
"""

from __future__ import annotations

from .inbox import BAD_SIGNATURE, REFUSED_HEAD, VERDICTS


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)


# the inbox's indexes, both backends
INBOX_INDEXES = [
    # the list's filters, newest first (the primary key serves the unfiltered list)
    "CREATE INDEX inbox_by_verdict ON inbox (verdict, id)",
    "CREATE INDEX inbox_by_merchant ON inbox (profile_id, id)",
    "CREATE INDEX inbox_by_profile ON inbox (profile_id, mode, id)",
    # the newest verified arrival (last_received), per merchant or of all
    "CREATE INDEX inbox_originals ON inbox (profile_id, id) WHERE original = 1",
]
# the refused requests' indexes, both backends
REFUSED_INDEXES = [
    # every peer's traces of a minute (the limit of all together)
    "CREATE INDEX refused_by_minute ON refused (minute) WHERE counter IS NULL",
    # the groups of the last hour, and what is pruned
    "CREATE INDEX refused_by_time ON refused (last_at)",
]


V7 = [
    f"""CREATE TABLE inbox (
        id INTEGER PRIMARY KEY,
        received_at TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        body BLOB NOT NULL,
        headers TEXT NOT NULL DEFAULT '{{}}',
        remote TEXT NOT NULL DEFAULT '',
        verdict TEXT NOT NULL CHECK (verdict IN ({_quoted(VERDICTS)})),
        detail TEXT NOT NULL DEFAULT '',
        profile_id TEXT,
        mode TEXT CHECK (mode IN ('test', 'live')),
        tx_ref TEXT,
        event TEXT,
        original INTEGER CHECK (original = 1),
        duplicate_of INTEGER REFERENCES inbox (id),
        decided_at TEXT,
        UNIQUE (body_hash, original)
    )""",
    *INBOX_INDEXES,
    "ALTER TABLE links ADD COLUMN learned_by TEXT",
]

# V10: refused requests (no key verifies them) leave a bounded trace here instead of their
# whole body in the inbox (ledger/inbox.py): one row per trace, and per peer and minute one
# counter row (``counter`` = 1) for what came past the limit; UNIQUE (remote, minute,
# counter) holds one counter row each (NULLs are distinct). The bodies kept whole before
# become traces.
V10 = [
    f"""CREATE TABLE refused (
        id INTEGER PRIMARY KEY,
        received_at TEXT NOT NULL,
        last_at TEXT NOT NULL,
        minute TEXT NOT NULL,
        remote TEXT NOT NULL DEFAULT '',
        reason TEXT NOT NULL DEFAULT '{BAD_SIGNATURE}',
        size INTEGER NOT NULL,
        count INTEGER NOT NULL DEFAULT 1,
        body_hash TEXT,
        head BLOB NOT NULL DEFAULT x'',
        counter INTEGER CHECK (counter = 1),
        UNIQUE (remote, minute, counter)
    )""",
    *REFUSED_INDEXES,
    f"""INSERT INTO refused (received_at, last_at, minute, remote, reason, size, body_hash, head)
        SELECT received_at, received_at, substr(received_at, 1, 16), remote,
               '{BAD_SIGNATURE}', length(body), body_hash, substr(body, 1, {REFUSED_HEAD})
        FROM inbox WHERE verdict = '{BAD_SIGNATURE}' ORDER BY id""",
    f"DELETE FROM inbox WHERE verdict = '{BAD_SIGNATURE}'",
]
