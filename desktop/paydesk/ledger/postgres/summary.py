"""The day's figures (``..summary.DaySummary``) from the shared ledger: the same SQL as
SQLite's ``summarise``, said in PostgreSQL."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from ..amounts import from_minor
from ..records import AFTER_SUCCESS, SUCCESS
from ..summary import BY_STATE, CurrencyTotal, DaySummary
from .search import Conn, aware

_BACK = ", ".join(f"'{state}'" for state in AFTER_SUCCESS)
_WHERE = "profile_id = %s AND mode = %s AND created_at >= %s AND created_at < %s"


def summarise(conn: Conn, profile_id: str, mode: str, start: datetime, end: datetime) -> DaySummary:
    args = (profile_id, mode, aware(start), aware(end))
    by_state = conn.execute(BY_STATE.format(m="%s"), args).fetchall()
    states = Counter({row["state"]: int(row["n"]) for row in by_state})
    voided = Counter({row["state"]: int(row["voided"]) for row in by_state if row["voided"]})
    rows = conn.execute(
        f"SELECT currency, count(*) FILTER (WHERE state = '{SUCCESS}') AS n,"
        f" COALESCE(sum(amount_minor) FILTER (WHERE state = '{SUCCESS}'), 0)::bigint AS amount,"
        f" count(*) FILTER (WHERE state IN ({_BACK})) AS back,"
        f" COALESCE(sum(amount_minor) FILTER (WHERE state IN ({_BACK})), 0)::bigint"
        f" AS back_amount,"
        f" COALESCE(sum(fee_minor), 0)::bigint AS fees, count(fee_minor) AS known,"
        f" count(*) AS charged FROM links"
        f" WHERE {_WHERE} AND state IN ('{SUCCESS}', {_BACK})"
        f" GROUP BY currency ORDER BY currency",
        args,
    ).fetchall()
    totals = [
        CurrencyTotal(
            row["currency"],
            int(row["n"]),
            from_minor(row["amount"], row["currency"]),
            from_minor(row["fees"], row["currency"]),
            int(row["known"]),
            int(row["back"]),
            from_minor(row["back_amount"], row["currency"]),
            int(row["charged"]),
        )
        for row in rows
    ]
    return DaySummary(start, end, states, totals, voided)
