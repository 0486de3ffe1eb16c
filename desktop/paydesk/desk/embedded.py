"""The embedded sandbox: PayDesk's default service on this computer, at a stable address.

Every link made against it carries its address (QR codes, printed pages), so it keeps its
port from one start to the next (the profile's ``sandbox_port``, first 8765, outside the
range the system hands out to outgoing connections). When that port is taken, PayDesk finds
out who holds it without sending any secret (``sandbox_identity.py``): this computer's
sandbox (served by another PayDesk window, or by a ``paydesk-sandbox`` started on its own)
is used; when anything else holds it, the sandbox runs on a free port for this session,
says so plainly, and tries its own port again at the next start. While PayDesk uses a
sandbox another process serves, every call first checks that it is still that sandbox
(``verify``): a program that took the port meanwhile gets no key, and no key is called
wrong for it.

The sandbox this process serves, the desk reaches in process (``transports.py``: its
requests handed to the sandbox's application on the server's own loop, no socket); the
server still listens on the port for the customer's browser, the pay page and any other
program, and the sandbox's notifications to a receiver are real HTTP.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..config.profiles import CARDS_CURRENCIES, MODES, WALK_IN_NAME, Profile
from ..i18n import _
from ..service.errors import NotTheServiceError, ServiceUnavailableError
from . import sandbox_identity as identity
from .sandbox_identity import Answer
from .transports import Transports

if TYPE_CHECKING:
    from ..sandbox import SandboxServer

log = logging.getLogger("paydesk.embedded")
BASE_PATH = "/pay"
FIRST_PORT = 8765
# the sandbox profile's shop e-mail: the counter sells at once; the sandbox sends no mail
# (what it would send stays in its outbox), and .example is never anyone's address
SANDBOX_SHOP_EMAIL = "shop@sandbox.example"


def _port_of(url: str) -> int:
    try:
        return urlsplit(url).port or 0
    except ValueError:
        return 0


SANDBOX_NAME = "Sandbox"  # the sandbox profile's name at its first start: a name, as the user may rename it


class WrongServiceError(NotTheServiceError):
    """Something other than this computer's sandbox answers at the sandbox's address.
    Nothing was sent to it; no key is wrong."""


def _taken_note(port: int, moved: int, answer: Answer) -> str:
    if answer is Answer.OTHER_SERVICE:
        said = _(
            "The sandbox's usual port {port} is taken by another deployment of the service (a sandbox "
            "with other merchants), so it runs on port {moved} for now: links made before point at the "
            "usual address; PayDesk tries it again at its next start."
        )
    else:
        said = _(
            "The sandbox's usual port {port} is taken by another program, so it runs on port {moved} for "
            "now: links made before point at the usual address; PayDesk tries it again at its next start."
        )
    return said.format(port=port, moved=moved)


def wrong_service_text(base_url: str, answer: Answer) -> str:
    if answer is Answer.OTHER_SERVICE:
        said = _(
            "Another deployment of the service (a sandbox with other merchants) now answers at {url}, not "
            "this computer's sandbox: nothing was sent to it. Restart PayDesk to run the sandbox again."
        )
    else:
        said = _(
            "Another program now answers at {url}, not this computer's sandbox: nothing was sent to it. "
            "Restart PayDesk to run the sandbox again."
        )
    return said.format(url=base_url)


class EmbeddedSandbox:
    """The sandbox of the data folder ``folder``: started (or found) by ``start``, which
    hands back its profile and keys for the session to keep. The one this process serves
    is reached through ``transports`` (the desk's) while it serves."""

    def __init__(self, folder: Path, transports: Transports | None = None):
        self.folder = folder
        self.transports = transports if transports is not None else Transports()
        self.server: SandboxServer | None = None  # the SandboxServer this session runs, if it runs one
        self.base_url: str | None = None
        self.note: str | None = None  # what the user should know about its address

    def _start_server(self, port: int, first: bool) -> tuple[SandboxServer | None, str | None]:
        """Off the GUI thread: start the sandbox on its own ``port`` (on a free one at the
        very first start if that is taken). Returns (server or None, note)."""
        from ..sandbox import SandboxConfig, SandboxServer

        folder = self.folder

        def on(p: int) -> SandboxServer:
            config = SandboxConfig(data_dir=folder, port=p, base_path=BASE_PATH, deployment="cards")
            return SandboxServer(config).start()

        try:
            server = on(port)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
        else:
            if not first:
                identity.claim(folder, port)  # other windows: this process serves it here
            return server, None
        if first:
            return on(0), None
        usual = f"http://127.0.0.1:{port}{BASE_PATH}"
        answer = identity.identify(usual, identity.public_test_key(folder))
        if answer is Answer.OURS:
            if identity.served_by_paydesk(folder, port):
                log.info("the sandbox at %s is already served by another PayDesk", usual)
                return None, _("The sandbox is served by another PayDesk window on this computer")
            log.info("the sandbox at %s is served by a paydesk-sandbox started on its own", usual)
            return None, _(
                "The sandbox at {url} is served by a paydesk-sandbox started on its own (with this "
                "computer's sandbox data): PayDesk uses it"
            ).format(url=usual)
        server = on(0)
        note = _taken_note(port, _port_of(server.base_url), answer)
        return server, note

    def serves(self, profile: Profile) -> bool:
        """Does this session's own server answer at the profile's address?"""
        return self.server is not None and self.server.base_url.rstrip("/") == profile.base_url.rstrip("/")

    async def verify(self, profile: Profile) -> None:
        """Before a key goes to the embedded sandbox's address that another process serves:
        is it still this computer's sandbox? Raises WrongServiceError (something else
        answers there) or ServiceUnavailableError (nothing does); sends no secret."""
        if not profile.embedded_sandbox or self.serves(profile):
            return
        folder = self.folder
        public = await asyncio.to_thread(identity.public_test_key, folder)
        answer = await asyncio.to_thread(identity.identify, profile.base_url, public)
        if answer is Answer.OURS:
            return
        if answer is Answer.NOBODY:
            raise ServiceUnavailableError(
                _(
                    "Nothing answers at {url}: the program that served the sandbox has stopped. Restart "
                    "PayDesk to run the sandbox again."
                ).format(url=profile.base_url)
            )
        raise WrongServiceError(wrong_service_text(profile.base_url, answer))

    async def start(self, existing: Profile | None) -> tuple[Profile, dict[tuple[str, str], str]]:
        """Start (or find) the sandbox; ``existing`` is the sandbox's profile when there is
        one. Returns the profile pointing at it and its keys ({(mode, kind): key})."""
        usual = (existing.sandbox_port or _port_of(existing.base_url)) if existing else 0
        if self.base_url is None:
            self.server, self.note = await asyncio.to_thread(self._start_server, usual or FIRST_PORT, not usual)
            self.base_url = self.server.base_url if self.server else f"http://127.0.0.1:{usual}{BASE_PATH}"
            if self.server is not None:  # ours: reached in process (another's: over HTTP)
                self.transports.add(self.server.base_url, self.server.transport())
            if self.note:
                log.warning("%s", self.note)
        if not usual:  # the very first start: this port is the sandbox's own from now on
            usual = _port_of(self.base_url)
            if self.server is not None:
                await asyncio.to_thread(identity.claim, self.folder, usual)
        merchants_file = self.folder / "merchants.json"
        merchants = json.loads(await asyncio.to_thread(merchants_file.read_text, "utf-8"))
        merchant = merchants[0]
        profile = existing or Profile(
            id=Profile.new_id(), name=SANDBOX_NAME, base_url="", embedded_sandbox=True, txref_prefix="SBX"
        )
        profile = replace(
            profile,
            base_url=self.base_url,
            currencies=list(CARDS_CURRENCIES),
            has_cards=True,
            sandbox_port=usual,
            # the counter sells at once (a profile of an older PayDesk too)
            shop_email=profile.shop_email.strip() or SANDBOX_SHOP_EMAIL,
            walk_in_name=profile.walk_in_name.strip() or WALK_IN_NAME,
        )
        keys = {(mode, kind): merchant["keys"][mode][kind] for mode in MODES for kind in ("secret", "public")}
        return profile, keys

    async def stop(self) -> None:
        if self.server is not None:
            server, self.server = self.server, None
            self.transports.remove(server.base_url)
            await asyncio.to_thread(server.stop)
            await asyncio.to_thread(identity.release, self.folder)
