"""The links' rows in SQL, for both backends: the columns a record is written as (``COLUMNS``,
in the order of a bulk import's rows: ``row_of``), the one INSERT a new record goes in by,
and what makes a change news for the other desks (``news``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from ..amounts import to_minor
from ..records import LinkRecord

COLUMNS = (
    "profile_id",
    "mode",
    "tx_ref",
    "amount_minor",
    "fee_minor",
    "currency",
    "email",
    "first_name",
    "last_name",
    "state",
    "state_raw",
    "checkout_url",
    "reference",
    "customization",
    "meta",
    "callback_url",
    "return_url",
    "origin",
    "error",
    "created_at",
    "updated_at",
    "checked_at",
    "raw",
    "learned_by",
    "actor",
)
# a new record's times are the ledger's (the server's on a shared ledger): created (unless
# the service said when), updated and, for a lookup, checked now, so desks agree on order
_VALUES = {
    "created_at": "COALESCE(?, {now})",
    "updated_at": "{now}",
    "checked_at": "CASE WHEN ? THEN {now} ELSE {never} END",
}
INSERT = (
    f"INSERT INTO links ({', '.join(COLUMNS)})"
    f" VALUES ({', '.join(_VALUES.get(c, '?') for c in COLUMNS)})"
    " ON CONFLICT (profile_id, tx_ref) DO NOTHING RETURNING {columns}, links.raw"
)
_QUIET = {"checked_at": None, "updated_at": None, "raw_json": None}


def as_json(value: dict[str, Any]) -> str:
    return json.dumps(value) if value else "{}"


def row_of(r: LinkRecord, time: Callable[[datetime], Any], never: Any) -> tuple[Any, ...]:
    """A record as a row of ``COLUMNS`` for a bulk import: its times by ``time``, a check
    that never was as ``never``."""
    return (
        r.profile_id,
        r.mode,
        r.tx_ref,
        to_minor(r.amount, r.currency),
        None if r.fee is None else to_minor(r.fee, r.currency),
        r.currency,
        r.email,
        r.first_name,
        r.last_name,
        r.state,
        r.state_raw,
        r.checkout_url,
        r.reference,
        as_json(r.customization),
        as_json(r.meta),
        r.callback_url,
        r.return_url,
        r.origin,
        r.error,
        time(r.created_at),
        time(r.updated_at),
        time(r.checked_at) if r.checked_at else never,
        r.raw_json,
        r.learned_by,
        r.actor,
    )


def news(before: LinkRecord, after: LinkRecord) -> bool:
    """Did a check change what a desk shows (not only when it was checked)? A check that
    said nothing new is no event: the poller checks every few seconds, and every event is
    a row in ``events`` and a re-read at every other desk."""
    return replace(before, **_QUIET) != replace(after, **_QUIET)  # type: ignore[arg-type]


__all__ = ["COLUMNS", "INSERT", "as_json", "news", "row_of"]
