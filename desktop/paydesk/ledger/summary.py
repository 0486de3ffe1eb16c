"""The day's figures for the end-of-day summary: records made that day by state, and per
currency the money collected (paid and kept), given back (refunded or reversed), the fees,
and what is left (net)."""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from .amounts import from_minor
from .records import AFTER_SUCCESS, SUCCESS, stamp

# the day's links by state, and how many of each are sales voided at a counter (joined from
# the counter book by (profile_id, tx_ref)); {m} is the backend's parameter mark
BY_STATE = (
    "SELECT links.state AS state, count(*) AS n, count(v.tx_ref) AS voided"
    " FROM links LEFT JOIN counter_voids v"
    " ON v.profile_id = links.profile_id AND v.tx_ref = links.tx_ref"
    " WHERE links.profile_id = {m} AND links.mode = {m} AND links.created_at >= {m}"
    " AND links.created_at < {m} GROUP BY links.state"
)


@dataclass(frozen=True)
class CurrencyTotal:
    currency: str
    paid: int  # how many are paid (and not given back)
    collected: Decimal  # their amounts
    fees: Decimal  # the service's fees on every payment made, given back or not, where
    fees_known: int = 0  # ...the service has said them: for this many...
    refunded: int = 0  # how many were paid, then refunded or reversed
    refunded_amount: Decimal = Decimal(0)  # their amounts, given back
    charged: int | None = None  # ...of this many payments (paid and given back)

    @property
    def fees_of(self) -> int:
        return self.paid + self.refunded if self.charged is None else self.charged

    @property
    def net(self) -> Decimal:
        """What is left: collected, less the fees (the service does not say it returns its
        fee on a refund, so a refunded payment's fee counts)."""
        return self.collected - self.fees


@dataclass(frozen=True)
class DaySummary:
    start: datetime  # the day's first moment, inclusive (aware)
    end: datetime  # the next day's first moment, exclusive
    states: Counter = field(default_factory=Counter)  # state -> how many made that day
    totals: list[CurrencyTotal] = field(default_factory=list)  # paid ones, per currency
    # state -> how many of those are sales voided at a counter (in the counter book)
    voided: Counter = field(default_factory=Counter)

    @property
    def created(self) -> int:
        return sum(self.states.values())


def summarise(db: sqlite3.Connection, profile_id: str, mode: str, start: datetime, end: datetime) -> DaySummary:
    where = "profile_id = ? AND mode = ? AND created_at >= ? AND created_at < ?"
    args = (profile_id, mode, stamp(start), stamp(end))
    rows = db.execute(BY_STATE.format(m="?"), args).fetchall()
    states = Counter({row["state"]: row["n"] for row in rows})
    voided = Counter({row["state"]: row["voided"] for row in rows if row["voided"]})
    back = ", ".join(f"'{state}'" for state in AFTER_SUCCESS)
    totals = [
        CurrencyTotal(
            row["currency"],
            row["n"],
            from_minor(row["amount"], row["currency"]),
            from_minor(row["fees"], row["currency"]),
            row["known"],
            row["back"],
            from_minor(row["back_amount"], row["currency"]),
            row["charged"],
        )
        for row in db.execute(
            f"SELECT currency, sum(state = '{SUCCESS}') AS n,"
            f" sum(CASE WHEN state = '{SUCCESS}' THEN amount_minor ELSE 0 END) AS amount,"
            f" sum(state IN ({back})) AS back,"
            f" sum(CASE WHEN state IN ({back}) THEN amount_minor ELSE 0 END) AS back_amount,"
            f" COALESCE(sum(fee_minor), 0) AS fees, count(fee_minor) AS known,"
            f" count(*) AS charged FROM links"
            f" WHERE {where} AND state IN ('{SUCCESS}', {back})"
            f" GROUP BY currency ORDER BY currency",
            args,
        )
    ]
    return DaySummary(start, end, states, totals, voided)
