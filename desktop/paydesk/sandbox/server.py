"""Assemble the sandbox application and run it, from the command line or in a thread."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from .calls import CallLog
from .connections import ACCEPT_BATCH, ConnectionGuard
from .context import Sandbox, SandboxConfig
from .dialect import dialect_for
from .errors import RequestGuard, handlers, refusal
from .faults import FaultBook, FaultMiddleware
from .in_process import InProcess
from .keys import KeyRing, load_or_create
from .limits import RequestLimits
from .mailer import Mailer
from .notify import Notifier
from .openapi import document
from .outbound import listens_on_loopback
from .routes import control_routes
from .settings import Settings
from .store import Store
from .throttle import Throttle, ThrottleMiddleware

log = logging.getLogger("paydesk.sandbox")
__all__ = ["SandboxConfig", "SandboxServer", "build_app"]


def build_app(config: SandboxConfig):
    """The ASGI application for one sandbox; its state lives in ``config.data_dir``."""
    keys = KeyRing(load_or_create(config.data_dir))  # makes the folder, private
    store = Store(config.data_dir / "sandbox.sqlite3")
    dialect = dialect_for(config)
    sb = Sandbox(config=config, store=store, keys=keys, envelope=dialect.envelope, dialect=dialect)
    sb.notifier = Notifier(
        store,
        keys,
        timeout=config.notify_timeout,
        attempts=config.notify_attempts,
        backoff=config.notify_backoff,
        allow_loopback=listens_on_loopback(config.host),
    )
    sb.mailer = Mailer(store, config.data_dir / "outbox", config.smtp)
    sb.faults = FaultBook()
    sb.settings = Settings(store, config.currencies)
    dialect.start(sb)
    sb.calls = CallLog()
    sb.throttle = Throttle(config.throttle_limit, config.rate_limit_window)
    if sb.throttle.on:
        log.info(
            "throttle: %d requests per %d s per client address on /api routes",
            config.throttle_limit,
            config.rate_limit_window,
        )

    async def openapi(request: Request) -> JSONResponse:
        return JSONResponse(document(config.has_cards, config.base_path, dialect.name))

    routes = (
        dialect.routes(config.has_cards)
        + control_routes()
        + [
            Route("/openapi.json", openapi, methods=["GET"]),
        ]
    )

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        await sb.notifier.drain()
        await dialect.drain()
        store.close()

    mounted = [Mount(config.base_path, routes=routes)] if config.base_path else routes
    app = Starlette(
        routes=mounted,
        exception_handlers=handlers(sb),
        lifespan=lifespan,
    )
    app.router.redirect_slashes = False
    app.state.sandbox = sb
    # the throttle answers its 429 inside CORS (a browser reads it) and outside the request
    # limits (a body refused for its size never reached the framework's throttle)
    wrapped = ThrottleMiddleware(
        app, sb.throttle, routes, config.base_path, lambda scope, headers: dialect.throttled(scope, headers)
    )
    wrapped = dialect.cors(wrapped, config.base_path)
    wrapped = RequestLimits(wrapped, lambda path, err: refusal(sb, path, err))
    wrapped = RequestGuard(wrapped)
    # outermost: it cuts connections through the server's own ``send``
    outer = FaultMiddleware(wrapped, sb.faults, keys, f"{config.base_path}/api/", sb.calls)
    outer.sandbox = sb  # the running state, for the embedding app and for tests
    return outer


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # accepted connections inherit it: no 40 ms Nagle / delayed-ACK stall between
        # a response's header and body writes
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))  # a taken port: closed here, not left to the collector
        sock.listen(256)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def base_url_of(config: SandboxConfig, sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{config.base_path}"


class Server(uvicorn.Server):
    """uvicorn's server, up and down without fixed waits: ``started_or_ended`` is set once
    it serves (or has given up), ``exit_soon`` wakes it from its 0.1 s tick at once, and its
    shutdown waits for the connections it closes to be gone instead of a fixed 0.1 s (the
    embedded sandbox stops as PayDesk quits; a test's sandbox stops after every test)."""

    def __init__(self, config: uvicorn.Config, guard: ConnectionGuard):
        super().__init__(config)
        self.guard = guard
        self.started_or_ended = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None

    def exit_soon(self) -> None:
        """Stop serving, from any thread: as ``should_exit``, without waiting for the tick."""
        self.should_exit = True
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None:
            with contextlib.suppress(RuntimeError):  # its loop has already closed
                loop.call_soon_threadsafe(wake.set)

    @property
    def serving(self) -> asyncio.AbstractEventLoop | None:
        """The loop it serves on, while it serves (None before it has started, and from the
        moment it is asked to stop)."""
        loop = self._loop
        if loop is None or not self.started or self.should_exit or loop.is_closed():
            return None
        return loop

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()  # before it is said started: in_process.py asks
        try:
            await super().startup(sockets)
        finally:
            self.started_or_ended.set()

    async def main_loop(self) -> None:
        # set before the first tick looks at should_exit: a stop asked before this sees
        # should_exit there, one asked after wakes the wait
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), 0.1)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # uvicorn's shutdown, but waiting on the connections themselves
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        try:
            await asyncio.wait_for(self._finished(), self.config.timeout_graceful_shutdown)
        except TimeoutError:
            log.warning("cancelling %d request(s) still running at shutdown", len(self.server_state.tasks))
            for task in self.server_state.tasks:
                task.cancel()
        if not self.force_exit:
            await self.lifespan.shutdown()

    async def _finished(self) -> None:
        while self.server_state.connections:
            await self.guard.one_gone()
        if self.server_state.tasks:
            await asyncio.wait(set(self.server_state.tasks))
        for server in self.servers:
            await server.wait_closed()


