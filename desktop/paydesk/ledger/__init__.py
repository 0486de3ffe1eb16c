"""PayDesk's own record of every link it creates and every transaction it looks up (SQLite).

Qt-free. A link's record is written before the call that creates it, so nothing is lost.
"""

from .store import LinkRecord, Ledger, LedgerBusy

__all__ = ["Ledger", "LinkRecord", "LedgerBusy"]
