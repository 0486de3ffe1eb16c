"""Helpers for the card wallet's tests: a profile on a sandbox, its control API, and what
the service itself holds (read from the sandbox's own database, as an auditor would)."""

from __future__ import annotations

import sqlite3
from decimal import Decimal

from paydesk.service.models import CardTransaction
from tests.profiles import SECRET_KEYS, use_profile


def add_profile(loop, session, sb, merchant=0, name="Shop", **over):
    """The cards tests' profile: tests/profiles.py's, with cards and both secret keys."""
    return use_profile(loop, session, sb, merchant=merchant, name=name, txref_prefix="SHOP",
                       has_cards=True, keys=SECRET_KEYS, **over)


def _db(sb):
    return sqlite3.connect(sb.server.data_dir / "sandbox.sqlite3")


def balance_of(sb, card_hash) -> Decimal:
    with _db(sb) as db:
        return Decimal(db.execute("SELECT balance FROM cards WHERE card_hash = ?",
                                  (card_hash,)).fetchone()[0])


def service_card_transactions(sb, card_hash) -> list[CardTransaction]:
    with _db(sb) as db:
        db.row_factory = sqlite3.Row
        rows = db.execute("SELECT * FROM card_transactions WHERE card_hash = ? ORDER BY rowid",
                          (card_hash,)).fetchall()
    return [CardTransaction.parse(dict(r), 200) for r in rows]

