"""``Receiver``: the receiver's server in the RUNNING loop (the app's qasync loop, or the
command's own), with its re-read worker. Embedded in the app it installs no signal
handlers (the app owns them); ``paydesk-receiver`` handles SIGTERM and SIGINT itself, and on a
shared ledger is the shop's key holder too (``key_holder``: keyholder.py)."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from datetime import UTC, datetime, timedelta

import uvicorn

from ..desk.build import Desk
from ..desk.tasks import TaskSet
from ..ledger.inbox import REFUSED_KEPT
from .keyholder import KeyHolder
from .server import build_app
from .signature import Keys
from .worker import Worker

log = logging.getLogger("paydesk.receiver")
PRUNE_EVERY = 3600.0  # s: how often refused requests past their time are forgotten
# the proxies whose X-Forwarded-For names the peer: one on this computer only (a peer
# elsewhere could name any address it likes)
PROXIES = "127.0.0.1,::1"


class _Server(uvicorn.Server):
    """uvicorn without its signal handlers: the process's owner has its own."""

    def install_signal_handlers(self) -> None:  # uvicorn < 0.29
        pass

    def capture_signals(self):  # type: ignore[no-untyped-def]  # uvicorn >= 0.29
        import contextlib

        return contextlib.nullcontext()


class Receiver:
    """``Receiver(desk, host, port)`` (port 0: any free one); ``await start()``, ``url``,
    ``await close()``. Writes into ``desk``'s inbox and ledger; forgets the refused requests
    older than ``keep_refused`` (at its start, then every hour)."""

    def __init__(
        self,
        desk: Desk,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        keep_refused: timedelta = REFUSED_KEPT,
        key_holder: bool = False,
    ):
        self.desk = desk
        self.host = host
        self.port = port
        self.keep_refused = keep_refused
        self.tasks = TaskSet()
        self.keys = Keys(desk.session)
        self.worker = Worker(desk, self.tasks.child())
        self.app = build_app(desk.inbox, self.keys, desk.hub, self.worker.put)
        self._server: _Server | None = None
        self._serving: asyncio.Task | None = None
        self.closing = False  # close() was called: the server's end is no failure
        # the profiles whose service notifies it (the app's: the embedded sandbox's); None:
        # every profile of its desk (paydesk-receiver, given the address by an administrator)
        self.profiles: set[str] | None = None
        # on a shared ledger, the key holder serves the key-less counters' sale requests
        self.key_holder = KeyHolder(desk, self.tasks.child()) if key_holder and desk.live is not None else None

    def serves(self, profile_id: str) -> bool:
        """Whether the service was told to notify this receiver of ``profile_id``'s payments
        (the app's receiver is registered once per profile). It does not space the checks:
        only notifications that came do (desk/notified.py)."""
        return self.profiles is None or profile_id in self.profiles

    @property
    def url(self) -> str:
        """Where the service is to send notifications (``POST /notifications``)."""
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}/notifications"

    async def start(self) -> None:
        """Listening when this returns (the port bound); the worker re-reads what an earlier
        run left pending."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            if os.name != "nt":  # on Windows it would let another program share the port
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, self.port))
            sock.setblocking(False)
        except OSError:
            sock.close()
            raise
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_keep_alive=5,
            timeout_graceful_shutdown=2,
            proxy_headers=True,
            forwarded_allow_ips=PROXIES,
        )
        self._server = _Server(config)
        # its failure is said by whoever awaits ``serving()`` (the command, the app)
        self._serving = self.tasks.spawn(self._server.serve(sockets=[sock]), "receiver server", expected=(Exception,))
        while not self._server.started:
            if self._serving.done():
                self._serving.result()  # raises what stopped it
                raise RuntimeError("the receiver's server stopped at once")
            await asyncio.sleep(0.01)
        self.tasks.spawn(self.worker.run(), "re-read notifications")
        self.tasks.spawn(self._prunes(), "forget refused requests past their time")
        if self.key_holder is not None:
            self.tasks.spawn(self.key_holder.run(), "serve the counters' sale requests")
        log.info("receiving notifications at %s", self.url)

    async def _prunes(self) -> None:
        """Forget the refused requests older than ``keep_refused``, now and every hour; the
        loop survives anything (said, then again at the next hour)."""
        while True:
            try:
                gone = await self.desk.inbox.prune_refused(datetime.now(UTC) - self.keep_refused)
                if gone:
                    log.info("forgot %d refused request(s) older than %s", gone, self.keep_refused)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the refused requests past their time could not be forgotten")
            await asyncio.sleep(PRUNE_EVERY)

    async def serving(self) -> BaseException | None:
        """Until the server stops (``close``, or a failure); what stopped it, when it raised
        (None: closed, or it ended of itself: ``closing`` tells which)."""
        if self._serving is None:
            return None
        await asyncio.wait({self._serving})
        return None if self._serving.cancelled() else self._serving.exception()

    async def close(self) -> None:
        """Stop answering (what was answered is kept), then end the re-reads under way (what
        they had not decided stays pending, for the next start)."""
        self.closing = True
        if self.key_holder is not None:
            self.key_holder.stop()
        if self._server is not None:
            self._server.should_exit = True
        if self._serving is not None:
            await asyncio.wait({self._serving}, timeout=5)
        await self.tasks.cancel_all()
