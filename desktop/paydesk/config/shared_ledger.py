"""The shared ledger's address: what a shop administrator types, and its rules (Qt-free).

A shared ledger is named by a PostgreSQL URL, ``postgresql://user@host:port/database?...``.
The rules here decide what PayDesk accepts and keeps:

- ``split_password``: a password typed in the URL (``user:secret@host``, or a ``password=``
  parameter) is taken out; the URL kept in the settings file never holds one, and the
  password goes to the keyring (``password_entry`` names its entry).
- ``url_problem``: what is wrong with a URL, in words for the field it was typed in: the
  scheme, the database's name, and TLS: for any host but this computer (loopback, or a unix
  socket's folder) the URL must ask for ``sslmode=require`` or stronger (``verify-ca``,
  ``verify-full``), so neither the password nor the shop's records cross a network in the clear.
- ``choose``: which ledger a desk uses: ``--ledger``, else the saved setting, else its own.
- ``IN_ARGUMENTS`` / ``read_password``: ``paydesk`` refuses a password written into
  ``--ledger``'s address (a process's arguments are readable by every user of the computer,
  in ``ps`` and /proc/PID/cmdline, for as long as it runs); ``--ledger-password-stdin`` reads
  it from standard input instead, as ``docker login --password-stdin`` does.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TextIO
from urllib.parse import parse_qsl, unquote, urlencode

from ..i18n import N_, _

SCHEMES = ("postgresql", "postgres")
STRONG_SSLMODES = ("require", "verify-ca", "verify-full")
SSLMODES = ("disable", "allow", "prefer", *STRONG_SSLMODES)
DEFAULT_PORT = 5432
EXAMPLE = "postgresql://paydesk@db.shop.lan/paydesk?sslmode=verify-full"
IN_ARGUMENTS = N_(
    "leave the password out of the address (it would be readable in the list of "
    "processes): give it with --ledger-password-stdin, or type it when PayDesk "
    "asks for it"
)
# said where a ledger is chosen, translated there (``_(RESTART_NOTE)``)
RESTART_NOTE = N_("PayDesk uses it from its next start: close PayDesk and open it again.")


@dataclass(frozen=True)
class LedgerUrl:
    """A PostgreSQL URL taken apart (percent-decoded). ``hosts`` are the hosts it names
    (several for libpq's ``host1,host2``; a unix socket's folder starts with ``/``; none: the
    default socket), from the address and from ``host=`` / ``hostaddr=`` parameters."""

    scheme: str
    user: str
    password: str | None
    hosts: tuple[str, ...]
    ports: tuple[str, ...]
    database: str
    params: tuple[tuple[str, str], ...]

    def param(self, name: str) -> str | None:
        return next((v for k, v in self.params if k == name), None)

    @property
    def sslmode(self) -> str | None:
        return self.param("sslmode")

    @property
    def local(self) -> bool:
        """Whether every host it names is this computer (loopback, or a unix socket)."""
        return all(is_local_host(h) for h in self.hosts)

    @property
    def where(self) -> str:
        """Where it points, for messages: ``host:port/database`` (never a password)."""
        hosts = ",".join(self.hosts) or "the local socket"
        port = ",".join(self.ports) or str(DEFAULT_PORT)
        return f"{hosts}:{port}/{self.database}"


class UrlError(ValueError):
    """The text is not a PostgreSQL URL PayDesk can take apart (the message says why)."""


def _split_hosts(hostlist: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    hosts: list[str] = []
    ports: list[str] = []
    for item in hostlist.split(","):
        if not item:
            continue
        if item.startswith("["):  # [::1]:5432
            end = item.find("]")
            if end < 0:
                raise UrlError(_("The address {address} misses its closing ]").format(address=repr(item)))
            host, rest = item[1:end], item[end + 1 :]
            port = rest[1:] if rest.startswith(":") else ""
        else:
            host, _sep, port = item.partition(":")
        if port and not port.isdigit():
            raise UrlError(_("The port must be a number, not {port}").format(port=repr(port)))
        if host:
            hosts.append(unquote(host))
        if port:
            ports.append(port)
    return tuple(hosts), tuple(ports)


def parse(url: str) -> LedgerUrl:
    """Take ``url`` apart; UrlError when it is no ``postgresql://`` URL."""
    text = url.strip()
    scheme, sep, rest = text.partition("://")
    if not sep or scheme.lower() not in SCHEMES:
        raise UrlError(
            _("Enter the ledger's address starting with postgresql://, e.g. {example}").format(example=EXAMPLE)
        )
    rest, _sep, query = rest.partition("?")
    netloc, _sep, path = rest.partition("/")
    userinfo, at, hostlist = netloc.rpartition("@")
    if not at:
        userinfo, hostlist = "", netloc
    user, colon, password = userinfo.partition(":")
    hosts, ports = _split_hosts(hostlist)
    params = tuple(parse_qsl(query, keep_blank_values=True))
    for name in ("host", "hostaddr"):
        for key, value in params:
            if key == name and value:
                hosts += tuple(h for h in value.split(",") if h)
    return LedgerUrl(
        scheme=scheme.lower(),
        user=unquote(user),
        password=unquote(password) if colon else None,
        hosts=hosts,
        ports=ports,
        database=unquote(path) or dict(params).get("dbname", ""),
        params=params,
    )


