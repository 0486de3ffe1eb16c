"""The shop's desks, by name: the shared ledger's migration 7 and the claim of a desk's name.

``desks`` has one row per installation (its id, its computer's name, the name it goes by,
when it last opened the ledger); no two desks go by one name (in any case). ``claim_name``
runs in one transaction, the table locked against another desk's claim: a desk named by
its person gets that name unless another desk has it (``NameTaken``); else the desk keeps
the default name it went by (a desk's name does not change under it at a restart), or takes
the first of its default names no other desk has (``config/desk_name.py``). Migration 6 is
the refused requests' (``refused_schema.py``, in another change): versions need not follow
one another without a gap (``schema.migrate`` runs each the database lacks, in order).
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from psycopg import Connection

from ...config.desk_name import default_names
from ..errors import LedgerError

VERSION = 7
MIGRATION = (
    VERSION,
    """
CREATE TABLE desks (
    installation text COLLATE "C" PRIMARY KEY,
    computer text NOT NULL,
    name text NOT NULL,
    seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX desks_by_name ON desks (lower(name));
""",
)


class NameTaken(LedgerError):
    """Another desk of the shop goes by this name."""

    def __init__(self, name: str):
        self.name = name
        super().__init__(f"Another desk of the shop is called {name}: choose another name")


def claim_name(conn: Connection[Any], installation: str, computer: str, wanted: str | None) -> str:
    """The name ``installation`` goes by from now on (in a write's transaction): ``wanted``
    (NameTaken when another desk has it), else its default name; its row is kept up to date."""
    conn.execute("LOCK TABLE desks IN SHARE ROW EXCLUSIVE MODE")
    taken = {
        row["name"].lower(): row["name"]
        for row in conn.execute("SELECT name FROM desks WHERE installation <> %s", (installation,)).fetchall()
    }
    if wanted:
        if wanted.lower() in taken:
            raise NameTaken(taken[wanted.lower()])
        name = wanted
    else:
        row = conn.execute("SELECT name FROM desks WHERE installation = %s", (installation,)).fetchone()
        names = default_names(computer, installation)
        defaults = [next(names), next(names)]
        if row is not None and row["name"] in defaults and row["name"].lower() not in taken:
            name = row["name"]
        else:
            name = next(n for n in chain(defaults, names) if n.lower() not in taken)
    conn.execute(
        "INSERT INTO desks (installation, computer, name) VALUES (%s, %s, %s)"
        " ON CONFLICT (installation) DO UPDATE SET computer = excluded.computer,"
        " name = excluded.name, seen_at = now()",
        (installation, computer, name),
    )
    return name
