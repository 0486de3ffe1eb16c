"""The shapes of what the importer (``importer.py``) copies from a desk's file
(``import_tables.py`` names each table): a keyed ``Table``, whose ``Compared`` columns make a
clash, and a ``Merged`` one, whose rows keep the greater value."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..records import parse_stamp

# a row of the file, the merchant of its profile and the installation's id -> the row to copy
Convert = Callable[[sqlite3.Row, str, str], tuple[Any, ...]]


@dataclass(frozen=True)
class Compared:
    """A column whose difference is a clash, when ``known`` (SQL over ``i``, the imported row,
    and ``t``, the shared one) holds: both sides say something about it."""

    column: str
    known: str | None = None  # default: neither side NULL nor empty


@dataclass(frozen=True)
class Table:
    name: str  # the shared ledger's table, and its name in the report
    select: str  # from the file: ``profile_id`` first
    columns: tuple[tuple[str, str], ...]  # what is copied: (column, type) in the import table
    key: tuple[str, ...]
    convert: Convert
    compared: tuple[Compared, ...]
    # what is inserted for a column, when not the column as copied (SQL over ``i``)
    values: Mapping[str, str] | None = None
    # the columns copied only to make another (not inserted themselves)
    helpers: tuple[str, ...] = ()

    def value(self, column: str) -> str:
        return (self.values or {}).get(column, f"i.{column}")


def when(text: str | None) -> Any:
    return parse_stamp(text) if text else None


@dataclass(frozen=True)
class Merged:
    """A table whose rows are merged by keeping the greater ``value`` (a day's sequence, a
    card list's refresh time): a smaller one is "already there", a greater one "raised"."""

    name: str
    select: str
    columns: tuple[tuple[str, str], ...]
    key: tuple[str, ...]
    value: str
    convert: Convert
    profiled: bool  # its rows belong to a profile (the first column), mapped to its merchant


__all__ = ["Compared", "Convert", "Merged", "Table", "when"]
