"""A link record for the tests that need one without a ledger (the scheduler, the
reconciler, words heard late): every field a plain link has, each of them given as the
test needs it."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from paydesk.ledger import LinkRecord

WHEN = datetime(2026, 11, 22, tzinfo=UTC)


def link_record(tx_ref: str = "SHOP-1", state: str = "pending", **fields: Any) -> LinkRecord:
    values: dict[str, Any] = dict(
        id=0,
        profile_id="p1",
        mode="test",
        tx_ref=tx_ref,
        amount=Decimal(5),
        currency="GBP",
        email="a@example.com",
        first_name="A",
        last_name="B",
        state=state,
        created_at=WHEN,
        updated_at=WHEN,
    )
    values.update(fields)
    return LinkRecord(**values)
