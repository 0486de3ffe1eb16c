"""What the importer (``importer.py``) reads from a desk's ``ledger.sqlite3`` and how each
table lands in the shared ledger: its key there, the columns it brings, and which of them
make a clash when a record with the same key is already there with other content.

Keys: links by (merchant, tx_ref); cards by (merchant, mode, card hash); card transactions
by (merchant, mode, card hash, tx id); card operations and the audit by ``origin_key``,
"<installation id>:<local id>", since their ids are the file's own. Sequences and the card
lists' refresh times are merged by keeping the greater value (``MERGED``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..records import parse_stamp, parse_written

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


def _when(text: str | None) -> Any:
    return parse_stamp(text) if text else None


def _link(row: sqlite3.Row, merchant: str, installation: str) -> tuple[Any, ...]:
    return (
        merchant,
        row["mode"],
        row["tx_ref"],
        row["amount_minor"],
        row["fee_minor"],
        row["currency"],
        row["email"],
        row["first_name"],
        row["last_name"],
        row["state"],
        row["state_raw"],
        row["checkout_url"],
        row["reference"],
        row["customization"],
        row["meta"],
        row["callback_url"],
        row["return_url"],
        row["origin"],
        row["error"],
        parse_written(row["created_at"]),
        parse_written(row["updated_at"]),
        _when(row["checked_at"]),
        row["raw"],
        row["learned_by"],
    )


# the intent of a link: a record with the same reference for the same merchant but another
# amount, currency, customer or mode is a clash. Its state and times are the shared ledger's
# (its poller keeps them). A looked-up record not yet filled in (no currency) says nothing
# about the amount or the customer.
_FILLED = "i.currency <> '' AND t.currency <> ''"
LINKS = Table(
    name="links",
    select=(
        "SELECT profile_id, mode, tx_ref, amount_minor, fee_minor, currency, email,"
        " first_name, last_name, state, state_raw, checkout_url, reference, customization,"
        " meta, callback_url, return_url, origin, error, created_at, updated_at, checked_at,"
        " raw, learned_by FROM links ORDER BY id"
    ),
    columns=(
        ("profile_id", "text"),
        ("mode", "text"),
        ("tx_ref", "text"),
        ("amount_minor", "bigint"),
        ("fee_minor", "bigint"),
        ("currency", "text"),
        ("email", "text"),
        ("first_name", "text"),
        ("last_name", "text"),
        ("state", "text"),
        ("state_raw", "text"),
        ("checkout_url", "text"),
        ("reference", "text"),
        ("customization", "text"),
        ("meta", "text"),
        ("callback_url", "text"),
        ("return_url", "text"),
        ("origin", "text"),
        ("error", "text"),
        ("created_at", "timestamptz"),
        ("updated_at", "timestamptz"),
        ("checked_at", "timestamptz"),
        ("raw", "text"),
        ("learned_by", "text"),
    ),
    key=("profile_id", "tx_ref"),
    convert=_link,
    compared=(
        Compared("mode", "true"),
        Compared("currency", _FILLED),
        Compared("amount_minor", _FILLED),
        Compared("email", _FILLED),
        Compared("first_name", _FILLED),
        Compared("last_name", _FILLED),
    ),
)


LEARNED_BY = 7  # the file's schema from which links say how their state was learned


def select_for(table: Table, version: int) -> str:
    """What to read of ``table`` from a file of schema ``version`` (an older file's links
    have no learned_by: NULL, as the file itself says once it is opened by this PayDesk)."""
    if table.name == "links" and version < LEARNED_BY:
        return table.select.replace(", learned_by FROM", ", NULL AS learned_by FROM")
    return table.select


def _card(row: sqlite3.Row, merchant: str, installation: str) -> tuple[Any, ...]:
    return (
        merchant,
        row["mode"],
        row["card_hash"],
        row["masked"],
        row["name_on_card"],
        row["currency_code"],
        row["balance_minor"],
        row["amount_minor"],
        row["charge_minor"],
        row["paid_minor"],
        row["state"],
        row["expiration"],
        row["card_type"],
        row["callback"],
        _when(row["created_at"]),
        parse_written(row["seen_at"]),
        bool(row["listed"]),
    )


# a card is the service's, as some desk last saw it: its balance and state are the shared
# ledger's when it has the card; what names the card (its number, name, currency, expiry,
# type) differing is a clash
CARDS = Table(
    name="cards",
    select=(
        "SELECT profile_id, mode, card_hash, masked, name_on_card, currency_code,"
        " balance_minor, amount_minor, charge_minor, paid_minor, state, expiration,"
        " card_type, callback, created_at, seen_at, listed FROM cards"
        " ORDER BY profile_id, mode, card_hash"
    ),
    columns=(
        ("profile_id", "text"),
        ("mode", "text"),
        ("card_hash", "text"),
        ("masked", "text"),
        ("name_on_card", "text"),
        ("currency_code", "text"),
        ("balance_minor", "bigint"),
        ("amount_minor", "bigint"),
        ("charge_minor", "bigint"),
        ("paid_minor", "bigint"),
        ("state", "integer"),
        ("expiration", "text"),
        ("card_type", "text"),
        ("callback", "text"),
        ("created_at", "timestamptz"),
        ("seen_at", "timestamptz"),
        ("listed", "boolean"),
    ),
    key=("profile_id", "mode", "card_hash"),
    convert=_card,
    compared=(
        Compared("masked"),
        Compared("name_on_card"),
        Compared("currency_code"),
        Compared("expiration"),
        Compared("card_type"),
    ),
    values={"created_at": "COALESCE(i.created_at, '-infinity')"},
)


def _card_tx(row: sqlite3.Row, merchant: str, installation: str) -> tuple[Any, ...]:
    return (
        merchant,
        row["mode"],
        row["card_hash"],
        row["tx_id"],
        row["type"],
        row["amount_minor"],
        row["description"],
        row["status"],
        _when(row["created_at"]),
        parse_written(row["first_seen"]),
    )


_KNOWN_TIME = "i.created_at IS NOT NULL AND t.created_at IS NOT NULL AND t.created_at <> '-infinity'"
CARD_TRANSACTIONS = Table(
    name="card_transactions",
    select=(
        "SELECT profile_id, mode, card_hash, tx_id, type, amount_minor, description,"
        " status, created_at, first_seen FROM card_transactions"
        " ORDER BY profile_id, mode, card_hash, tx_id"
    ),
    columns=(
        ("profile_id", "text"),
        ("mode", "text"),
        ("card_hash", "text"),
        ("tx_id", "text"),
        ("type", "text"),
        ("amount_minor", "bigint"),
        ("description", "text"),
        ("status", "text"),
        ("created_at", "timestamptz"),
        ("first_seen", "timestamptz"),
    ),
    key=("profile_id", "mode", "card_hash", "tx_id"),
    convert=_card_tx,
    compared=(Compared("type"), Compared("amount_minor"), Compared("description"), Compared("created_at", _KNOWN_TIME)),
    values={"created_at": "COALESCE(i.created_at, '-infinity')"},
)


def origin_key(installation: str, local_id: int | None) -> str | None:
    """What names a file's operation or audit line in the shared ledger."""
    return None if local_id is None else f"{installation}:{local_id}"


