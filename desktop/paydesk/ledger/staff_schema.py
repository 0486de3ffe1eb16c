"""The staff book in a desk's SQLite file (schema v13): one row per person, with their PIN's
argon2id hash, its salt and parameters, and the wrong PINs counted (``books/staff.py``).

On one computer on its own this is a lock in the app, not a boundary: whoever holds the
computer's account can read the file. On a shared ledger the table is its owner's alone
(``postgres/staff_schema.py``).
"""

from __future__ import annotations

ROLES = ("counter", "finance", "admin")

V13 = [
    f"""CREATE TABLE staff (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL CHECK (role IN ({", ".join(f"'{r}'" for r in ROLES)})),
        salt BLOB NOT NULL,
        time_cost INTEGER NOT NULL,
        memory_cost INTEGER NOT NULL,
        parallelism INTEGER NOT NULL,
        hash BLOB NOT NULL,
        failures INTEGER NOT NULL DEFAULT 0,
        wait_until TEXT,
        added_at TEXT NOT NULL
    )""",
]
