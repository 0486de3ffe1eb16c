"""The day's figures for the end-of-day summary: records made that day by state, and the money
collected and the fees per currency."""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from .amounts import from_minor
from .records import stamp


@dataclass(frozen=True)
class CurrencyTotal:
    currency: str
    paid: int  # how many were paid
    collected: Decimal  # their amounts
    fees: Decimal  # the service's fees on them, where the service has said them...
    fees_known: int = 0  # ...for this many of the paid ones


@dataclass(frozen=True)
class DaySummary:
    start: datetime  # the day's first moment, inclusive (aware)
    end: datetime  # the next day's first moment, exclusive
    states: Counter = field(default_factory=Counter)  # state -> how many made that day
    totals: list[CurrencyTotal] = field(default_factory=list)  # paid ones, per currency

    @property
    def created(self) -> int:
        return sum(self.states.values())


def summarise(db: sqlite3.Connection, profile_id: str, mode: str, start: datetime,
              end: datetime) -> DaySummary:
    where = "profile_id = ? AND mode = ? AND created_at >= ? AND created_at < ?"
    args = (profile_id, mode, stamp(start), stamp(end))
    states = Counter({row["state"]: row["n"] for row in db.execute(
        f"SELECT state, count(*) AS n FROM links WHERE {where} GROUP BY state", args)})
    totals = [CurrencyTotal(row["currency"], row["n"], from_minor(row["amount"], row["currency"]),
                            from_minor(row["fees"], row["currency"]), row["known"])
              for row in db.execute(
                  f"SELECT currency, count(*) AS n, sum(amount_minor) AS amount,"
                  f" COALESCE(sum(fee_minor), 0) AS fees, count(fee_minor) AS known FROM links"
                  f" WHERE {where} AND state = 'success' GROUP BY currency ORDER BY currency",
                  args)]
    return DaySummary(start, end, states, totals)