def _operation(row: sqlite3.Row, merchant: str, installation: str) -> tuple[Any, ...]:
    return (
        merchant,
        row["mode"],
        row["kind"],
        row["card_hash"],
        row["masked"],
        row["amount_minor"],
        row["currency"],
        row["callback_url"],
        row["state"],
        parse_written(row["started_at"]),
        _when(row["finished_at"]),
        row["result"],
        row["evidence"],
        bool(row["settled"]),
        row["owner"],
        origin_key(installation, row["id"]),
    )


CARD_OPERATIONS = Table(
    name="card_operations",
    select=(
        "SELECT profile_id, id, mode, kind, card_hash, masked, amount_minor, currency,"
        " callback_url, state, started_at, finished_at, result, evidence, settled, owner"
        " FROM card_operations ORDER BY id"
    ),
    columns=(
        ("profile_id", "text"),
        ("mode", "text"),
        ("kind", "text"),
        ("card_hash", "text"),
        ("masked", "text"),
        ("amount_minor", "bigint"),
        ("currency", "text"),
        ("callback_url", "text"),
        ("state", "text"),
        ("started_at", "timestamptz"),
        ("finished_at", "timestamptz"),
        ("result", "text"),
        ("evidence", "text"),
        ("settled", "boolean"),
        ("owner", "text"),
        ("origin_key", "text"),
    ),
    key=("origin_key",),
    convert=_operation,
    compared=tuple(
        Compared(c, "true")
        for c in (
            "profile_id",
            "mode",
            "kind",
            "card_hash",
            "masked",
            "amount_minor",
            "currency",
            "state",
            "started_at",
            "finished_at",
            "result",
            "evidence",
            "settled",
        )
    ),
)


