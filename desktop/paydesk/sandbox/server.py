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
    sb = Sandbox(config=config, store=store, keys=keys, envelope=dialect.envelope,
                 dialect=dialect)
    sb.notifier = Notifier(store, keys, timeout=config.notify_timeout,
                           attempts=config.notify_attempts, backoff=config.notify_backoff,
                           allow_loopback=listens_on_loopback(config.host))
    sb.mailer = Mailer(store, config.data_dir / "outbox", config.smtp)
    sb.faults = FaultBook()
    sb.settings = Settings(store, config.currencies)
    dialect.start(sb)
    sb.calls = CallLog()
    sb.throttle = Throttle(config.throttle_limit, config.rate_limit_window)
    if sb.throttle.on:
        log.info("throttle: %d requests per %d s per client address on /api routes",
                 config.throttle_limit, config.rate_limit_window)

    async def openapi(request: Request) -> JSONResponse:
        return JSONResponse(document(config.has_cards, config.base_path, dialect.name))

    routes = dialect.routes(config.has_cards) + control_routes() + [
        Route("/openapi.json", openapi, methods=["GET"]),
    ]

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
    wrapped = ThrottleMiddleware(app, sb.throttle, routes, config.base_path,
                                 lambda scope, headers: dialect.throttled(scope, headers))
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
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit it: no 40 ms Nagle / delayed-ACK stall between
    # a response's header and body writes
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(256)
    sock.setblocking(False)
    return sock


def base_url_of(config: SandboxConfig, sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{config.base_path}"


def make_server(app, **options) -> tuple[uvicorn.Server, ConnectionGuard]:
    """A uvicorn server for the sandbox, its connections bounded and timed (see
    ``connections.py``)."""
    guard = ConnectionGuard()
    # proxy_headers off: the client address is the connection's (the throttle counts per
    # address), never what an X-Forwarded-For header claims
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                            http=guard.protocol, backlog=ACCEPT_BATCH, timeout_keep_alive=5,
                            proxy_headers=False, **options)
    return uvicorn.Server(config), guard


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
        for _ in range(int(timeout * 100)):
            if self._server.started:
                return self
            if not self._thread.is_alive():
                break
            threading.Event().wait(0.01)
        raise RuntimeError("the sandbox did not start")

    def _run(self) -> None:
        asyncio.run(serve(self._server, self.connections, self._sock))

    def stop(self, timeout: float = 10.0) -> None:
        self._server.should_exit = True
        if self._thread:
            self._thread.join(timeout)
        self._sock.close()

    def __enter__(self) -> SandboxServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
