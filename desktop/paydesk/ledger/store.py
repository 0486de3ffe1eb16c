"""The ledger: links and lookups per profile and mode, safe for two PayDesk windows at once."""

from __future__ import annotations

import json
import sqlite3
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..service.models import PaymentLink, PaymentRequest, Transaction
from .schema import migrate

# States a record can be in: the service's own, plus PayDesk's "creating" (written before
# the call) and "rejected" (the service refused to create it; nothing exists there).
CREATING, PENDING, REJECTED = "creating", "pending", "rejected"
FINAL = ("success", "failed", "cancelled", "refunded", "reversed", REJECTED)


class LedgerBusy(RuntimeError):
    """Another PayDesk holds the ledger for longer than the wait allows."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class LinkRecord:
    id: int
    profile_id: str
    mode: str
    tx_ref: str
    amount: Decimal
    currency: str
    email: str
    first_name: str
    last_name: str
    state: str
    created_at: datetime
    updated_at: datetime
    checkout_url: str | None = None
    reference: str | None = None
    customization: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    callback_url: str | None = None
    return_url: str | None = None
    origin: str = "link"
    error: str | None = None
    checked_at: datetime | None = None

    @property
    def final(self) -> bool:
        return self.state in FINAL

    @property
    def title(self) -> str:
        return self.customization.get("title") or ""

    def request(self) -> PaymentRequest:
        """The intent this record holds, to send (again) with the same tx_ref."""
        c = self.customization
        return PaymentRequest(amount=self.amount, currency=self.currency, email=self.email,
                              first_name=self.first_name, last_name=self.last_name,
                              tx_ref=self.tx_ref, callback_url=self.callback_url,
                              return_url=self.return_url, title=c.get("title"),
                              description=c.get("description"), logo=c.get("logo"),
                              meta=dict(self.meta))

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> "LinkRecord":
        def when(value):
            return datetime.fromisoformat(value) if value else None

        return cls(id=row["id"], profile_id=row["profile_id"], mode=row["mode"],
                   tx_ref=row["tx_ref"], amount=Decimal(row["amount"]), currency=row["currency"],
                   email=row["email"], first_name=row["first_name"], last_name=row["last_name"],
                   state=row["state"], created_at=when(row["created_at"]),
                   updated_at=when(row["updated_at"]) or when(row["created_at"]),
                   checkout_url=row["checkout_url"], reference=row["reference"],
                   customization=json.loads(row["customization"] or "{}"),
                   meta=json.loads(row["meta"] or "{}"), callback_url=row["callback_url"],
                   return_url=row["return_url"], origin=row["origin"], error=row["error"],
                   checked_at=when(row["checked_at"]))


class Ledger:
    def __init__(self, path: Path, *, busy_timeout_ms: int = 5000):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                                   timeout=busy_timeout_ms / 1000)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._db.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = NORMAL")
        with self._lock:
            self.version = migrate(self._db)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, taken at once (another window waits up to the busy timeout)."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise LedgerBusy(str(exc)) from None
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _write(self, sql: str, args: Iterable[Any]) -> sqlite3.Cursor:
        with self._transaction() as db:
            return db.execute(sql, tuple(args))

    def _rows(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, tuple(args)).fetchall()

    # -- links --------------------------------------------------------------

    def begin_link(self, profile_id: str, mode: str, request: PaymentRequest) -> LinkRecord:
        """Write the intent before the call: state "creating"."""
        body = request.to_json()
        stamp = _now()
        self._write(
            "INSERT INTO links (profile_id, mode, tx_ref, amount, currency, email, first_name,"
            " last_name, state, created_at, updated_at, customization, meta, callback_url,"
            " return_url, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'link')",
            (profile_id, mode, request.tx_ref, str(request.amount), request.currency,
             request.email, request.first_name, request.last_name, CREATING, stamp, stamp,
             json.dumps(body.get("customization", {})), json.dumps(body.get("meta", {})),
             request.callback_url, request.return_url))
        return self.get(profile_id, request.tx_ref)

    def complete_link(self, profile_id: str, link: PaymentLink) -> LinkRecord:
        reference = link.checkout_url.rstrip("/").rsplit("/", 1)[-1] if link.checkout_url else None
        self._write("UPDATE links SET state = CASE WHEN state = ? THEN ? ELSE state END,"
                    " checkout_url = COALESCE(?, checkout_url),"
                    " reference = COALESCE(reference, ?), error = NULL, updated_at = ?"
                    " WHERE profile_id = ? AND tx_ref = ?",
                    (CREATING, PENDING, link.checkout_url, reference, _now(), profile_id,
                     link.tx_ref))
        return self.get(profile_id, link.tx_ref)

    def reject_link(self, profile_id: str, tx_ref: str, reason: str) -> LinkRecord:
        """The service refused it: nothing exists there; keep the record and say why."""
        self._write("UPDATE links SET state = ?, error = ?, updated_at = ?"
                    " WHERE profile_id = ? AND tx_ref = ? AND state = ?",
                    (REJECTED, reason, _now(), profile_id, tx_ref, CREATING))
        return self.get(profile_id, tx_ref)

    def note_error(self, profile_id: str, tx_ref: str, reason: str) -> LinkRecord:
        """A create whose outcome is unknown stays "creating", with what happened."""
        self._write("UPDATE links SET error = ?, updated_at = ? WHERE profile_id = ? AND tx_ref = ?",
                    (reason, _now(), profile_id, tx_ref))
        return self.get(profile_id, tx_ref)

    def record_lookup(self, profile_id: str, mode: str, tx: Transaction) -> tuple[LinkRecord, bool]:
        """Store what a validate call said; returns the record and whether its state changed."""
        before = self.get(profile_id, tx.tx_ref)
        stamp = _now()
        raw = json.dumps(tx.raw, default=str) if tx.raw else None
        if before is None:
            self._write(
                "INSERT INTO links (profile_id, mode, tx_ref, amount, currency, email, first_name,"
                " last_name, state, created_at, updated_at, checked_at, reference, customization,"
                " meta, origin, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'lookup', ?)",
                (profile_id, mode, tx.tx_ref, str(tx.amount or 0), tx.currency or "",
                 tx.email or "", tx.first_name or "", tx.last_name or "", tx.status_raw,
                 (tx.created_at.isoformat() if tx.created_at else stamp), stamp, stamp,
                 tx.reference, json.dumps(tx.customization), json.dumps(tx.meta), raw))
            return self.get(profile_id, tx.tx_ref), True
        state = tx.status_raw.strip().lower() if tx.status_raw else before.state
        if before.state == CREATING:
            state = state or PENDING
        self._write("UPDATE links SET state = ?, checked_at = ?, updated_at = ?,"
                    " reference = COALESCE(?, reference), raw = COALESCE(?, raw)"
                    " WHERE profile_id = ? AND tx_ref = ?",
                    (state, stamp, stamp, tx.reference, raw, profile_id, tx.tx_ref))
        after = self.get(profile_id, tx.tx_ref)
        return after, after.state != before.state

    def touch(self, profile_id: str, tx_ref: str) -> None:
        stamp = _now()
        self._write("UPDATE links SET checked_at = ? WHERE profile_id = ? AND tx_ref = ?",
                    (stamp, profile_id, tx_ref))

    # -- reading ------------------------------------------------------------

    def get(self, profile_id: str, tx_ref: str) -> LinkRecord | None:
        rows = self._rows("SELECT * FROM links WHERE profile_id = ? AND tx_ref = ?",
                          (profile_id, tx_ref))
        return LinkRecord.from_row(rows[0]) if rows else None

    def recent(self, profile_id: str, mode: str, limit: int = 50) -> list[LinkRecord]:
        rows = self._rows("SELECT * FROM links WHERE profile_id = ? AND mode = ? AND origin = 'link'"
                          " ORDER BY created_at DESC, id DESC LIMIT ?", (profile_id, mode, limit))
        return [LinkRecord.from_row(r) for r in rows]

    def unsettled(self, profile_id: str | None = None) -> list[LinkRecord]:
        """Creates that may or may not have reached the service: settle them on start."""
        sql = "SELECT * FROM links WHERE state = ?"
        args: list[Any] = [CREATING]
        if profile_id:
            sql += " AND profile_id = ?"
            args.append(profile_id)
        return [LinkRecord.from_row(r) for r in self._rows(sql + " ORDER BY id", args)]

    def open_links(self, profile_id: str, mode: str, limit: int = 500) -> list[LinkRecord]:
        marks = ", ".join("?" for _ in FINAL)
        rows = self._rows(f"SELECT * FROM links WHERE profile_id = ? AND mode = ? AND state NOT IN"
                          f" ({marks}, ?) ORDER BY created_at DESC LIMIT ?",
                          (profile_id, mode, *FINAL, CREATING, limit))
        return [LinkRecord.from_row(r) for r in rows]

    def search(self, profile_id: str, mode: str, *, state: str | None = None,
               text: str | None = None, limit: int = 200, offset: int = 0) -> list[LinkRecord]:
        sql = "SELECT * FROM links WHERE profile_id = ? AND mode = ?"
        args: list[Any] = [profile_id, mode]
        if state:
            sql += " AND state = ?"
            args.append(state)
        if text:
            sql += " AND (tx_ref LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\')"
            pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            args += [pattern, pattern]
        sql += " ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?"
        args += [limit, offset]
        return [LinkRecord.from_row(r) for r in self._rows(sql, args)]

    def count(self, profile_id: str, mode: str) -> int:
        return self._rows("SELECT COUNT(*) AS n FROM links WHERE profile_id = ? AND mode = ?",
                          (profile_id, mode))[0]["n"]

    # -- tx_ref sequences ------------------------------------------------------

    def next_sequence(self, day: date) -> int:
        """The next per-day number for this installation's references (both windows share it)."""
        with self._transaction() as db:
            db.execute("INSERT INTO sequences (day, value) VALUES (?, 1) ON CONFLICT (day)"
                       " DO UPDATE SET value = value + 1", (day.isoformat(),))
            return db.execute("SELECT value FROM sequences WHERE day = ?",
                              (day.isoformat(),)).fetchone()[0]
