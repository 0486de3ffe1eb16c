"""What the ledger raises, whichever its backend."""


class LedgerError(Exception):
    """The ledger could not do what was asked (its message says why; nothing half-done)."""


class LedgerClosed(LedgerError):
    pass


__all__ = ["LedgerClosed", "LedgerError"]
