"""What the counter SQL of both backends holds (``books/counter.py``): the
kind of a sale derived from its link's state and its void (``KIND``, in the rule order of
``counter.py``), the sale and shift selects, a ``SaleQuery`` as SQL (each list driven from
the few rows it can hold: the voided or open sales, or those of a day, never a walk over
every sale), and the figures built from one grouped count. Only the parameter mark and
how a time is written and read differ between the backends."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

from .amounts import from_minor
from .counter import (
    DECISIONS,
    FAILED,
    KINDS,
    OPEN,
    OPEN_STATES,
    PAID,
    PAID_AFTER_VOID,
    PAID_STATES,
    VOIDED,
    CurrencyFigures,
    Figures,
    Sale,
    SaleQuery,
    Shift,
)
from .records import FINAL, LinkRecord

Row = Any  # a sqlite3.Row or a psycopg dict row: both are read by column name
When = Callable[[Any], datetime]  # a time as the table holds it -> an aware datetime


def _quoted(values: Iterable[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


# no link yet (links.state NULL) is "not sent": failed, as a refused one
KIND = (
    f"CASE WHEN v.voided_at IS NOT NULL AND links.state IN ({_quoted(PAID_STATES)})"
    f" THEN '{PAID_AFTER_VOID}'"
    f" WHEN v.voided_at IS NOT NULL THEN '{VOIDED}'"
    f" WHEN links.state IN ({_quoted(PAID_STATES)}) THEN '{PAID}'"
    f" WHEN links.state IN ({_quoted(OPEN_STATES)}) THEN '{OPEN}'"
    f" ELSE '{FAILED}' END"
)

# the sale's own columns prefixed "sale_": the link's keep the names its row reader knows
SALE_COLUMNS = (
    "s.id AS sale_id, s.profile_id AS sale_profile_id, s.mode AS sale_mode,"
    " s.tx_ref AS sale_tx_ref, s.counter AS sale_counter,"
    " s.shift_id AS sale_shift_id, s.number AS sale_number,"
    " s.made_at AS sale_made_at, s.made_by AS sale_made_by,"
    " v.voided_at AS sale_voided_at, v.voided_by AS sale_voided_by,"
    " d.decision AS sale_decision, d.decided_at AS sale_decided_at,"
    f" d.decided_by AS sale_decided_by, {KIND} AS sale_kind,"
    " s.actor AS sale_actor, v.actor AS sale_voided_actor, d.actor AS sale_decided_actor"
)
SALES_FROM = (
    "counter_sales s"
    " LEFT JOIN counter_voids v ON v.profile_id = s.profile_id AND v.tx_ref = s.tx_ref"
    " LEFT JOIN counter_decisions d"
    " ON d.profile_id = s.profile_id AND d.tx_ref = s.tx_ref"
    " LEFT JOIN links ON links.profile_id = s.profile_id AND links.tx_ref = s.tx_ref"
)

SHIFT_SELECT = (
    "SELECT sh.id, sh.counter, sh.profile_id, sh.mode, sh.opened_at, sh.opened_by,"
    " c.closed_at, c.closed_by, c.figures, sh.actor AS opened_actor, c.actor AS closed_actor"
    " FROM counter_shifts sh LEFT JOIN counter_shift_closes c ON c.shift_id = sh.id"
)

NEXT_NUMBER = "SELECT COALESCE(MAX(number), 0) + 1 AS n FROM counter_sales WHERE counter = {m}"


def sale_select(link_columns: str) -> str:
    """``SELECT`` of sales with their link's columns (``Dialect.link_columns``: ``books/search.SELECT``)."""
    return f"SELECT {SALE_COLUMNS}, {link_columns} FROM {SALES_FROM}"


def check_decision(decision: str) -> None:
    if decision not in DECISIONS:
        raise ValueError(f"not a decision: {decision!r}")


