"""Each book of the ledger written once, over a ``Dialect`` (``ledger/dialect.py``): the
SQLite file's and the shared PostgreSQL ledger's classes (``sqlite/``, ``postgres/``) are
these with their dialect and engine."""
