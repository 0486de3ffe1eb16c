"""How the desk reaches each service origin (Qt-free): over the network, unless a transport
is given for that origin (the scheme, host and port: ``budgets.origin_of``).

``build_desk`` is handed them (``transports=``): a program that runs a sandbox in its own
process reaches it there (``SandboxServer.transport()``, no socket), and the desk adds its
own embedded sandbox's while it serves it (``embedded.py``). Every client the desk leases
for that origin sends through it, and so does the guard's question to the address
(``guard.py``); whatever is not routed goes over HTTP as always. A notification the
sandbox sends to a receiver is the sandbox's own request: always real HTTP.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .budgets import origin_of

if TYPE_CHECKING:  # httpx is imported after the first paint
    import httpx


class Transports:
    """``Transports({base_url: transport})``: ``of(base_url)`` the transport of that address's
    origin, None for the network. A transport is shared by every client of its origin and
    is its giver's to close (the clients never close it)."""

    def __init__(self, routes: Mapping[str, httpx.AsyncBaseTransport] | None = None):
        self._by_origin: dict[str, httpx.AsyncBaseTransport] = {}
        for base_url, transport in (routes or {}).items():
            self.add(base_url, transport)

    def of(self, base_url: str) -> httpx.AsyncBaseTransport | None:
        return self._by_origin.get(origin_of(base_url))

    def add(self, base_url: str, transport: httpx.AsyncBaseTransport) -> None:
        """Reach the origin of ``base_url`` through ``transport`` from now on (the clients
        made after this; a client already made keeps its way until it is replaced)."""
        self._by_origin[origin_of(base_url)] = transport

    def remove(self, base_url: str, transport: httpx.AsyncBaseTransport | None = None) -> None:
        """The origin of ``base_url`` over the network again (only while it is still
        ``transport``'s, when one is named)."""
        origin = origin_of(base_url)
        if transport is None or self._by_origin.get(origin) is transport:
            self._by_origin.pop(origin, None)
