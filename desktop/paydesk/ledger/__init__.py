"""PayDesk's own record of every link it creates and every transaction it looks up.

Qt-free and async: ``await ledger.…`` from anywhere on the event loop; SQLite runs on the
ledger's own threads. A link's record is written before the call that creates it, so
nothing is lost. ``Ledger`` is the interface; ``SqliteLedger`` the local file.
"""

from .errors import LedgerClosed, LedgerError
from .query import SORTS, Cursor, LinkQuery, Page
from .records import CREATING, FINAL, OPEN, PENDING, REJECTED, STATES, UNKNOWN, LinkRecord, is_final
from .repository import DuplicateReference, Fence, Ledger, StaleLease
from .sqlite import SqliteLedger
from .summary import CurrencyTotal, DaySummary

__all__ = [
    "CREATING",
    "FINAL",
    "OPEN",
    "PENDING",
    "REJECTED",
    "SORTS",
    "STATES",
    "UNKNOWN",
    "Cursor",
    "CurrencyTotal",
    "DaySummary",
    "DuplicateReference",
    "Fence",
    "Ledger",
    "LedgerClosed",
    "LedgerError",
    "LinkQuery",
    "StaleLease",
    "LinkRecord",
    "Page",
    "SqliteLedger",
    "is_final",
]