def conditions(
    query: SaleQuery, before: int | None, *, mark: str, when: Callable[[datetime], Any]
) -> tuple[str, list[Any]]:
    """``WHERE`` text (never empty) over ``SALES_FROM`` and its arguments."""
    parts: list[str] = ["TRUE"]
    args: list[Any] = []
    for column, value in (
        ("s.profile_id", query.profile_id),
        ("s.mode", query.mode),
        ("s.counter", query.counter),
        ("s.shift_id", query.shift_id),
    ):
        if value is not None:
            parts.append(f"{column} = {mark}")
            args.append(value)
    if query.since is not None:
        parts.append(f"s.made_at >= {mark}")
        args.append(when(query.since))
    if query.kinds:
        unknown = set(query.kinds) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown kinds {sorted(unknown)!r}")
        parts.append(f"({KIND}) IN ({_quoted(sorted(query.kinds))})")
    if query.undecided:
        parts.append(f"({KIND}) = '{PAID_AFTER_VOID}' AND d.decision IS NULL")
    if query.hide_decided:  # a decision row is only ever written for a paid after void
        parts.append("d.decision IS NULL")
    if before is not None:
        parts.append(f"s.id < {mark}")
        args.append(before)
    return " AND ".join(parts), args


def _few(query: SaleQuery, mark: str) -> tuple[str | None, list[Any]]:
    """The (profile_id, tx_ref) of the few sales the kinds asked for can be, as a SELECT:
    the voided ones from ``counter_voids``, the open ones from the links' partial index
    ``links_open``. A list of them is driven from these (the red banner's, finance's open
    sales), never walking every sale the profile ever made. None when a kind asked for can
    be any sale (paid, failed)."""
    kinds = set(query.kinds or KINDS)
    if query.undecided:
        kinds &= {PAID_AFTER_VOID}
    if kinds - {VOIDED, PAID_AFTER_VOID, OPEN}:
        return None, []
    sources: list[str] = []
    args: list[Any] = []

    def source(sql: str, *scope: tuple[str, str | None]) -> None:
        for column, value in scope:
            if value is not None:
                sql += f" AND {column} = {mark}"
                args.append(value)
        sources.append(sql)

    if kinds & {VOIDED, PAID_AFTER_VOID}:
        source("SELECT profile_id, tx_ref FROM counter_voids WHERE TRUE", ("profile_id", query.profile_id))
    if OPEN in kinds:  # said as the partial index says it, so SQLite's planner takes it
        source(
            f"SELECT profile_id, tx_ref FROM links WHERE state NOT IN ({_quoted(FINAL)})",
            ("profile_id", query.profile_id),
            ("mode", query.mode),
        )
    if not sources:  # undecided and only open ones asked for: none can be both
        return "SELECT profile_id, tx_ref FROM counter_voids WHERE FALSE", []
    return " UNION ".join(sources), args  # UNION: a voided sale's link may be open


def _since(query: SaleQuery, mark: str, when: Callable[[datetime], Any]) -> tuple[str | None, list[Any]]:
    """The ids of the sales made since ``query.since``, as a SELECT along the made_at index
    (today's list and count read today's rows, not the counter's whole history)."""
    if query.since is None:
        return None, []
    parts, args = [f"made_at >= {mark}"], [when(query.since)]
    for column, value in (("counter", query.counter), ("profile_id", query.profile_id), ("mode", query.mode)):
        if value is not None:
            parts.append(f"{column} = {mark}")
            args.append(value)
    return f"SELECT id FROM counter_sales WHERE {' AND '.join(parts)}", args


def _from(query: SaleQuery, before: int | None, *, mark: str, when: Callable[[datetime], Any]) -> tuple[str, list[Any]]:
    """``FROM ... WHERE ...`` of the sales ``query`` selects, and its arguments: driven from
    the few sales its kinds can be, else from those made since its time, else along the
    sales' own indexes. A CROSS JOIN keeps SQLite's join order (the driver first);
    PostgreSQL plans it as any join."""
    where, args = conditions(query, before, mark=mark, when=when)
    few, first = _few(query, mark)
    if few is not None:
        return (
            f"FROM ({few}) f CROSS JOIN {SALES_FROM} WHERE s.profile_id = f.profile_id"
            f" AND s.tx_ref = f.tx_ref AND {where}",
            first + args,
        )
    since, first = _since(query, mark, when)
    if since is not None:
        return (f"FROM ({since}) f CROSS JOIN {SALES_FROM} WHERE s.id = f.id AND {where}", first + args)
    return f"FROM {SALES_FROM} WHERE {where}", args


def sales_sql(
    query: SaleQuery, before: int | None, limit: int, *, mark: str, when: Callable[[datetime], Any], link_columns: str
) -> tuple[str, list[Any]]:
    """A page of sales, newest first, with their link's columns (``books/search.SELECT``)."""
    source, args = _from(query, before, mark=mark, when=when)
    return (f"SELECT {SALE_COLUMNS}, {link_columns} {source} ORDER BY s.id DESC LIMIT {int(limit)}"), args


