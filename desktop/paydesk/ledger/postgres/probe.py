""""Test connection" for Settings → Shared ledger…: one connection, and what it found, in
words for the field they concern (the address, or the password). Blocking: run it on a
worker thread. The password never appears in what it says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .engine import CONNECTION
from .schema import KNOWN

ADDRESS, PASSWORD = "address", "password"


@dataclass(frozen=True)
class Probe:
    works: bool
    message: str
    field: str  # ADDRESS or PASSWORD: where the message is said
    # whether the server answered (and refused, or let in): False when nothing answered, the
    # name was not found or the connection was cut, which may pass by itself
    reached: bool = True


# what libpq says (lower case), and what a shop's administrator is told: first match wins
_SAID = (
    ("password authentication failed", PASSWORD,
     "The server refused this password for {user}"),
    ("no password supplied", PASSWORD, "The server asks for {user}'s password: enter it"),
    ("fe_sendauth", PASSWORD, "The server asks for {user}'s password: enter it"),
    ("does not exist", ADDRESS, "The server says: {what}"),
    ("no pg_hba.conf entry", ADDRESS,
     "The server does not let this computer in ({what}): its administrator adds a line for "
     "the shop's network to pg_hba.conf (docs/SHARED_LEDGER.md)"),
    ("server does not support ssl", ADDRESS,
     "The server does not offer TLS: its administrator turns ssl on (docs/SHARED_LEDGER.md)"),
    ("certificate verify failed", ADDRESS,
     "The server's certificate could not be checked against the certificate authority "
     "named by sslrootcert (or this computer's)"),
    ("does not match host name", ADDRESS,
     "The server's certificate is for another name than the host in the address"),
    ("could not translate host name", ADDRESS, "No computer is known by the name {host}"),
    ("name or service not known", ADDRESS, "No computer is known by the name {host}"),
    ("connection refused", ADDRESS,
     "Nothing answers at {where}: is PostgreSQL running there, and listening on the network?"),
    ("timeout expired", ADDRESS,
     "{where} did not answer within 5 seconds (a firewall, or the wrong address?)"),
    ("no route to host", ADDRESS, "{where} cannot be reached from this computer"),
    ("network is unreachable", ADDRESS, "{where} cannot be reached from this computer"),
)


# what says that the server was not reached (rather than that it refused)
_NOT_REACHED = ("could not translate host name", "name or service not known",
                "temporary failure in name resolution", "connection refused",
                "timeout expired", "no route to host", "network is unreachable",
                "the database system is starting up", "the database system is shutting down",
                "server closed the connection unexpectedly")


def _first_line(text: str) -> str:
    """libpq's message without its 'connection to server at ... failed:' preamble."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    if "failed:" in line:
        line = line.rsplit("failed:", 1)[1]
    return line.replace("FATAL:", "").strip()


def explain(text: str, params: dict[str, Any]) -> Probe:
    """What went wrong, from psycopg's message (already cleaned of the password)."""
    host = str(params.get("host") or params.get("hostaddr") or "the local socket")
    where = f"{host}:{params.get('port') or 5432}"
    words = {"user": params.get("user") or "this user", "host": host, "where": where,
             "what": _first_line(text)}
    lowered = text.lower()
    reached = not any(needle in lowered for needle in _NOT_REACHED)
    for needle, field, message in _SAID:
        if needle in lowered:
            return Probe(False, message.format(**words), field, reached)
    return Probe(False, f"The ledger could not be reached: {words['what'] or 'no reason given'}",
                 ADDRESS, False)


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
        return explain(clean(str(exc)), params)
    release = f"PostgreSQL {server // 10000}.{server % 10000}"
    if version > KNOWN:
        return Probe(False, f"Connected to {release}, but this shop's ledger was upgraded by a "
                            "newer PayDesk: update PayDesk on this computer", ADDRESS)
    if version == 0:
        return Probe(True, f"Connected to {release}. The ledger is empty: PayDesk sets it up "
                           "when it first starts on it", ADDRESS)
    return Probe(True, f"Connected to {release}: PayDesk's ledger is there", ADDRESS)
