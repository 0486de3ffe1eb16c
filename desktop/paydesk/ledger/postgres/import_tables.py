"""What the importer (``importer.py``) reads from a desk's ``ledger.sqlite3`` and how each
table lands in the shared ledger: its key there, the columns it brings, and which of them
make a clash when a record with the same key is already there with other content.

Keys: links by (merchant, tx_ref); cards by (merchant, mode, card hash); card transactions
by (merchant, mode, card hash, tx id); card operations and the audit by ``origin_key``,
"<installation id>:<local id>", since their ids are the file's own. Sequences and the card
lists' refresh times are merged by keeping the greater value (``MERGED``). The card tables
are ``import_card_tables.py``'s, the shapes of a table ``import_shape.py``'s.
"""

from __future__ import annotations

import sqlite3
from datetime import date
from typing import Any

from ..actor_schema import ACTOR_TABLES
from ..records import parse_written
from .import_card_tables import CARD_AUDIT, CARD_OPERATIONS, CARD_TRANSACTIONS, CARDS, origin_key
from .import_shape import Compared, Convert, Merged, Table
from .import_shape import when as _when


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
        row["actor"],
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
        " raw, learned_by, actor FROM links ORDER BY id"
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
        ("actor", "text"),
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
ACTOR = 12  # the file's schema from which a person's writes say who made them


def select_for(table: Table, version: int) -> str:
    """What to read of ``table`` from a file of schema ``version`` (an older file's links
    have no learned_by, an older file's records no actor: NULL, as the file itself says
    once it is opened by this PayDesk)."""
    select = table.select
    if table.name == "links" and version < LEARNED_BY:
        select = select.replace(" raw, learned_by,", " raw, NULL AS learned_by,")
    if table.name in ACTOR_TABLES and version < ACTOR:
        select = select.replace(", actor FROM", ", NULL AS actor FROM")
    return select


# in the order they are imported: operations before the audit lines that name them
KEYED = (LINKS, CARDS, CARD_TRANSACTIONS, CARD_OPERATIONS, CARD_AUDIT)


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

__all__ = [
    "CARDS",
    "CARD_AUDIT",
    "CARD_LISTS",
    "CARD_OPERATIONS",
    "CARD_TRANSACTIONS",
    "Compared",
    "Convert",
    "KEYED",
    "LEARNED_BY",
    "LINKS",
    "MERGED",
    "Merged",
    "SEQUENCES",
    "Table",
    "origin_key",
    "select_for",
]
