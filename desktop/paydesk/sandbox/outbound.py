"""Where the sandbox's notifications may go: never to a link-local or private address.

A notification is a signed POST to a URL that any merchant names (a payment's
callback_url, made with a public key too; a card's; the merchant's webhook URL), so
without a rule the sandbox would POST into the network it runs in (a cloud's metadata
address, 10.0.0.0/8 and the like). The rule is applied to the addresses
actually connected to: ``GuardedBackend`` resolves the host itself, checks every address
it got, and connects to an allowed one by its number, so a name that resolves to a public
address when looked at and a private one when connected to (DNS rebinding) cannot slip
past. Loopback is allowed only while the sandbox itself listens on loopback (the embedded
case: PayDesk's own receiver on 127.0.0.1).
"""

from __future__ import annotations

import functools
import ipaddress
import socket
import ssl
import typing

import anyio
import httpcore
import httpx

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT


class Refused(httpcore.ConnectError):
    """No address of the host may be notified: the attempt's logged error is the text."""


def listens_on_loopback(host: str) -> bool:
    """Whether the sandbox's own listening address is loopback (127.0.0.1, ::1, localhost)."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _embedded_ipv4(ip: Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (mapped, NAT64, 6to4, Teredo), if any."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    return None


def why_refused(ip: Address, *, allow_loopback: bool) -> str | None:
    """Why a notification may not go to ``ip`` ("a private address (link-local)"), or None."""
    inner = _embedded_ipv4(ip)
    if inner is not None:
        return why_refused(inner, allow_loopback=allow_loopback)
    if ip.is_loopback:
        if allow_loopback:
            return None
        return "a private address (loopback, while the sandbox does not listen on loopback)"
    for kind, test in (
        ("unspecified", ip.is_unspecified),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("site-local", getattr(ip, "is_site_local", False)),
        ("shared, carrier-grade NAT", ip in _SHARED),
    ):
        if test:
            return f"a private address ({kind})"
    if ip.is_private or not ip.is_global:
        return "a private address"
    return None


def _literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's own backend, connecting only to the addresses ``why_refused`` allows."""

    def __init__(self, *, allow_loopback: bool):
        self.allow_loopback = allow_loopback
        self._inner = httpcore.AnyIOBackend()

    async def _addresses(self, host: str, port: int) -> list[str]:
        literal = _literal(host)
        if literal is not None:
            return [str(literal)]
        try:
            found = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise httpcore.ConnectError(f"{host} could not be resolved: {exc}") from exc
        # in the resolver's order, each once
        return list(dict.fromkeys(str(info[4][0]) for info in found))

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's network backend API)
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            with anyio.fail_after(timeout):
                allowed: list[tuple[str, str | None]] = []
                refused: list[tuple[str, str | None]] = []
                for address in await self._addresses(host, port):
                    why = why_refused(
                        ipaddress.ip_address(address.split("%", 1)[0]), allow_loopback=self.allow_loopback
                    )
                    (refused if why else allowed).append((address, why))
                if not allowed:
                    if not refused:
                        raise httpcore.ConnectError(f"{host} has no address")
                    address, why = refused[0]
                    literal = _literal(host) is not None
                    shown = host.strip("[]") if literal else f"{host} ({address})"
                    raise Refused(f"refused: {shown} is {why}")
                last: Exception | None = None
                for address, _ in allowed:  # by its number: nothing is resolved again
                    try:
                        return await self._inner.connect_tcp(
                            address, port, timeout=None, local_address=local_address, socket_options=socket_options
                        )
                    except httpcore.ConnectError as exc:
                        last = exc
                assert last is not None
                raise last
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"{host}: no connection within {timeout} s") from exc

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's API)
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise Refused("refused: notifications go over TCP only")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


@functools.cache
def _tls() -> ssl.SSLContext:
    """httpx's own verifying TLS context, made once (loading the CA bundle takes a while)."""
    return httpx.create_ssl_context(trust_env=False)


class GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport with its httpcore pool built as httpx builds it (no proxy: the
    sandbox connects itself), but on ``GuardedBackend``. httpx takes no network backend,
    so the pool it made is replaced (``_pool`` is what its ``handle_async_request`` uses;
    tests/sandbox/test_private_addresses.py fails if that ever changes)."""

    def __init__(self, *, allow_loopback: bool) -> None:
        super().__init__(verify=_tls(), trust_env=False)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=_tls(),
            max_connections=4,  # a client sends one notification, tried again in turn
            max_keepalive_connections=0,
            http1=True,
            http2=False,
            retries=0,
            network_backend=GuardedBackend(allow_loopback=allow_loopback),
        )


def guarded_client(*, timeout: float, allow_loopback: bool) -> httpx.AsyncClient:
    """The client every notification is sent with: no redirect followed, no proxy taken
    from the environment, no private address connected to."""
    return httpx.AsyncClient(
        timeout=timeout,
        follow_redirects=False,
        trust_env=False,
        transport=GuardedTransport(allow_loopback=allow_loopback),
    )


def refusal(exc: BaseException) -> str | None:
    """The text of a ``Refused`` behind an httpx error (httpx wraps httpcore's), or None."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, Refused):
            return str(seen)
        seen = seen.__cause__ or seen.__context__
    return None
