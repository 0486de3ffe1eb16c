"""The shared ledger's change log: one ``events`` row per change, written in the change's own
transaction, and a ``NOTIFY`` carrying only its id (a doorbell: a desk that missed it reads
``id > last`` when it reconnects, so nothing depends on a notification arriving).

Kinds, and what ``key`` holds: "link" (tx_ref), "sequence", "card" (card hash), "cards" (a
list refreshed), "card_tx" (card hash), "operation" (str(op id)), "audit", "merchant"
(merchant id), "lease", "import" (a desk's own ledger imported: read everything again),
"inbox" (str(entry id): a notification received or decided), "sale" (tx_ref: a counter's
sale added, voided or decided), "shift" (str(shift id): a counter's shift opened or closed),
"batch" (str(batch id): a batch of bulk links added, its rows added or corrected, an e-mail
noted), "refused" (the peer: a refused request traced, or counted in a new counter row; a
count that goes up is no event), "request" (str(request id): a key-less counter's sale
request written or answered).
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection

CHANNEL = "paydesk_events"
KINDS = (
    "link",
    "sequence",
    "card",
    "cards",
    "card_tx",
    "operation",
    "audit",
    "merchant",
    "lease",
    "import",
    "inbox",
    "sale",
    "shift",
    "batch",
    "refused",
    "request",
)

_EMIT = (
    """WITH made AS (
    INSERT INTO events (desk, kind, profile_id, mode, key) VALUES (%s, %s, %s, %s, %s)
    RETURNING id)
SELECT id, pg_notify('"""
    + CHANNEL
    + """', id::text) FROM made"""
)


def emit(conn: Connection[Any], desk: str, kind: str, profile_id: str = "", mode: str = "", key: str = "") -> int:
    """Record one change by ``desk`` and ring the doorbell; returns the event's id. Call it
    inside the change's transaction (``engine.write``): the row and the notification are
    then delivered with the change, or not at all."""
    if kind not in KINDS:
        raise ValueError(f"unknown event kind {kind!r}")
    row = conn.execute(_EMIT, (desk, kind, profile_id, mode, key)).fetchone()
    assert row is not None
    return int(row["id"] if isinstance(row, dict) else row[0])
