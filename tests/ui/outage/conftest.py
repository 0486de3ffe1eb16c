"""A shop's desk on the shared ledger (a real PostgreSQL, a real sandbox) with its main window,
and the ledger's server stopped under it: what a person presses then is refused with one
sentence where they pressed, nothing reaches the exception hook (no crash dialog), nothing
is written and nothing is sent (the sandbox's call log)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal

import httpx
import pytest
from PySide6.QtWidgets import QApplication

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.service.models import PaymentRequest
from paydesk.ui.crash import CrashDialog, ExceptionHook
from paydesk.ui.main_window import MainWindow
from tests.helpers import MemoryKeyring
from tests.profiles import use_profile

UNREACHABLE = re.compile(r"Shared ledger unreachable since \d\d:\d\d, retrying")


def refused(text: str) -> bool:
    """``text`` is the refusal: exactly the one sentence (no traceback, no more)."""
    return UNREACHABLE.fullmatch(text.strip()) is not None


@dataclass
class Shop:
    desk: object
    window: MainWindow
    sandbox: object
    loop: object
    server: object
    crashes: list = field(default_factory=list)

    @property
    def session(self):
        return self.desk.session

    @property
    def profile(self):
        return self.desk.session.profile

    def calls(self) -> list[tuple[str, str]]:
        """Every call of this merchant's test key the service logged: (method, path)."""
        answer = httpx.get(
            f"{self.sandbox.base_url}/_sandbox/requests",
            timeout=10,
            headers={"Authorization": f"Bearer {self.sandbox.key('test')}"},
        )
        answer.raise_for_status()
        return [(call["method"], call["path"]) for call in answer.json()["data"]]

    def link(self, ref: str, amount: int = 25):
        """A link made while the ledger answers (the desk's own create)."""
        return self.loop.run(
            self.desk.links.create(
                PaymentRequest(
                    amount=Decimal(amount),
                    currency="GBP",
                    email="ada@example.com",
                    first_name="Ada",
                    last_name="Lovelace",
                    tx_ref=ref,
                    title="Flat white",
                )
            ),
            timeout=30,
        )

    def pay(self, record) -> None:
        answer = httpx.post(
            f"{self.sandbox.base_url}/_sandbox/pay/{record.reference}",
            json={"outcome": "success"},
            timeout=10,
            headers={"Authorization": f"Bearer {self.sandbox.key('test')}"},
        )
        answer.raise_for_status()

    @contextlib.contextmanager
    def down(self, *, noticed: bool = True) -> Iterator[None]:
        """The ledger's server stopped for the block (started again after it); with
        ``noticed``, once this desk knows (its status bar says so)."""
        with self.server.down():
            if noticed:
                self.loop.until(
                    lambda: self.session.ledger_down() is not None, message="the desk to notice the ledger went"
                )
            yield
        self.back()

    def back(self, timeout: float = 30.0) -> float:
        """Until the desk hears the ledger again; how long that took (s)."""
        start = time.monotonic()
        self.loop.until(
            lambda: self.session.ledger_down() is None, timeout, message="the desk to hear the ledger again"
        )
        return time.monotonic() - start

    def settle(self, seconds: float = 0.3) -> None:
        """Let what a press started run (a refusal is said at once; this is not a measure)."""
        self.loop.run(asyncio.sleep(seconds), timeout=seconds + 10)

    def no_crash(self) -> None:
        assert self.crashes == [], f"reached the exception hook: {self.crashes!r}"
        assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, CrashDialog) and w.isVisible()], (
            "a crash dialog opened"
        )


@pytest.fixture
def crashes(monkeypatch):
    """What reaches ``sys.excepthook`` (the app's crash hook, installed as the app does)."""
    hook = ExceptionHook(None)
    reached: list[BaseException] = []

    def record(kind, error, tb):
        reached.append(error)
        hook(kind, error, tb)

    monkeypatch.setattr(sys, "excepthook", record)
    yield reached
    for dialog in list(hook.dialogs):
        with contextlib.suppress(RuntimeError):  # closed and deleted already
            dialog.close()


@pytest.fixture
def shop(make_sandbox, paths, keys, loop, qtbot, pg_url, pg_server, crashes, tmp_path):
    """``shop(background=True)``: the desk on the shared ledger with its window shown, its
    profile the sandbox's merchant (cards too); ``background``: its feed and lease running
    (so it notices at once that the ledger went), else only its own calls find out.
    ``beside=shop``: another desk of that shop (a data folder and keyring of its own), which
    sees the merchant but has none of its keys yet."""
    made = []

    def make(background: bool = True, beside: Shop | None = None) -> Shop:
        desk_paths, desk_keys = paths, keys
        if beside is not None:
            desk_paths = Paths(data=tmp_path / "finance", sandbox=tmp_path / "finance-sb").ensure()
            desk_keys = KeyStore(MemoryKeyring())
        sandbox = make_sandbox("sb") if beside is None else beside.sandbox
        desk = build_desk(desk_paths, desk_keys, ledger_url=pg_url)
        loop.run(desk.open())
        loop.run(desk.naming.rename("Counter 1" if beside is None else "Finance"))
        window = MainWindow(desk)
        qtbot.addWidget(window)
        window.resize(1300, 900)
        window.show()
        if beside is None:
            use_profile(
                loop,
                desk.session,
                sandbox,
                name="Corner Shop",
                txref_prefix="SHOP",
                currencies=["GBP", "USD"],
                discover=True,
            )
        if background:
            desk.start_background()
            loop.until(lambda: desk.live.keeper.state.holder is not None, message="the poller lease held")
        window.start_up_done()
        loop.until(lambda: window.links_tab.loaded, message="the links tab")
        shop = Shop(desk, window, sandbox, loop, pg_server, crashes)
        made.append(shop)
        return shop

    yield make
    for shop in made:
        with contextlib.suppress(RuntimeError):  # deleted with the others already
            shop.window.close()
        loop.run(shop.desk.close())
