"""The links ledger on each backend, for tests that prove one rule on both: SQLite in a file
(the single desk's default) and PostgreSQL (a shop's shared ledger, a fresh database per
test from the ``pg_url`` fixture). Also the few things a test does below the ledger's
interface, said once per backend."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from paydesk.ledger import Ledger, SqliteLedger
from paydesk.ledger.batch import BatchBook
from paydesk.ledger.counter import CounterBook
from paydesk.ledger.inbox import Inbox
from paydesk.ledger.staff import StaffBook

BACKENDS = ["sqlite", "postgresql"]


def shared_ledger(url: str, desk: str = "desk-a") -> Ledger:
    """A PostgresLedger on its own engine: one desk of a shop."""
    from paydesk.ledger.postgres.engine import PgEngine
    from paydesk.ledger.postgres.links import PostgresLedger

    return PostgresLedger(PgEngine(url, desk=desk))


def make_ledger(request: pytest.FixtureRequest, path: Path, desk: str = "desk-a") -> Ledger:
    """The ledger of the test's backend (``request.param``): ``path`` for SQLite's file; a
    PostgreSQL database of the test's own (asked for only then: a run without PostgreSQL
    still runs every SQLite case)."""
    if request.param == "sqlite":
        return SqliteLedger(path)
    return shared_ledger(request.getfixturevalue("pg_url"), desk)


def same_store(ledger: Ledger, desk: str = "desk-b") -> Ledger:
    """Another handle on the same store: a second window on the file, or a second desk
    (another engine, another desk id) on the same database."""
    if isinstance(ledger, SqliteLedger):
        return SqliteLedger(ledger.path)
    from psycopg.conninfo import make_conninfo

    return shared_ledger(make_conninfo(**ledger._engine.conninfo()), desk)


def inbox_beside(ledger: Ledger) -> Inbox:
    """The notification inbox on the same store as ``ledger`` (its file, or its engine)."""
    if isinstance(ledger, SqliteLedger):
        from paydesk.ledger.sqlite.inbox import SqliteInbox

        return SqliteInbox.beside(ledger)
    from paydesk.ledger.postgres.inbox import PostgresInbox

    return PostgresInbox(ledger._engine)


async def set_paid_at(ledger: Ledger, tx_ref: str, when: datetime) -> None:
    """Make a record look paid at ``when`` (long ago), below the ledger's interface."""
    if isinstance(ledger, SqliteLedger):
        from paydesk.ledger.records import stamp

        await ledger._engine.write(
            lambda db: db.execute("UPDATE links SET updated_at = ? WHERE tx_ref = ?", (stamp(when), tx_ref))
        )
    else:
        await ledger._engine.write(
            lambda conn: conn.execute("UPDATE links SET updated_at = %s WHERE tx_ref = %s", (when, tx_ref))
        )


def book_beside(ledger: Ledger) -> CounterBook:
    """The counters' book on the same store as ``ledger`` (its file, or its engine)."""
    if isinstance(ledger, SqliteLedger):
        from paydesk.ledger.sqlite.counter import SqliteCounterBook

        return SqliteCounterBook.beside(ledger)
    from paydesk.ledger.postgres.counter import PostgresCounterBook

    return PostgresCounterBook(ledger._engine)


async def below(ledger: Ledger, sql: str) -> None:
    """Run ``sql`` (no parameters) on the ledger's own writer, below its interface."""
    if isinstance(ledger, SqliteLedger):
        await ledger._engine.write(lambda db: db.execute(sql))
    else:
        await ledger._engine.write(lambda conn: conn.execute(sql))


def batches_beside(ledger: Ledger) -> BatchBook:
    """The batches' book on the same store as ``ledger`` (its file, or its engine)."""
    if isinstance(ledger, SqliteLedger):
        from paydesk.ledger.sqlite.batch import SqliteBatchBook

        return SqliteBatchBook.beside(ledger)
    from paydesk.ledger.postgres.batch import PostgresBatchBook

    return PostgresBatchBook(ledger._engine)


def staff_beside(ledger: Ledger) -> StaffBook:
    """The staff book on the same store as ``ledger`` (its file, or its engine)."""
    if isinstance(ledger, SqliteLedger):
        from paydesk.ledger.sqlite.staff import SqliteStaffBook

        return SqliteStaffBook.beside(ledger)
    from paydesk.ledger.postgres.staff import PostgresStaffBook

    return PostgresStaffBook(ledger._engine)