def _audit(row: sqlite3.Row, merchant: str, installation: str) -> tuple[Any, ...]:
    return (
        merchant,
        parse_written(row["at"]),
        row["user"],
        row["profile_name"],
        row["mode"],
        row["card_hash"],
        row["masked"],
        row["action"],
        row["amount_minor"],
        row["currency"],
        row["result"],
        row["detail"],
        origin_key(installation, row["operation_id"]),
        origin_key(installation, row["id"]),
    )


# an audit line names its operation by the file's id: in the shared ledger, by the id the
# operation was given there (found by its origin_key; NULL when it was not imported)
CARD_AUDIT = Table(
    name="card_audit",
    select=(
        'SELECT profile_id, id, at, "user", profile_name, mode, card_hash, masked, action,'
        " amount_minor, currency, result, detail, operation_id FROM card_audit ORDER BY id"
    ),
    columns=(
        ("profile_id", "text"),
        ("at", "timestamptz"),
        ("user", "text"),
        ("profile_name", "text"),
        ("mode", "text"),
        ("card_hash", "text"),
        ("masked", "text"),
        ("action", "text"),
        ("amount_minor", "bigint"),
        ("currency", "text"),
        ("result", "text"),
        ("detail", "text"),
        ("operation_origin", "text"),
        ("origin_key", "text"),
    ),
    key=("origin_key",),
    convert=_audit,
    compared=tuple(
        Compared(c, "true")
        for c in (
            "profile_id",
            "at",
            "user",
            "mode",
            "card_hash",
            "masked",
            "action",
            "amount_minor",
            "currency",
            "result",
            "detail",
        )
    ),
    values={"operation_id": "(SELECT o.id FROM card_operations o WHERE o.origin_key = i.operation_origin)"},
    helpers=("operation_origin",),
)

# in the order they are imported: operations before the audit lines that name them
KEYED = (LINKS, CARDS, CARD_TRANSACTIONS, CARD_OPERATIONS, CARD_AUDIT)


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


SEQUENCES = Merged(
    "sequences",
    "SELECT day, value FROM sequences ORDER BY day",
    (("day", "date"), ("value", "integer")),
    ("day",),
    "value",
    lambda row, merchant, installation: (date.fromisoformat(row["day"]), row["value"]),
    profiled=False,
)
CARD_LISTS = Merged(
    "card_lists",
    "SELECT profile_id, mode, refreshed_at FROM card_lists ORDER BY profile_id, mode",
    (("profile_id", "text"), ("mode", "text"), ("refreshed_at", "timestamptz")),
    ("profile_id", "mode"),
    "refreshed_at",
    lambda row, merchant, installation: (merchant, row["mode"], parse_written(row["refreshed_at"])),
    profiled=True,
)
MERGED = (SEQUENCES, CARD_LISTS)
