"""The shared ledger's migration 3, mirroring the desk's file (``ledger/inbox_schema.py``,
schema v7): the notification inbox (the raw body as ``bytea``, kept byte for byte), how a
record's state was learned (``links.learned_by``), and the poller lease's ``priority`` (a
holder of higher priority, the headless receiver, takes the lease before it expires).

One original per body: ``original`` is 1 on the first verified arrival of a body and NULL on
every other row; UNIQUE (body_hash, original) holds one original per hash (NULLs are
distinct), so two receivers inserting the same body at once make one original between them
(``INSERT ... ON CONFLICT DO NOTHING``, then a duplicate row).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..inbox import VERDICTS
from ..inbox_schema import INBOX_INDEXES

VERSION = 3


def _quoted(values: Iterable[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


STATEMENTS = [
    f"""CREATE TABLE inbox (
        id bigserial PRIMARY KEY,
        received_at timestamptz NOT NULL DEFAULT now(),
        body_hash text COLLATE "C" NOT NULL,
        body bytea NOT NULL,
        headers text NOT NULL DEFAULT '{{}}',
        remote text NOT NULL DEFAULT '',
        verdict text COLLATE "C" NOT NULL CHECK (verdict IN ({_quoted(VERDICTS)})),
        detail text NOT NULL DEFAULT '',
        profile_id text COLLATE "C",
        mode text COLLATE "C" CHECK (mode IN ('test', 'live')),
        tx_ref text COLLATE "C",
        event text COLLATE "C",
        original smallint CHECK (original = 1),
        duplicate_of bigint REFERENCES inbox (id),
        decided_at timestamptz,
        UNIQUE (body_hash, original)
    )""",
    *INBOX_INDEXES,
    "ALTER TABLE links ADD COLUMN learned_by text",
    "ALTER TABLE poller_lease ADD COLUMN priority integer NOT NULL DEFAULT 0",
]

MIGRATION: tuple[int, str] = (VERSION, ";\n".join(STATEMENTS))
