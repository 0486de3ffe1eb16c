"""Connections: bounded in number, and closed when their request does not come in time.

Without this, a half-sent request stayed open for ever, and 1,100 of them (more than a
1,024 descriptor limit) stopped the sandbox from serving anyone while asyncio logged a
"Too many open files" traceback for every accept it retried.

- A request head must arrive within ``head_timeout`` (10 s) of connecting or of the
  previous answer; a body within 20 s (see ``limits.py``); an idle keep-alive connection
  is closed after 5 s (uvicorn's own timer).
- At most ``limit`` connections are open, well under the descriptor limit. At the limit,
  a new connection takes the place of the oldest one still waiting for its request head
  (idle or half-sent); when every connection is busy with a request, the newcomer gets a
  503 and is closed. Either way the server keeps accepting, so it keeps serving.
- Such pressure is logged once when it starts and once when it ends, never per socket.
"""

from __future__ import annotations

import asyncio
import logging
import resource

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("paydesk.sandbox.connections")

HEAD_TIMEOUT = 10.0
ACCEPT_BATCH = 64  # connections accepted per pass of the loop (the listen backlog)
_RESERVE = 128  # descriptors kept for the database, the outbox, notifications, logs
_BUSY_BODY = b'{"status":"failed","message":"Too many connections, try again","data":null}'
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
    b"Retry-After: 1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(_BUSY_BODY), _BUSY_BODY)
)


def default_limit() -> int:
    """How many connections may be open: well under the descriptor limit."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 65536
    return max(16, min(4096, soft - ACCEPT_BATCH - _RESERVE))


class ConnectionGuard:
    """The open connections of one server, and the pressure on them."""

    def __init__(self, limit: int | None = None, head_timeout: float = HEAD_TIMEOUT):
        self.limit = limit or default_limit()
        self.head_timeout = head_timeout
        self.open: set[GuardedProtocol] = set()
        self.waiting: dict[GuardedProtocol, None] = {}  # for a request head; oldest first
        self.under_pressure = False
        self.closed_idle = 0
        self.refused = 0
        self._gone: asyncio.Event | None = None  # made on the server's loop, when awaited

    async def one_gone(self) -> None:
        """Until a connection closes (the server's shutdown waits for them all)."""
        self._gone = asyncio.Event()
        await self._gone.wait()

    def admit(self, conn: GuardedProtocol) -> bool:
        if len(self.open) >= self.limit:
            self._pressure()
            oldest = next(iter(self.waiting), None)
            if oldest is None:
                self.refused += 1
                return False
            self.closed_idle += 1
            oldest.drop()
        self.open.add(conn)
        return True

    def awaiting_head(self, conn: GuardedProtocol) -> None:
        self.waiting.pop(conn, None)
        self.waiting[conn] = None

    def got_head(self, conn: GuardedProtocol) -> None:
        self.waiting.pop(conn, None)

    def gone(self, conn: GuardedProtocol) -> None:
        self.open.discard(conn)
        self.waiting.pop(conn, None)
        if self._gone is not None:
            self._gone.set()
        if self.under_pressure and len(self.open) < self.limit * 3 // 4:
            self.under_pressure = False
            log.warning(
                "connection pressure is over: %d idle or half-sent connections were closed to make room, %d refused",
                self.closed_idle,
                self.refused,
            )
            self.closed_idle = self.refused = 0

    def _pressure(self) -> None:
        if not self.under_pressure:
            self.under_pressure = True
            log.warning(
                "%d connections are open, the most this sandbox takes: the oldest idle "
                "or half-sent ones are closed to serve new ones (logged once)",
                len(self.open),
            )

    def loop_errors(self, loop: asyncio.AbstractEventLoop, context: dict) -> None:
        """The loop's exception handler: out-of-descriptor accepts count as pressure,
        logged once, instead of a traceback per retry."""
        if str(context.get("message", "")).startswith("socket.accept() out of system resource"):
            self._pressure()
            return
        loop.default_exception_handler(context)

    def protocol(self, *args, **kwargs) -> GuardedProtocol:
        return GuardedProtocol(self, *args, **kwargs)


class GuardedProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, admitted by the guard and timed while it waits for a
    request head."""

    def __init__(self, guard: ConnectionGuard, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.guard = guard
        self._admitted = False
        self._timer: asyncio.TimerHandle | None = None
        self._cycle_seen = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        if not self.guard.admit(self):
            transport.write(_BUSY)
            transport.close()
            return
        self._admitted = True
        super().connection_made(transport)
        self._await_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._note_head()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_head()
            self._note_head()  # a pipelined request already waiting

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._admitted:
            return
        self._stop_timer()
        self.guard.gone(self)
        super().connection_lost(exc)

    def drop(self) -> None:
        """Close a connection that has not sent its request (the guard needs its place)."""
        self._stop_timer()
        self.guard.got_head(self)
        self.transport.close()

    def _await_head(self) -> None:
        self._stop_timer()
        self.guard.awaiting_head(self)
        self._timer = self.loop.call_later(self.guard.head_timeout, self._head_too_late)

    def _note_head(self) -> None:
        if self.cycle is not None and self.cycle is not self._cycle_seen:
            self._cycle_seen = self.cycle
            self._stop_timer()
            self.guard.got_head(self)

    def _head_too_late(self) -> None:
        self._timer = None
        self.guard.got_head(self)
        if not self.transport.is_closing():
            self.transport.close()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
