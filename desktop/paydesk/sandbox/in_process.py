"""The sandbox reached in process: an httpx transport that hands each request to the
sandbox's application on the sandbox's own loop (its server's thread), with no socket.

A program that runs a sandbox (PayDesk's embedded one) speaks to it this way; the server
still listens on its port for everyone else (a customer's browser, the pay page, another
program). The application runs where it always runs, on the server's loop, one request at
a time as a task there, so nothing of its state is touched from two threads.

What the client sees is what it would see over a socket:
- the request's client address is the loopback address of the server's family (the
  throttle counts per client address, as it counts a client on this computer);
- nothing answers once the server stops (or before it serves): ``httpx.ConnectError``;
- an answer slower than the request's read timeout: ``httpx.ReadTimeout`` (the request
  goes on being served, as a request whose client gave up does);
- an answer dropped (the faults' dropped answer after commit, an error the application
  let out, the server stopping meanwhile): ``httpx.RemoteProtocolError``, a connection
  closed without an answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx

Loop = asyncio.AbstractEventLoop


class InProcess(httpx.AsyncBaseTransport):
    """``InProcess(app, serving, host)``: ``serving()`` is the loop the application runs on,
    None while nothing serves it; ``host`` the server's listening address."""

    def __init__(self, app, serving: Callable[[], Loop | None], host: str = "127.0.0.1"):
        client = ("::1" if ":" in host else "127.0.0.1", 0)
        self._asgi = httpx.ASGITransport(app, client=client)
        self._serving = serving

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()  # the body as bytes: read on this loop, served on the other
        loop = self._serving()
        if loop is None:
            raise httpx.ConnectError("Nothing serves the sandbox", request=request)
        try:
            future = asyncio.run_coroutine_threadsafe(self._asgi.handle_async_request(request), loop)
        except RuntimeError:  # its loop closed meanwhile
            raise httpx.ConnectError("Nothing serves the sandbox", request=request) from None
        answer = asyncio.wrap_future(future)
        read = (request.extensions.get("timeout") or {}).get("read")
        try:
            done, _ = await asyncio.wait({answer}, timeout=read)
        except asyncio.CancelledError:
            future.cancel()  # the caller gave up: so does the request there
            raise
        if not done:
            future.cancel()
            raise httpx.ReadTimeout("The sandbox did not answer in time", request=request)
        if answer.cancelled():  # the server stopped with the request in flight
            raise httpx.RemoteProtocolError("The sandbox stopped before it answered", request=request)
        error = answer.exception()
        if isinstance(error, httpx.HTTPError):
            raise error
        if error is not None:
            raise httpx.RemoteProtocolError(
                "The sandbox closed the connection without an answer", request=request
            ) from error
        return answer.result()

    async def aclose(self) -> None:
        """Nothing to close: the server is its owner's (every client of one origin shares
        this transport, and closing one client leaves the others theirs)."""
