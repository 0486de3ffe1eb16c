"""The shared ledger: the same ``Ledger`` and ``CardLedger`` on PostgreSQL, for every desk of
a shop (docs/SHARED_LEDGER.md; docs/ARCHITECTURE.md, "The shared ledger").

``engine`` runs sync psycopg 3 on worker threads; ``schema`` holds the numbered migrations;
``events`` the change log whose NOTIFY is every desk's doorbell.
"""

from .engine import LedgerUnreachable, PgEngine, SchemaTooNew
from .events import CHANNEL, emit
from .schema import KNOWN, MIGRATIONS, migrate

__all__ = ["CHANNEL", "KNOWN", "MIGRATIONS", "LedgerUnreachable", "PgEngine", "SchemaTooNew", "emit", "migrate"]
