"""Importing a desk's own ledger (``ledger.sqlite3``) into the shop's shared ledger.

``await import_ledger(engine, path, merchants, dry_run=...)`` is the one call (the command
line's ``--import-ledger`` and Settings → Shared ledger make it). It reads the file
read-only, in one snapshot, and writes the shared ledger in one transaction on the engine's
worker thread: all of it, or nothing. A dry run does the same work and rolls it back, so its
counts are exactly what the import would do.

Per table it counts what is added, what is already there identically, and what clashes: a
record with the same key but other content (the same merchant and reference with another
amount, say). The shared ledger's record is always kept; the report names each clash. Run
twice, nothing is doubled: links and cards are keyed by their natural keys, operations and
audit lines by ``origin_key`` ("<installation id>:<local id>"). Records are filed under the
merchant of their profile (``merchants``: {local profile id: merchant id}); those of a
profile the map does not name are skipped, and counted. One "import" event tells the other
desks to read everything again.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import LedgerError
from ..schema import LATEST
from . import events
from .engine import Conn, PgEngine
from .import_tables import KEYED, MERGED, Compared, Merged, Table, select_for

OLDEST = 5  # the file's schema this reads: v5 added card_operations.owner
SHOWN_CLASHES = 100  # named in the report; all are counted
# the report's rows, in this order, as the administrator reads them
LABELS = {
    "links": "links and lookups",
    "sequences": "day sequences",
    "cards": "cards",
    "card_lists": "card list times",
    "card_transactions": "card transactions",
    "card_operations": "card operations",
    "card_audit": "card audit",
}


class ImportRefused(LedgerError):
    """The file cannot be imported (not there, not a ledger, or from another PayDesk)."""


@dataclass
class Counts:
    added: int = 0
    same: int = 0  # already there identically (for a card: its balance and state aside)
    clashes: int = 0  # the same key with other content: the shared record kept
    raised: int = 0  # a day's sequence or a card list's time moved forward
    skipped: int = 0  # of a profile the map names no merchant for


@dataclass(frozen=True)
class Clash:
    table: str
    key: str
    differences: tuple[tuple[str, str, str], ...] = ()  # (column, here, in the shared ledger)
    reason: str = ""

    def text(self) -> str:
        said = "; ".join(
            f"{column} {here} here, {shared} in the shared ledger" for column, here, shared in self.differences
        )
        return f"{self.table} {self.key}: {said or self.reason}"


@dataclass
class ImportReport:
    path: str
    installation: str
    dry_run: bool
    tables: dict[str, Counts] = field(default_factory=dict)
    clashes: list[Clash] = field(default_factory=list)  # the first SHOWN_CLASHES
    unmapped: Counter[str] = field(default_factory=Counter)  # local profile id: rows skipped

    @property
    def added(self) -> int:
        return sum(c.added + c.raised for c in self.tables.values())

    @property
    def clash_count(self) -> int:
        return sum(c.clashes for c in self.tables.values())

    def lines(self) -> list[str]:
        """The report as the command line prints it."""
        head = "Dry run: nothing was written. " if self.dry_run else ""
        out = [
            f"{head}Importing {self.path} (installation {self.installation})",
            f"{'':20}{'added':>8}{'raised':>8}{'already there':>15}{'clashes':>9}{'skipped':>9}",
        ]
        for name, label in LABELS.items():
            c = self.tables.get(name)
            if c is not None:
                out.append(f"{label:20}{c.added:>8}{c.raised:>8}{c.same:>15}{c.clashes:>9}{c.skipped:>9}")
        if self.clash_count:
            shown = len(self.clashes)
            more = f" (the first {shown})" if shown < self.clash_count else ""
            out.append(f"Clashes, the shared ledger's record kept{more}:")
            out += [f"  {clash.text()}" for clash in self.clashes]
        for profile, rows in sorted(self.unmapped.items()):
            out.append(
                f"Skipped: {rows} record{'' if rows == 1 else 's'} of profile {profile},"
                " which names no merchant (its public key is not in this desk's keyring,"
                " or the profile was deleted)"
            )
        return out


async def import_ledger(
    engine: PgEngine,
    path: Path,
    merchants: Mapping[str, str],
    *,
    dry_run: bool = False,
    installation: str | None = None,
) -> ImportReport:
    """Import the ledger file at ``path`` into ``engine``'s shared ledger (or, with
    ``dry_run``, count what that would do and write nothing). ``installation``: the id of
    the desk that wrote the file (default: this desk's, ``engine.desk``)."""
    origin = installation or engine.desk
    return await engine.write(lambda conn: run_import(conn, path, merchants, origin, desk=engine.desk, dry_run=dry_run))


def run_import(
    conn: Conn, path: Path, merchants: Mapping[str, str], installation: str, *, desk: str, dry_run: bool = False
) -> ImportReport:
    """``import_ledger``'s work, on a worker thread with a connection in a transaction."""
    report = ImportReport(str(path), installation, dry_run)
    source = _open(path)
    try:
        source.execute("BEGIN")  # one snapshot of the file, whatever its desk writes meanwhile
        with conn.transaction(force_rollback=dry_run):
            for merged in MERGED:
                report.tables[merged.name] = _merge(conn, source, merged, merchants, installation, report)
            for table in KEYED:
                report.tables[table.name] = _import(conn, source, table, merchants, installation, report)
            if not dry_run:
                events.emit(conn, desk, "import")
    finally:
        source.close()
    return report


def _open(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise ImportRefused(f"There is no ledger at {path}")
    try:
        source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
        source.row_factory = sqlite3.Row
        version = source.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error as error:
        raise ImportRefused(f"{path} is not a PayDesk ledger ({error})") from None
    if not OLDEST <= version <= LATEST:
        source.close()
        if version > LATEST:
            raise ImportRefused(
                f"{path} was written by a newer PayDesk (schema {version}): import it with that PayDesk"
            )
        raise ImportRefused(
            f"{path} was written by an older PayDesk (schema {version}): open it once with this PayDesk, then import it"
        )
    return source


def _q(name: str) -> str:
    return f'"{name}"'


def _rows(
    source: sqlite3.Connection,
    select: str,
    profiled: bool,
    convert: Any,
    merchants: Mapping[str, str],
    installation: str,
    counts: Counts,
    report: ImportReport,
) -> Iterator[tuple[Any, ...]]:
    for row in source.execute(select):
        merchant = ""
        if profiled:
            merchant = merchants.get(row["profile_id"], "")
            if not merchant:
                counts.skipped += 1
                report.unmapped[row["profile_id"]] += 1
                continue
        yield convert(row, merchant, installation)


def _copy(conn: Conn, name: str, columns: tuple[tuple[str, str], ...], rows: Iterator[tuple[Any, ...]]) -> str:
    """The rows in a temporary table of this transaction (COPY: one round trip), numbered
    ``n`` in the file's order; returns its name."""
    temp = f"import_{name}"
    made = ", ".join(f"{_q(c)} {kind}" for c, kind in columns)
    conn.execute(
        f"CREATE TEMP TABLE {temp} (n bigint PRIMARY KEY, {made},"
        " added boolean NOT NULL DEFAULT false, dup boolean NOT NULL DEFAULT false)"
        " ON COMMIT DROP"
    )
    names = ", ".join(_q(c) for c, _ in columns)
    with conn.cursor() as cursor, cursor.copy(f"COPY {temp} (n, {names}) FROM STDIN") as copy:
        for n, row in enumerate(rows):
            copy.write_row((n, *row))
    conn.execute(f"ANALYZE {temp}")
    return temp


def _text(table: Table | Merged, column: str) -> str:
    """How ``column`` is compared: text byte by byte (the shared ledger's text columns are
    COLLATE "C", the import table's are not, and two collations will not compare)."""
    return ' COLLATE "C"' if dict(table.columns).get(column) == "text" else ""


def _same(table: Table | Merged, column: str, left: str = "i", right: str = "t") -> str:
    collate = _text(table, column)
    return f"{left}.{_q(column)}{collate} = {right}.{_q(column)}{collate}"


def _differs(table: Table, compared: Compared) -> str:
    """SQL: the imported row ``i`` and the shared row ``t`` disagree on ``compared``."""
    c, collate = _q(compared.column), _text(table, compared.column)
    known = compared.known or (f"i.{c} IS NOT NULL AND t.{c} IS NOT NULL AND i.{c}::text <> '' AND t.{c}::text <> ''")
    return f"(({known}) AND i.{c}{collate} IS DISTINCT FROM t.{c}{collate})"


def _import(
    conn: Conn,
    source: sqlite3.Connection,
    table: Table,
    merchants: Mapping[str, str],
    installation: str,
    report: ImportReport,
) -> Counts:
    counts = Counts()
    version = source.execute("PRAGMA user_version").fetchone()[0]
    temp = _copy(
        conn,
        table.name,
        table.columns,
        _rows(source, select_for(table, version), True, table.convert, merchants, installation, counts, report),
    )
    keys = ", ".join(_q(k) for k in table.key)
    # the same key twice in the file (two local profiles of one merchant): the first counts
    conn.execute(
        f"UPDATE {temp} SET dup = true FROM (SELECT n, row_number() OVER"
        f" (PARTITION BY {keys} ORDER BY n) AS k FROM {temp}) d"
        f" WHERE d.n = {temp}.n AND d.k > 1"
    )
    inserted = [c for c, _ in table.columns if c not in table.helpers]
    inserted += [c for c in (table.values or {}) if c not in inserted]
    joined = " AND ".join(_same(table, k, temp, "ins") for k in table.key)
    # ON CONFLICT without a target: any unique index refuses a row quietly, the partial ones
    # too (an operation on a card another desk has one under way on)
    conn.execute(
        f"WITH ins AS (INSERT INTO {table.name} ({', '.join(_q(c) for c in inserted)})"
        f" SELECT {', '.join(table.value(c) for c in inserted)} FROM {temp} i"
        f" WHERE NOT i.dup ORDER BY i.n ON CONFLICT DO NOTHING RETURNING {keys})"
        f" UPDATE {temp} SET added = true FROM ins WHERE NOT {temp}.dup AND {joined}"
    )
    on = " AND ".join(_same(table, k) for k in table.key)
    clash = " OR ".join(_differs(table, c) for c in table.compared)
    missing = f"t.{_q(table.key[0])} IS NULL"
    row = conn.execute(
        f"SELECT count(*) FILTER (WHERE i.added) AS added,"
        f" count(*) FILTER (WHERE NOT i.added AND NOT {missing} AND NOT ({clash})) AS same,"
        f" count(*) FILTER (WHERE NOT i.added AND ({missing} OR {clash})) AS clashes"
        f" FROM {temp} i LEFT JOIN {table.name} t ON {on}"
    ).fetchone()
    assert row is not None
    counts.added, counts.same, counts.clashes = row["added"], row["same"], row["clashes"]
    room = SHOWN_CLASHES - len(report.clashes)
    if counts.clashes and room > 0:
        report.clashes += _clashes(conn, table, temp, on, clash, missing, room)
    return counts


def _clashes(conn: Conn, table: Table, temp: str, on: str, clash: str, missing: str, limit: int) -> list[Clash]:
    shown = [c.column for c in table.compared]
    values = ", ".join(
        f"i.{_q(c)}::text AS {_q('here_' + c)}, t.{_q(c)}::text AS"
        f" {_q('shared_' + c)}, ({_differs(table, Compared(c, k.known))})"
        f" AS {_q('differs_' + c)}"
        for c, k in zip(shown, table.compared, strict=True)
    )
    keys = ", ".join(f"i.{_q(k)}::text AS {_q('key_' + k)}" for k in table.key)
    rows = conn.execute(
        f"SELECT {keys}, {missing} AS missing, {values} FROM {temp} i"
        f" LEFT JOIN {table.name} t ON {on} WHERE NOT i.added AND ({missing} OR {clash})"
        f" ORDER BY i.n LIMIT {int(limit)}"
    ).fetchall()
    found = []
    for row in rows:
        key = " / ".join(str(row["key_" + k]) for k in table.key)
        if row["missing"]:
            found.append(
                Clash(
                    table.name,
                    key,
                    reason="refused by the shared ledger: another"
                    " operation on this card (or another card creation) is under"
                    " way there",
                )
            )
            continue
        found.append(
            Clash(
                table.name,
                key,
                tuple((c, str(row["here_" + c]), str(row["shared_" + c])) for c in shown if row["differs_" + c]),
            )
        )
    return found


def _merge(
    conn: Conn,
    source: sqlite3.Connection,
    table: Merged,
    merchants: Mapping[str, str],
    installation: str,
    report: ImportReport,
) -> Counts:
    counts = Counts()
    temp = _copy(
        conn,
        table.name,
        table.columns,
        _rows(source, table.select, table.profiled, table.convert, merchants, installation, counts, report),
    )
    keys = ", ".join(_q(k) for k in table.key)
    value = _q(table.value)
    grouped = f"SELECT {keys}, max({value}) AS {value} FROM {temp} GROUP BY {keys}"
    on = " AND ".join(_same(table, k) for k in table.key)
    row = conn.execute(
        f"SELECT count(*) FILTER (WHERE t.{value} IS NULL) AS added,"
        f" count(*) FILTER (WHERE t.{value} < i.{value}) AS raised,"
        f" count(*) FILTER (WHERE t.{value} >= i.{value}) AS same,"
        f" (SELECT count(*) FROM {temp}) - count(*) AS folded"
        f" FROM ({grouped}) i LEFT JOIN {table.name} t ON {on}"
    ).fetchone()
    assert row is not None
    counts.added, counts.raised = row["added"], row["raised"]
    counts.same = row["same"] + row["folded"]  # the same key twice in the file: kept once
    conn.execute(
        f"INSERT INTO {table.name} ({keys}, {value}) {grouped}"
        f" ON CONFLICT ({keys}) DO UPDATE SET {value} ="
        f" GREATEST({table.name}.{value}, excluded.{value})"
    )
    return counts


__all__ = ["Clash", "Counts", "ImportRefused", "ImportReport", "import_ledger", "run_import"]
