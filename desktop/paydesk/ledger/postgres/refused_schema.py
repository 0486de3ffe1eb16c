"""The shared ledger's migration 6, mirroring the desk's file (``ledger/inbox_schema.py``,
schema v10): refused requests (no key verifies them) leave a bounded trace instead of their
whole body in the inbox: one row per trace, and per peer and minute one counter row
(``counter`` = 1) for what came past the limit (UNIQUE (remote, minute, counter): NULLs are
distinct). The bodies the inbox kept whole before become traces.
"""

from __future__ import annotations

from ..inbox import BAD_SIGNATURE, REFUSED_HEAD
from ..inbox_schema import REFUSED_INDEXES

VERSION = 6

STATEMENTS = [
    f"""CREATE TABLE refused (
        id bigserial PRIMARY KEY,
        received_at timestamptz NOT NULL DEFAULT now(),
        last_at timestamptz NOT NULL DEFAULT now(),
        minute timestamptz NOT NULL,
        remote text COLLATE "C" NOT NULL DEFAULT '',
        reason text COLLATE "C" NOT NULL DEFAULT '{BAD_SIGNATURE}',
        size bigint NOT NULL,
        count bigint NOT NULL DEFAULT 1,
        body_hash text COLLATE "C",
        head bytea NOT NULL DEFAULT '',
        counter smallint CHECK (counter = 1),
        UNIQUE (remote, minute, counter)
    )""",
    *REFUSED_INDEXES,
    f"""INSERT INTO refused (received_at, last_at, minute, remote, reason, size, body_hash, head)
        SELECT received_at, received_at, date_trunc('minute', received_at), remote,
               '{BAD_SIGNATURE}', length(body), body_hash,
               substring(body FROM 1 FOR {REFUSED_HEAD})
        FROM inbox WHERE verdict = '{BAD_SIGNATURE}' ORDER BY id""",
    f"DELETE FROM inbox WHERE verdict = '{BAD_SIGNATURE}'",
]

MIGRATION: tuple[int, str] = (VERSION, ";\n".join(STATEMENTS))
