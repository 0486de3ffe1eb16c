"""The shared ledger's migration 14, mirroring the desk's file (``ledger/actor_schema.py``,
schema v12): an ``actor`` column (the person signed in; NULL without staff, or for what
PayDesk wrote by itself) on every table a person's write lands in, and the activity book
(an export, keys saved, a switch to live), append-only: a trigger refuses UPDATE, DELETE
and TRUNCATE, whoever sends them."""

from __future__ import annotations

from ..actor_schema import ACTIONS, ACTOR_TABLES, APPEND_ONLY

VERSION = 14

_ACTIONS = ", ".join(f"'{a}'" for a in ACTIONS)

STATEMENTS = [
    *[f"ALTER TABLE {table} ADD COLUMN actor text" for table in ACTOR_TABLES],
    f"""CREATE TABLE activity (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        actor text,
        action text COLLATE "C" NOT NULL CHECK (action IN ({_ACTIONS})),
        profile_id text COLLATE "C" NOT NULL DEFAULT '',
        mode text COLLATE "C" NOT NULL DEFAULT '',
        detail text NOT NULL DEFAULT ''
    )""",
    f"""CREATE FUNCTION activity_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '{APPEND_ONLY}' USING ERRCODE = 'integrity_constraint_violation';
        END $$""",
    """CREATE TRIGGER activity_append_only BEFORE UPDATE OR DELETE ON activity
        FOR EACH ROW EXECUTE FUNCTION activity_append_only()""",
    """CREATE TRIGGER activity_no_truncate BEFORE TRUNCATE ON activity
        FOR EACH STATEMENT EXECUTE FUNCTION activity_append_only()""",
]

MIGRATION: tuple[int, str] = (VERSION, ";\n".join(STATEMENTS))
