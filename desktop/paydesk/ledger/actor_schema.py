"""Who did it (schema v12 of a desk's file): the person signed in beside every write a
person makes, and the activity book for the acts that have no row of their own.

``actor`` is the name of the person signed in when it was written (``desk/staff.py``:
``Staff.actor``), NULL when the shop has no staff set up or when PayDesk wrote it by itself
(a check, a settle in the background). It stands beside the ``*_by`` columns, which keep
the computer's login name as before: a link, a counter's sale, void and decision, a shift's
opening and close, a card operation and its audit lines.

``activity`` holds what is done without a record of its own: an export, profile keys saved,
a switch to live mode; one row written once (triggers refuse UPDATE and DELETE), newest
first by id. ``postgres/actor_schema.py`` is the shared ledger's same migration.
"""

from __future__ import annotations

# the tables a person's write lands in, each given an ``actor`` column
ACTOR_TABLES = (
    "links",
    "counter_shifts",
    "counter_shift_closes",
    "counter_sales",
    "counter_voids",
    "counter_decisions",
    "card_operations",
    "card_audit",
)
# what ``activity.action`` may say (ledger/activity.py names them)
ACTIONS = ("export", "keys saved", "switched to live")
APPEND_ONLY = "the activity book is append-only"  # said inside SQL quotes


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)


V12 = [
    *[f"ALTER TABLE {table} ADD COLUMN actor TEXT" for table in ACTOR_TABLES],
    f"""CREATE TABLE activity (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        actor TEXT,
        action TEXT NOT NULL CHECK (action IN ({_quoted(ACTIONS)})),
        profile_id TEXT NOT NULL DEFAULT '',
        mode TEXT NOT NULL DEFAULT '',
        detail TEXT NOT NULL DEFAULT ''
    )""",
    *[
        f"""CREATE TRIGGER activity_append_only_{verb.lower()} BEFORE {verb} ON activity
               BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}'); END"""
        for verb in ("UPDATE", "DELETE")
    ],
]
