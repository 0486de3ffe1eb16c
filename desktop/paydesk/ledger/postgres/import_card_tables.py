"""How a desk's card tables land in the shared ledger (``import_tables.py`` has the links and
the order of them all): cards by (merchant, mode, card hash), card transactions by
(merchant, mode, card hash, tx id), card operations and the audit by ``origin_key``,
"<installation id>:<local id>", since their ids are the file's own."""

from __future__ import annotations

import sqlite3
from typing import Any

from ..records import parse_written
from .import_shape import Compared, Table
from .import_shape import when as _when


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
        row["actor"],
        origin_key(installation, row["id"]),
    )


CARD_OPERATIONS = Table(
    name="card_operations",
    select=(
        "SELECT profile_id, id, mode, kind, card_hash, masked, amount_minor, currency,"
        " callback_url, state, started_at, finished_at, result, evidence, settled, owner, actor"
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
        ("actor", "text"),
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
        row["actor"],
        origin_key(installation, row["operation_id"]),
        origin_key(installation, row["id"]),
    )


# an audit line names its operation by the file's id: in the shared ledger, by the id the
# operation was given there (found by its origin_key; NULL when it was not imported)
CARD_AUDIT = Table(
    name="card_audit",
    select=(
        'SELECT profile_id, id, at, "user", profile_name, mode, card_hash, masked, action,'
        " amount_minor, currency, result, detail, operation_id, actor FROM card_audit ORDER BY id"
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
        ("actor", "text"),
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
