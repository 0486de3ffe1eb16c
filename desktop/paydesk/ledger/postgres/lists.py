"""The lists the scheduler works through, as PostgreSQL: creates not settled, open records to
check, paid records to read again for refunds. Each is found along a small partial index of
its own (``links_open``, ``links_paid``), whose condition the SQL says in the index's own
words (the planner matches a partial index's predicate against the query's text)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..query import Cursor
from ..records import CREATING, FINAL, OPEN, SUCCESS
from .search import SELECT, aware

Sql = tuple[str, list[Any]]

OPEN_WHERE = f"state NOT IN ({', '.join(repr(s) for s in FINAL)})"
PAID_WHERE = f"state = '{SUCCESS}'"


def _also(where: str, args: list[Any], *conditions: tuple[str, Any]) -> str:
    for condition, value in conditions:
        if value:
            where += f" AND {condition}"
            args.append(value)
    return where


def unsettled(profile_id: str | None) -> Sql:
    args: list[Any] = [CREATING]
    where = _also(f"state = %s AND {OPEN_WHERE}", args, ("profile_id = %s", profile_id))
    return f"SELECT {SELECT} FROM links WHERE {where} ORDER BY id", args


def open_records(profile_id: str | None, mode: str | None, since: datetime | None,
                 limit: int | None) -> Sql:
    args: list[Any] = [[s for s in OPEN if s != CREATING]]
    where = _also(f"state = ANY(%s) AND {OPEN_WHERE}", args, ("profile_id = %s", profile_id),
                  ("mode = %s", mode), ("created_at >= %s", since and aware(since)))
    sql = f"SELECT {SELECT} FROM links WHERE {where} ORDER BY created_at DESC, id DESC"
    return sql + (f" LIMIT {int(limit)}" if limit is not None else ""), args


def _paid_where(args: list[Any], since: datetime, profile_id: str | None, mode: str | None,
                checked_before: datetime | None = None) -> str:
    args.append(aware(since))
    return _also(f"{PAID_WHERE} AND updated_at >= %s", args, ("profile_id = %s", profile_id),
                 ("mode = %s", mode),
                 ("checked_at < %s", checked_before and aware(checked_before)))


def paid(since: datetime, profile_id: str | None, mode: str | None,
         checked_before: datetime | None, after: Cursor | None, limit: int) -> Sql:
    """``limit`` + 1 paid records from ``after`` on, oldest paid first."""
    args: list[Any] = []
    where = _paid_where(args, since, profile_id, mode, checked_before)
    if after is not None:
        where += " AND (updated_at, id) > (%s, %s)"
        args += list(after.values)
    return (f"SELECT {SELECT} FROM links WHERE {where} ORDER BY updated_at, id"
            f" LIMIT {int(limit) + 1}", args)


def paid_count(since: datetime, profile_id: str | None, mode: str | None) -> Sql:
    args: list[Any] = []
    return f"SELECT count(*) AS n FROM links WHERE {_paid_where(args, since, profile_id, mode)}", args
