""" "Test connection" for Settings → Shared ledger…: one connection, and what it found, in
words for the field they concern (the address, or the password). Blocking: run it on a
worker thread. The password never appears in what it says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .engine import CONNECTION
from .refusal import ADDRESS, PASSWORD, UNREACHABLE, classify
from .schema import KNOWN

__all__ = ["ADDRESS", "PASSWORD", "Probe", "explain", "probe"]


@dataclass(frozen=True)
class Probe:
    works: bool
    message: str
    field: str  # ADDRESS or PASSWORD: where the message is said
    # whether the server answered (and refused, or let in): False when nothing answered, the
    # name was not found or the connection was cut, which may pass by itself
    reached: bool = True


def explain(text: str, params: dict[str, Any], sqlstate: str | None = None) -> Probe:
    """What went wrong, from psycopg's message (already cleaned of the password): the same
    sentence the start dialog says (``refusal.py``), and whether the server was reached."""
    refusal = classify(text, params, sqlstate)
    return Probe(False, refusal.message, refusal.field, refusal.kind != UNREACHABLE)


def probe(url: str, password: str | None) -> Probe:
    """Connect once to ``url`` with ``password`` and say what was found."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        params: dict[str, Any] = {**CONNECTION, **conninfo_to_dict(url)}
    except psycopg.Error:
        return Probe(False, "This address is not one PostgreSQL understands", ADDRESS)
    if password:
        params["password"] = password

    def clean(text: str) -> str:
        return text.replace(password, "***") if password else text

    try:
        with psycopg.connect(**params, autocommit=True) as conn:
            server = conn.info.server_version
            row = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
            version = 0
            if row is not None and row[0]:
                found = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
                version = int(found[0] or 0) if found is not None else 0
    except psycopg.Error as exc:
        return explain(clean(str(exc)), params, exc.sqlstate)
    release = f"PostgreSQL {server // 10000}.{server % 10000}"
    if version > KNOWN:
        return Probe(
            False,
            f"Connected to {release}, but this shop's ledger was upgraded by a "
            "newer PayDesk: update PayDesk on this computer",
            ADDRESS,
        )
    if version == 0:
        return Probe(
            True, f"Connected to {release}. The ledger is empty: PayDesk sets it up when it first starts on it", ADDRESS
        )
    return Probe(True, f"Connected to {release}: PayDesk's ledger is there", ADDRESS)
