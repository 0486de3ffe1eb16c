"""The sandbox's state in SQLite: transactions, cards, balances, notifications, e-mails,
the merchants' webhook URLs.

One connection, used from the server's event loop only; every statement is
parameterised. WAL mode so a restart or a reader never sees a torn write.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS transactions (
    id INTEGER PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    tx_ref TEXT NOT NULL,
    reference TEXT NOT NULL UNIQUE,
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL,
    charge TEXT NOT NULL,
    email TEXT NOT NULL,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    callback_url TEXT,
    return_url TEXT,
    customization TEXT NOT NULL,
    meta TEXT NOT NULL,
    type TEXT NOT NULL,
    status TEXT NOT NULL,
    threeds_pending INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (merchant_id, tx_ref)
);
CREATE TABLE IF NOT EXISTS balances (
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount TEXT NOT NULL,
    PRIMARY KEY (merchant_id, mode, currency)
);
CREATE TABLE IF NOT EXISTS cards (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    card_hash TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL,
    card_pan TEXT NOT NULL,
    cvv TEXT NOT NULL,
    expiration TEXT NOT NULL,
    name_on_card TEXT NOT NULL,
    callback TEXT,
    amount TEXT NOT NULL,
    charge TEXT NOT NULL,
    paid TEXT NOT NULL,
    balance TEXT NOT NULL,
    currency TEXT NOT NULL,
    status INTEGER NOT NULL,
    ref_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS card_transactions (
    id INTEGER PRIMARY KEY,
    card_hash TEXT NOT NULL,
    type TEXT NOT NULL,
    amount TEXT NOT NULL,
    description TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS card_tx_by_card ON card_transactions (card_hash, id);
CREATE TABLE IF NOT EXISTS notifications (
    id INTEGER PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    event TEXT NOT NULL,
    url TEXT NOT NULL,
    body TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    status_code INTEGER,
    error TEXT,
    created_at TEXT NOT NULL
);
-- the merchant's webhook URL (the family's dashboard setting), one per merchant for both
-- modes: where payment events go besides (document) or instead of (family) callback_url
CREATE TABLE IF NOT EXISTS webhooks (
    merchant_id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
-- a merchant's settings (both modes), as JSON values: --family's amount limits per currency,
-- whether the customer pays the fee, the home currency (settings.py)
CREATE TABLE IF NOT EXISTS settings (
    merchant_id TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (merchant_id, name)
);
CREATE TABLE IF NOT EXISTS emails (
    id INTEGER PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    file TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""


# added to cards since its first schema: the cardholder's names as sent (--family shows
# them), and when --family deleted the card (its transactions stay, as the family's do)
_CARD_COLUMNS = {"first_name": "TEXT", "last_name": "TEXT", "deleted_at": "TEXT"}


# The write transactions committed while answering the current request (a list set per
# request by the server), so that an error after a commit never claims nothing changed.
_COMMITS: ContextVar[list[str] | None] = ContextVar("sandbox_commits", default=None)


@contextmanager
def watching_commits() -> Iterator[list[str]]:
    """Collect the commits made inside this block (one request)."""
    commits: list[str] = []
    token = _COMMITS.set(commits)
    try:
        yield commits
    finally:
        _COMMITS.reset(token)


def committed() -> bool:
    """Whether a write transaction committed while answering the current request."""
    return bool(_COMMITS.get())


def now_iso() -> str:
    """ISO 8601 UTC with microseconds and a trailing Z, as the seed shows."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Store:
    def __init__(self, path: Path):
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)
        self._add_columns("cards", _CARD_COLUMNS)
        self._lock = threading.RLock()

    def _add_columns(self, table: str, columns: dict[str, str]) -> None:
        """Columns added since a data folder was made (an older sandbox's)."""
        have = {r["name"] for r in self._db.execute(f"PRAGMA table_info({table})")}
        for name, kind in columns.items():
            if name not in have:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: all or nothing."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")
                commits = _COMMITS.get()
                if commits is not None:
                    commits.append("commit")

    def one(self, sql: str, *args: Any) -> sqlite3.Row | None:
        with self._lock:
            return self._db.execute(sql, args).fetchone()

    def all(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # -- transactions -------------------------------------------------------

    def insert_transaction(self, row: dict) -> None:
        """Raises sqlite3.IntegrityError when the merchant used this tx_ref before."""
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        with self.transaction() as db:
            db.execute(f"INSERT INTO transactions ({cols}) VALUES ({marks})", tuple(row.values()))

    def transaction_by_ref(self, merchant_id: str, tx_ref: str) -> sqlite3.Row | None:
        return self.one("SELECT * FROM transactions WHERE merchant_id = ? AND tx_ref = ?", merchant_id, tx_ref)

    def transaction_by_reference(self, reference: str) -> sqlite3.Row | None:
        return self.one("SELECT * FROM transactions WHERE reference = ?", reference)

    def set_transaction_status(
        self,
        reference: str,
        status: str,
        *,
        only_if: tuple[str, ...] | None = None,
        threeds_pending: int = 0,
    ) -> bool:
        """Change a transaction's state; with ``only_if``, only from those states."""
        with self.transaction() as db:
            sql = "UPDATE transactions SET status = ?, threeds_pending = ?, updated_at = ? WHERE reference = ?"
            args: list[Any] = [status, threeds_pending, now_iso(), reference]
            if only_if:
                sql += f" AND status IN ({', '.join('?' for _ in only_if)})"
                args += list(only_if)
            return db.execute(sql, args).rowcount == 1

    # -- balances -----------------------------------------------------------

    def balance(self, db: sqlite3.Connection, merchant_id: str, mode: str, currency: str, opening: Decimal) -> Decimal:
        row = db.execute(
            "SELECT amount FROM balances WHERE merchant_id = ? AND mode = ? AND currency = ?",
            (merchant_id, mode, currency),
        ).fetchone()
        return Decimal(row["amount"]) if row else opening

    def set_balance(self, db: sqlite3.Connection, merchant_id: str, mode: str, currency: str, amount: Decimal) -> None:
        db.execute(
            "INSERT INTO balances (merchant_id, mode, currency, amount) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (merchant_id, mode, currency) DO UPDATE SET amount = excluded.amount",
            (merchant_id, mode, currency, str(amount)),
        )

    # -- cards --------------------------------------------------------------

    def card(self, card_hash: str) -> sqlite3.Row | None:
        return self.one("SELECT * FROM cards WHERE card_hash = ?", card_hash)

    def cards_of(self, merchant_id: str, mode: str | None) -> list[sqlite3.Row]:
        """The merchant's cards in ``mode`` (None: in either), deleted ones left out."""
        if mode is None:
            return self.all(
                "SELECT * FROM cards WHERE merchant_id = ? AND deleted_at IS NULL ORDER BY created_at, id", merchant_id
            )
        return self.all(
            "SELECT * FROM cards WHERE merchant_id = ? AND mode = ? AND deleted_at IS NULL ORDER BY created_at, id",
            merchant_id,
            mode,
        )

    def card_transactions(self, card_hash: str) -> list[sqlite3.Row]:
        return self.all("SELECT * FROM card_transactions WHERE card_hash = ? ORDER BY id", card_hash)

    @staticmethod
    def add_card_transaction(
        db: sqlite3.Connection, card_hash: str, type_: str, amount: Decimal, description: str, status: str = "success"
    ) -> None:
        db.execute(
            "INSERT INTO card_transactions (card_hash, type, amount, description, status, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (card_hash, type_, f"{amount:.2f}", description, status, now_iso()),
        )

    # -- the merchant's webhook URL -----------------------------------------

    def webhook_url(self, merchant_id: str) -> str | None:
        row = self.one("SELECT url FROM webhooks WHERE merchant_id = ?", merchant_id)
        return row["url"] if row else None

    def set_webhook_url(self, merchant_id: str, url: str | None) -> None:
        """Set the merchant's webhook URL, or (None) remove it."""
        with self.transaction() as db:
            if url is None:
                db.execute("DELETE FROM webhooks WHERE merchant_id = ?", (merchant_id,))
            else:
                db.execute(
                    "INSERT INTO webhooks (merchant_id, url, updated_at) VALUES (?, ?, ?) "
                    "ON CONFLICT (merchant_id) DO UPDATE SET url = excluded.url, "
                    "updated_at = excluded.updated_at",
                    (merchant_id, url, now_iso()),
                )

    # -- a merchant's settings ---------------------------------------------

    def setting(self, merchant_id: str, name: str) -> Any:
        row = self.one("SELECT value FROM settings WHERE merchant_id = ? AND name = ?", merchant_id, name)
        return json.loads(row["value"]) if row else None

    def set_settings(self, merchant_id: str, values: dict[str, Any]) -> None:
        """Set each of ``values`` (a value None removes that setting: its default again)."""
        with self.transaction() as db:
            for name, value in values.items():
                if value is None:
                    db.execute("DELETE FROM settings WHERE merchant_id = ? AND name = ?", (merchant_id, name))
                else:
                    db.execute(
                        "INSERT INTO settings (merchant_id, name, value, updated_at) "
                        "VALUES (?, ?, ?, ?) ON CONFLICT (merchant_id, name) DO UPDATE SET "
                        "value = excluded.value, updated_at = excluded.updated_at",
                        (merchant_id, name, json.dumps(value), now_iso()),
                    )

    def clear_settings(self, merchant_id: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM settings WHERE merchant_id = ?", (merchant_id,))

    # -- notifications and e-mails -----------------------------------------

    def log_notification(
        self,
        merchant_id: str,
        mode: str,
        event: str,
        url: str,
        body: str,
        attempt: int,
        status_code: int | None,
        error: str | None,
    ) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO notifications (merchant_id, mode, event, url, body, attempt,"
                " status_code, error, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (merchant_id, mode, event, url, body, attempt, status_code, error, now_iso()),
            )

    def notifications(self, merchant_id: str, mode: str) -> list[dict]:
        rows = self.all(
            "SELECT * FROM notifications WHERE merchant_id = ? AND mode = ? ORDER BY id",
            merchant_id,
            mode,
        )
        return [
            {
                "id": r["id"],
                "event": r["event"],
                "url": r["url"],
                "body": json.loads(r["body"]),
                "attempt": r["attempt"],
                "status_code": r["status_code"],
                "error": r["error"],
                "created_at": r["created_at"],
            }
            for r in rows
        ]

    def log_email(self, merchant_id: str, mode: str, recipient: str, subject: str, file: str) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO emails (merchant_id, mode, recipient, subject, file, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (merchant_id, mode, recipient, subject, file, now_iso()),
            )

    def emails(self, merchant_id: str, mode: str) -> list[sqlite3.Row]:
        return self.all(
            "SELECT * FROM emails WHERE merchant_id = ? AND mode = ? ORDER BY id",
            merchant_id,
            mode,
        )
