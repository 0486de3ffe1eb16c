"""What a notification's body names: its reference (tx_ref) and event, in either shape the
service family sends. Only a hint: the re-read asks the service. Junk that verifies is
still kept (with no reference), and decided "ignored"."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MAX_REF = 100


@dataclass(frozen=True)
class Notice:
    tx_ref: str | None  # the merchant's reference the body names, if it names one
    event: str | None  # "payment.completed"... (the sandbox's envelope); None: the family's

    @property
    def about_payment(self) -> bool:
        """Whether a payment is to be looked up again (a card's event is not)."""
        return self.tx_ref is not None and (self.event is None or self.event.startswith("payment."))


def read(body: bytes) -> Notice:
    """``{"event": ..., "data": {...transaction...}}`` (the sandbox's document dialect), or
    the bare transaction object (the family's, written by PHP's JSON encoder). A body that
    is no JSON, or nested deeper than the parser goes (RecursionError), names nothing."""
    try:
        document: Any = json.loads(body)
    except (ValueError, RecursionError):
        return Notice(None, None)
    event = None
    data = document
    if isinstance(document, dict) and "event" in document and "data" in document:
        event = str(document["event"])[:MAX_REF]
        data = document["data"]
    tx_ref = data.get("tx_ref") if isinstance(data, dict) else None
    if not isinstance(tx_ref, str) or not tx_ref.strip() or len(tx_ref) > MAX_REF:
        tx_ref = None
    return Notice(tx_ref.strip() if tx_ref else None, event)
