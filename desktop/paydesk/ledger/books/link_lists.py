"""The lists the scheduler works through, in SQL for both backends: creates not settled, open
records to check, paid records to read again for refunds. Each is found along a small
partial index of its own (``links_open``, ``links_paid``), whose condition the SQL says in
the index's own words (PostgreSQL's planner matches a partial index's predicate against the
query's text; SQLite, with no statistics, is told the index: ``Dialect.indexed``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..dialect import Dialect
from ..query import Cursor
from ..records import CREATING, FINAL, OPEN, SUCCESS

Sql = tuple[str, list[Any]]

OPEN_WHERE = f"state NOT IN ({', '.join(repr(s) for s in FINAL)})"
# the state said literally, as the partial index links_paid says it (a bound value would
# not prove to the planner that the index holds every row asked for)
PAID_WHERE = f"state = '{SUCCESS}'"


def _also(where: str, args: list[Any], *conditions: tuple[str, Any]) -> str:
    for condition, value in conditions:
        if value:
            where += f" AND {condition}"
            args.append(value)
    return where


def unsettled(d: Dialect, profile_id: str | None) -> Sql:
    args: list[Any] = [CREATING]
    where = _also(f"state = ? AND {OPEN_WHERE}", args, ("profile_id = ?", profile_id))
    return (f"SELECT {d.link_columns} FROM links{d.indexed('links_open')} WHERE {where} ORDER BY id", args)


def open_records(
    d: Dialect, profile_id: str | None, mode: str | None, since: datetime | None, limit: int | None
) -> Sql:
    args: list[Any] = [s for s in OPEN if s != CREATING]
    where = _also(
        f"state IN ({', '.join('?' for _ in args)}) AND {OPEN_WHERE}",
        args,
        ("profile_id = ?", profile_id),
        ("mode = ?", mode),
        ("created_at >= ?", since and d.time(since)),
    )
    sql = f"SELECT {d.link_columns} FROM links{d.indexed('links_open')} WHERE {where} ORDER BY created_at DESC, id DESC"
    return sql + (f" LIMIT {int(limit)}" if limit is not None else ""), args


def _paid_where(
    d: Dialect,
    args: list[Any],
    since: datetime,
    profile_id: str | None,
    mode: str | None,
    checked_before: datetime | None = None,
) -> str:
    args.append(d.time(since))
    return _also(
        f"{PAID_WHERE} AND updated_at >= ?",
        args,
        ("profile_id = ?", profile_id),
        ("mode = ?", mode),
        ("checked_at < ?", checked_before and d.time(checked_before)),
    )


def paid(
    d: Dialect,
    since: datetime,
    profile_id: str | None,
    mode: str | None,
    checked_before: datetime | None,
    after: Cursor | None,
    limit: int,
) -> Sql:
    """``limit`` + 1 paid records from ``after`` on, oldest paid first."""
    args: list[Any] = []
    where = _paid_where(d, args, since, profile_id, mode, checked_before)
    if after is not None:
        where += " AND (updated_at, id) > (?, ?)"
        args += list(after.values)
    return (
        f"SELECT {d.link_columns} FROM links{d.indexed('links_paid')} WHERE {where}"
        f" ORDER BY updated_at, id LIMIT {int(limit) + 1}",
        args,
    )


def paid_count(d: Dialect, since: datetime, profile_id: str | None, mode: str | None) -> Sql:
    args: list[Any] = []
    where = _paid_where(d, args, since, profile_id, mode)
    return f"SELECT count(*) AS n FROM links{d.indexed('links_paid')} WHERE {where}", args
