"""The ledger in a desk's own SQLite file: ``engine`` (its threads), ``links``
(``SqliteLedger``) and each book with ``dialect``, side by side with ``ledger/postgres/``."""

from .engine import Engine
from .links import SqliteLedger

__all__ = ["Engine", "SqliteLedger"]
