"""The shop's merchants on a shared ledger: profiles without their keys, the same on every desk.

A row's id is the merchant id (``config/merchants.py``: the service's address and the
merchant's public key), which is also the ``profile_id`` of the merchant's ledger rows, so
two desks that add the same merchant share one row and its records. Each desk keeps the keys
in its own keyring. Every write that changes a row records a "merchant" event (key: the
merchant id) in the same transaction, so the other desks read their list again.
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection
from psycopg.types.json import Jsonb

from ...config.merchants import merchant_id
from .engine import PgEngine
from .events import emit

__all__ = ["PostgresMerchants", "delete_merchant", "list_merchants", "merchant_id", "save_merchant"]

_LIST = "SELECT id, profile FROM merchants ORDER BY lower(profile->>'name'), id"
# a key-less counter's (its database role may not read the merchants' settings): what a
# counter shows of each merchant (requests_schema.counter_merchants)
_COUNTER_LIST = "SELECT id, profile FROM counter_merchants()"
# an unchanged profile (a desk saving what another saved) writes nothing and rings no one
_SAVE = """INSERT INTO merchants (id, profile, updated_at, updated_by) VALUES (%s, %s, now(), %s)
ON CONFLICT (id) DO UPDATE SET profile = EXCLUDED.profile, updated_at = now(),
                               updated_by = EXCLUDED.updated_by
WHERE merchants.profile IS DISTINCT FROM EXCLUDED.profile"""
_DELETE = "DELETE FROM merchants WHERE id = %s"


def _row(row: Any) -> tuple[str, dict[str, Any]]:
    if isinstance(row, dict):
        return str(row["id"]), dict(row["profile"])
    return str(row[0]), dict(row[1])


def list_merchants(conn: Connection[Any], *, counter: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """Every merchant: its id and its profile's shared fields (``counter``: what a counter
    shows of them), by name."""
    return [_row(row) for row in conn.execute(_COUNTER_LIST if counter else _LIST).fetchall()]


def save_merchant(conn: Connection[Any], desk: str, merchant: str, fields: dict[str, Any]) -> bool:
    """Add or update a merchant (inside the caller's transaction); True when a row changed."""
    changed = conn.execute(_SAVE, (merchant, Jsonb(fields), desk)).rowcount > 0
    if changed:
        emit(conn, desk, "merchant", profile_id=merchant, key=merchant)
    return changed


def delete_merchant(conn: Connection[Any], desk: str, merchant: str) -> bool:
    """Remove a merchant (its ledger rows stay); True when it was there."""
    deleted = conn.execute(_DELETE, (merchant,)).rowcount > 0
    if deleted:
        emit(conn, desk, "merchant", profile_id=merchant, key=merchant)
    return deleted


class PostgresMerchants:
    """The merchants of the shared ledger behind ``engine`` (``desk.profile_store.MerchantStore``)."""

    def __init__(self, engine: PgEngine):
        self.engine = engine
        self.counter = False  # a key-less counter's: only what a counter shows of them

    async def load(self) -> list[tuple[str, dict[str, Any]]]:
        counter = self.counter
        return await self.engine.read(lambda conn: list_merchants(conn, counter=counter))

    async def save(self, merchant: str, fields: dict[str, Any]) -> None:
        desk = self.engine.desk
        await self.engine.write(lambda conn: save_merchant(conn, desk, merchant, fields))

    async def delete(self, merchant: str) -> None:
        desk = self.engine.desk
        await self.engine.write(lambda conn: delete_merchant(conn, desk, merchant))