def make_server(app, **options) -> tuple[Server, ConnectionGuard]:
    """A uvicorn server for the sandbox, its connections bounded and timed (see
    ``connections.py``)."""
    guard = ConnectionGuard()
    # proxy_headers off: the client address is the connection's (the throttle counts per
    # address), never what an X-Forwarded-For header claims
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        http=guard.protocol,
        backlog=ACCEPT_BATCH,
        timeout_keep_alive=5,
        proxy_headers=False,
        **options,
    )
    return Server(config, guard), guard


async def serve(server: uvicorn.Server, guard: ConnectionGuard, sock: socket.socket) -> None:
    asyncio.get_running_loop().set_exception_handler(guard.loop_errors)
    await server.serve(sockets=[sock])


class SandboxServer:
    """A sandbox on its own thread and loop: the app's embedded default, and the tests'."""

    def __init__(self, config: SandboxConfig):
        self.config = config
        self._sock = bind(config.host, config.port)
        self.base_url = base_url_of(config, self._sock)
        self.app = build_app(config)
        # quitting PayDesk never waits long on a request
        self._server, self.connections = make_server(self.app, timeout_graceful_shutdown=1)
        self._thread: threading.Thread | None = None

    @property
    def data_dir(self) -> Path:
        return self.config.data_dir

    def start(self, timeout: float = 15.0) -> SandboxServer:
        self._thread = threading.Thread(target=self._run, name="paydesk-sandbox", daemon=True)
        self._thread.start()
        self._server.started_or_ended.wait(timeout)
        if self._server.started:
            return self
        raise RuntimeError("the sandbox did not start")

    def transport(self) -> InProcess:
        """This sandbox for a client in this process, with no socket: each request handed to
        the application on the server's own loop (``in_process.py``); the server still
        listens on its port for everyone else."""
        return InProcess(self.app, lambda: self._server.serving, self.config.host)

    def _run(self) -> None:
        try:
            asyncio.run(serve(self._server, self.connections, self._sock))
        finally:
            self._server.started_or_ended.set()  # ended before it served: start() says so

    def stop(self, timeout: float = 10.0) -> None:
        self._server.exit_soon()
        if self._thread:
            self._thread.join(timeout)
        self._sock.close()

    def __enter__(self) -> SandboxServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
