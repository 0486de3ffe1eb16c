"""The embedded sandbox: PayDesk's default service on this computer, at a stable address.

Every link made against it carries its address (QR codes, printed pages), so it keeps its
port from one start to the next (the profile's ``sandbox_port``, first 8765, outside the
range the system hands out to outgoing connections). When that port is taken by another
PayDesk serving the same sandbox, that one is used; when something else holds it, the
sandbox runs on a free port for this session, says so plainly, and tries its own port
again at the next start.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import urllib.error
import urllib.request
from dataclasses import replace
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .config.profiles import CARDS_CURRENCIES, MODES, Profile

if TYPE_CHECKING:
    from .ui.session import Session

log = logging.getLogger("paydesk.embedded")
BASE_PATH = "/pay"
FIRST_PORT = 8765


def _port_of(url: str) -> int:
    try:
        return urlsplit(url).port or 0
    except ValueError:
        return 0


def _serves_our_sandbox(base_url: str, secret: str) -> bool:
    """Does the sandbox at ``base_url`` know our merchant's key? (Another PayDesk window
    running the same embedded sandbox.)"""
    request = urllib.request.Request(f"{base_url}/api/transaction/PAYDESK-PROBE",
                                     headers={"Authorization": f"Bearer {secret}",
                                              "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=2):
            return True
    except urllib.error.HTTPError as answer:
        return answer.code == 404  # our key was accepted; there is no such transaction
    except (OSError, ValueError):
        return False


class EmbeddedSandbox:
    def __init__(self, session: "Session"):
        self.session = session
        self.server = None  # the SandboxServer this session runs, if it runs one
        self.base_url: str | None = None
        self.note: str | None = None  # what the user should know about its address

    def _start_server(self, port: int, secret: str | None, first: bool):
        """Off the GUI thread: start the sandbox on its own ``port`` (on a free one at the
        very first start if that is taken)."""
        from .sandbox import SandboxConfig, SandboxServer

        def on(p: int) -> SandboxServer:
            config = SandboxConfig(data_dir=self.session.paths.sandbox, port=p,
                                   base_path=BASE_PATH, deployment="cards")
            return SandboxServer(config).start()

        try:
            return on(port), None
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
        if first:
            return on(0), None
        usual = f"http://127.0.0.1:{port}{BASE_PATH}"
        if secret and _serves_our_sandbox(usual, secret):
            log.info("the sandbox at %s is already served by another PayDesk", usual)
            return None, "The sandbox is served by another PayDesk window on this computer"
        server = on(0)
        note = (f"The sandbox's usual port {port} is taken by another program, so it runs on "
                f"port {_port_of(server.base_url)} for now: links made before point at the usual "
                "address; PayDesk tries it again at its next start.")
        return server, note

    async def start(self) -> Profile:
        """Start (or find) the sandbox and make its profile point at it."""
        session = self.session
        existing = next((p for p in session.settings.profiles if p.embedded_sandbox), None)
        usual = (existing.sandbox_port or _port_of(existing.base_url)) if existing else 0
        if self.base_url is None:
            secret = None
            if existing is not None:
                secret = await session.keys.get(existing.id, "test", "secret")
            self.server, self.note = await asyncio.to_thread(
                self._start_server, usual or FIRST_PORT, secret, not usual)
            self.base_url = self.server.base_url if self.server else f"http://127.0.0.1:{usual}{BASE_PATH}"
            if self.note:
                log.warning("%s", self.note)
        if not usual:  # the very first start: this port is the sandbox's own from now on
            usual = _port_of(self.base_url)
        merchants_file = session.paths.sandbox / "merchants.json"
        merchants = json.loads(await asyncio.to_thread(merchants_file.read_text, "utf-8"))
        merchant = merchants[0]
        profile = existing or Profile(id=Profile.new_id(), name="Sandbox", base_url="",
                                      embedded_sandbox=True, txref_prefix="SBX")
        profile = replace(profile, base_url=self.base_url, currencies=list(CARDS_CURRENCIES),
                          has_cards=True, sandbox_port=usual)
        keys = {(mode, kind): merchant["keys"][mode][kind] for mode in MODES
                for kind in ("secret", "public")}
        first = existing is None
        if first:
            session.settings.active_mode = "test"
        await session.save_profile(profile, keys, activate=first or session.profile is None)
        return profile

    async def stop(self) -> None:
        if self.server is not None:
            server, self.server = self.server, None
            await asyncio.to_thread(server.stop)
