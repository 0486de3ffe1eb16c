"""Why a connection to the shared ledger failed, told apart, in one plain sentence each.

``classify(text, sqlstate, params)`` reads what psycopg said (its SQLSTATE when the server
sent one; else libpq's message, as a failed connection carries no SQLSTATE) and returns a
``Refusal``: its ``kind``, the sentence a shop's administrator or a desk's person reads, and
the field it concerns (the address, or the password). The engine raises it (a
``LedgerRefused``, or ``LedgerUnreachable`` when nothing answers), "Test connection" says it
beside its field, the start dialog asks for the password right there. ``text`` must already
be cleaned of the password; the sentences never hold it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...i18n import N_, _
from ..errors import LedgerError

# what went wrong
UNREACHABLE = "unreachable"  # nothing answers there, or not in time, or not now
NO_PASSWORD = "no password"  # the server asks for a password and none was given
WRONG_PASSWORD = "wrong password"  # the server refused the password (or the role)
NO_DATABASE = "no database"  # no such database on that server
TLS_SERVER = "tls server"  # the server lets this computer in only over TLS
TLS_ADDRESS = "tls address"  # the address asks for TLS, the server offers none
NOT_LET_IN = "not let in"  # pg_hba.conf has no line for this computer, even over TLS
CERTIFICATE = "certificate"  # the server's certificate could not be checked
UNKNOWN_HOST = "unknown host"  # no computer is known by that name
REFUSED = "refused"  # another refusal of the server, in its own words
PASSWORD_KINDS = (NO_PASSWORD, WRONG_PASSWORD)
ADDRESS, PASSWORD = "address", "password"  # the field a sentence is said beside

# a server that answered but will not take this desk now, or for a while: not a refusal
_TRANSIENT = ("starting up", "shutting down", "recovery", "too many", "connection slots")

# (kind, what libpq or the server says, lower case: every part): the first match wins
_SAID: tuple[tuple[str, tuple[str, ...]], ...] = (
    (NO_PASSWORD, ("no password supplied",)),
    (NO_PASSWORD, ("fe_sendauth",)),
    (WRONG_PASSWORD, ("password authentication failed",)),
    (TLS_SERVER, ("no pg_hba.conf entry", "no encryption")),
    (NOT_LET_IN, ("no pg_hba.conf entry",)),
    (NOT_LET_IN, ("pg_hba.conf rejects",)),
    (NO_DATABASE, ('database "', "does not exist")),
    (TLS_ADDRESS, ("does not support ssl",)),
    (CERTIFICATE, ("certificate verify failed",)),
    (CERTIFICATE, ("does not match host name",)),
    (CERTIFICATE, ("root certificate file",)),
    (UNKNOWN_HOST, ("could not translate host name",)),
    (UNKNOWN_HOST, ("failed to resolve host",)),
    (UNKNOWN_HOST, ("name or service not known",)),
)
# SQLSTATEs a server sends (a connection made, then refused later on)
_STATES = {"28P01": WRONG_PASSWORD, "3D000": NO_DATABASE, "28000": NOT_LET_IN}

_SENTENCES = {
    NO_PASSWORD: N_("The shared ledger asks for the password of {user}: enter it"),
    WRONG_PASSWORD: N_("The shared ledger refused this password for {user}: enter the right one"),
    NO_DATABASE: N_('The server at {where} has no database "{database}": check the end of the address'),
    TLS_SERVER: N_("The server at {where} lets this computer in only over TLS: add ?sslmode=require to the address"),
    TLS_ADDRESS: N_(
        "The address asks for TLS but the server at {where} does not offer it: its "
        "administrator turns ssl on (docs/SHARED_LEDGER.md)"
    ),
    NOT_LET_IN: N_(
        "The server at {where} does not let this computer in: its administrator adds a "
        "line for the shop's network to pg_hba.conf (docs/SHARED_LEDGER.md)"
    ),
    CERTIFICATE: N_(
        "The certificate of the server at {where} could not be checked against the "
        "certificate authority named by sslrootcert (or this computer's): {what}"
    ),
    UNKNOWN_HOST: N_("No computer is known by the name {host}: check the address"),
    REFUSED: N_("The shared ledger refused this desk: {what}"),
}
# nothing answers: what libpq says (lower case), and the sentence; the first match wins
_UNREACHABLE = (
    (
        "connection refused",
        N_("Nothing answers at {where}: is PostgreSQL running there, and listening on the network?"),
    ),
    ("timeout expired", N_("{where} did not answer within 5 seconds (a firewall, or the wrong address?)")),
    ("no route to host", N_("{where} cannot be reached from this computer")),
    ("network is unreachable", N_("{where} cannot be reached from this computer")),
    ("", N_("The shared ledger at {where} could not be reached: {what}")),
)


@dataclass(frozen=True)
class Refusal:
    kind: str
    message: str

    @property
    def field(self) -> str:
        """Where the sentence is said: beside the password, or beside the address."""
        return PASSWORD if self.kind in PASSWORD_KINDS else ADDRESS

    @property
    def asks_password(self) -> bool:
        return self.kind in PASSWORD_KINDS


def first_line(text: str) -> str:
    """libpq's message without its 'connection to server at ... failed:' preamble."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    if "failed:" in line:
        line = line.rsplit("failed:", 1)[1]
    return line.replace("FATAL:", "").strip()


def where(params: Mapping[str, Any]) -> tuple[str, str]:
    """The host and ``host:port`` a connection's parameters name (for sentences)."""
    host = str(params.get("host") or params.get("hostaddr") or _("the local socket"))
    return host, f"{host}:{params.get('port') or 5432}"


def kind_of(text: str, sqlstate: str | None = None) -> str:
    """What went wrong, from a SQLSTATE when there is one, else from the message."""
    if sqlstate in _STATES:
        if sqlstate == "28000" and "no encryption" in text.lower():
            return TLS_SERVER
        return _STATES[sqlstate]
    lowered = text.lower()
    for kind, needles in _SAID:
        if all(needle in lowered for needle in needles):
            return kind
    if (
        (sqlstate is None or not sqlstate.startswith("08"))
        and "FATAL:" in text
        and not any(word in lowered for word in _TRANSIENT)
    ):
        return REFUSED  # the server answered, and said no, in words of its own
    return UNREACHABLE


def classify(text: str, params: Mapping[str, Any], sqlstate: str | None = None) -> Refusal:
    """The refusal ``text`` (psycopg's message, cleaned of the password) says, for a
    connection with ``params`` (psycopg's keyword arguments: user, host, port, dbname)."""
    kind = kind_of(text, sqlstate)
    host, at = where(params)
    words = {
        "user": params.get("user") or _("this user"),
        "host": host,
        "where": at,
        "database": params.get("dbname") or "",
        "what": first_line(text) or _("no reason given"),
    }
    if kind == UNREACHABLE:
        lowered = text.lower()
        sentence = next(said for needle, said in _UNREACHABLE if needle in lowered)
    else:
        sentence = _SENTENCES[kind]
    return Refusal(kind, _(sentence).format(**words))  # in the staff's language


class LedgerRefused(LedgerError):
    """The server answered and would not take this desk (the engine raises it): ``kind``
    says why, the text says it in one sentence, never with the password."""

    def __init__(self, refusal: Refusal):
        self.refusal = refusal
        super().__init__(refusal.message)

    @property
    def kind(self) -> str:
        return self.refusal.kind

    @property
    def asks_password(self) -> bool:
        return self.refusal.asks_password