def split_password(url: str) -> tuple[str, str | None]:
    """``url`` without its password, and the password (None when it held none). The rest of
    the URL is kept as typed."""
    text = url.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        return text, None
    rest, q, query = rest.partition("?")
    netloc, slash, path = rest.partition("/")
    password: str | None = None
    userinfo, at, hostlist = netloc.rpartition("@")
    if at:
        user, colon, typed = userinfo.partition(":")
        if colon:
            password = unquote(typed)
            netloc = f"{user}@{hostlist}"
    if q:
        params = parse_qsl(query, keep_blank_values=True)
        kept = [(k, v) for k, v in params if k != "password"]
        if len(kept) != len(params):
            password = next(v for k, v in params if k == "password")
            query = urlencode(kept)
    tail = f"?{query}" if q and query else ""
    return f"{scheme}://{netloc}{slash}{path}{tail}", password or None


def read_password(stream: TextIO) -> str | None:
    """The password on the first line of ``stream`` (standard input), without the spaces and
    line end around it (as the keyring keeps it); None when there is none."""
    return stream.readline().strip() or None


def is_local_host(host: str) -> bool:
    """This computer: a unix socket's folder, ``localhost``, or a loopback address."""
    if host.startswith("/") or host.startswith("@"):  # a socket's folder; Linux's abstract one
        return True
    name = host.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def url_problem(url: str) -> str | None:
    """What is wrong with ``url`` as a shared ledger's address (None: nothing)."""
    try:
        parsed = parse(url)
    except UrlError as error:
        return str(error)
    if not parsed.database:
        return _("Name the database at the end of the address, e.g. {example}").format(example=EXAMPLE)
    mode = parsed.sslmode
    if mode is not None and mode not in SSLMODES:
        return _("sslmode={mode} is not a mode PostgreSQL knows: use require or verify-full").format(mode=mode)
    if not parsed.local and mode not in STRONG_SSLMODES:
        return _(
            "A ledger on another computer is reached over TLS only: add ?sslmode=require "
            "(or verify-full, which also checks the server's certificate) to the address"
        )
    return None


def password_entry(url: str) -> str:
    """The keyring entry of the password of ``url``'s role on its server: one per user,
    server and database, so another ledger's address never gets this one's password."""
    parsed = parse(split_password(url)[0])
    return f"shared-ledger/{parsed.user}@{parsed.where}"


@dataclass(frozen=True)
class Choice:
    """The ledger a desk uses: ``url`` (None: its own SQLite file) and where it came from."""

    url: str | None
    source: str  # "command line", "settings" or "own"

    @property
    def shared(self) -> bool:
        return self.url is not None


def choose(given: str | None, saved: str | None) -> Choice:
    """``--ledger`` first, then the saved setting, else this computer's own ledger."""
    if given:
        return Choice(split_password(given)[0], "command line")
    if saved:
        return Choice(split_password(saved)[0], "settings")
    return Choice(None, "own")