def figures_sql(query: SaleQuery, *, mark: str, when: Callable[[datetime], Any]) -> tuple[str, list[Any]]:
    """One row per (kind, currency) of the sales ``query`` selects: how many, the amount in
    minor units (NULL currency: no link), the first and last made_at."""
    source, args = _from(query, None, mark=mark, when=when)
    return (
        f"SELECT t.kind, t.currency, COUNT(*) AS n, SUM(t.amount_minor) AS amount,"
        f" MIN(t.made_at) AS first_at, MAX(t.made_at) AS last_at FROM"
        f" (SELECT {KIND} AS kind, links.currency AS currency,"
        f" links.amount_minor AS amount_minor, s.made_at AS made_at {source}) t"
        f" GROUP BY t.kind, t.currency"
    ), args


_COUNTED = {PAID: "paid", OPEN: "open", FAILED: "failed", VOIDED: "voided", PAID_AFTER_VOID: "paid_after_void"}
_AMOUNTS = {PAID: "paid", OPEN: "open", VOIDED: "voided", PAID_AFTER_VOID: "paid_after_void"}


def figures(rows: Iterable[Row], when: When) -> Figures:
    """The grouped rows of ``figures_sql`` as a count."""
    counts = dict.fromkeys(_COUNTED.values(), 0)
    amounts: dict[str, dict[str, Decimal]] = {}
    firsts: list[datetime] = []
    lasts: list[datetime] = []
    for row in rows:
        kind, currency, n = row["kind"], row["currency"], int(row["n"])
        counts[_COUNTED[kind]] += n
        firsts.append(when(row["first_at"]))
        lasts.append(when(row["last_at"]))
        if currency and kind in _AMOUNTS and row["amount"] is not None:
            per = amounts.setdefault(currency, {})
            field = _AMOUNTS[kind]
            per[field] = per.get(field, Decimal(0)) + from_minor(int(row["amount"]), currency)
    return Figures(
        made=sum(counts.values()),
        **counts,
        currencies={c: CurrencyFigures(**per) for c, per in sorted(amounts.items())},
        first_sale=min(firsts) if firsts else None,
        last_sale=max(lasts) if lasts else None,
    )


def sale(row: Row, when: When, record: Callable[[Row], LinkRecord]) -> Sale:
    """A row of ``sale_select``; ``record`` reads the link's columns (absent: NULL id)."""
    voided, decided = row["sale_voided_at"], row["sale_decided_at"]
    return Sale(
        id=int(row["sale_id"]),
        profile_id=row["sale_profile_id"],
        mode=row["sale_mode"],
        tx_ref=row["sale_tx_ref"],
        counter=row["sale_counter"],
        shift_id=int(row["sale_shift_id"]),
        number=int(row["sale_number"]),
        made_at=when(row["sale_made_at"]),
        made_by=row["sale_made_by"],
        kind=row["sale_kind"],
        record=None if row["id"] is None else record(row),
        voided_at=None if voided is None else when(voided),
        voided_by=row["sale_voided_by"],
        decision=row["sale_decision"],
        decided_at=None if decided is None else when(decided),
        decided_by=row["sale_decided_by"],
        actor=row["sale_actor"],
        voided_actor=row["sale_voided_actor"],
        decided_actor=row["sale_decided_actor"],
    )


def shift(row: Row, when: When) -> Shift:
    """A row of ``SHIFT_SELECT``."""
    closed, frozen = row["closed_at"], row["figures"]
    return Shift(
        id=int(row["id"]),
        counter=row["counter"],
        profile_id=row["profile_id"],
        mode=row["mode"],
        opened_at=when(row["opened_at"]),
        opened_by=row["opened_by"],
        closed_at=None if closed is None else when(closed),
        closed_by=row["closed_by"],
        figures=None if frozen is None else Figures.from_json(json.loads(frozen)),
        opened_actor=row["opened_actor"],
        closed_actor=row["closed_actor"],
    )


def shifts_conditions(
    profile_id: str | None, mode: str | None, counter: str | None, before: int | None, *, mark: str
) -> tuple[str, list[Any]]:
    parts: list[str] = ["TRUE"]
    args: list[Any] = []
    for column, value in (("sh.profile_id", profile_id), ("sh.mode", mode), ("sh.counter", counter), ("sh.id", before)):
        if value is not None:
            parts.append(f"{column} {'<' if column == 'sh.id' else '='} {mark}")
            args.append(value)
    return " AND ".join(parts), args
