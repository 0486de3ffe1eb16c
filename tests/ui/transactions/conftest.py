"""A shop on its own sandbox (strict, --quirks or --family), its main window, and
helpers to make and settle payments the way customers and the service would."""

from dataclasses import dataclass
from decimal import Decimal

import httpx
import pytest
from PySide6.QtCore import Qt

from paydesk.config.profiles import Profile
from paydesk.desk.build import build_desk
from paydesk.desk.session import Session
from paydesk.service.models import PaymentRequest
from paydesk.ui.main_window import MainWindow
from tests.profiles import use_profile
from tests.ui import press


@dataclass
class Shop:
    session: Session
    window: MainWindow
    sandbox: object
    loop: object
    profile: Profile

    @property
    def tab(self):
        return self.window.transactions_tab

    def create(self, ref: str, amount=25, mode="test", **over) -> object:
        """A link made here, through the links controller (written to the ledger first)."""
        fields = dict(
            amount=Decimal(amount),
            currency="GBP",
            email="ada@example.com",
            first_name="Ada",
            last_name="Lovelace",
            tx_ref=ref,
            title="Flat white",
            description="Oat milk",
        )  # the family's server requires both
        fields.update(over)
        if mode != self.session.mode:
            self.loop.run(self.session.set_mode(mode))
        return self.loop.run(self.window.links.create(PaymentRequest(**fields)))

    def control(self, path: str, body: dict, mode="test") -> dict:
        return self.sandbox.control(path, body, mode=mode)  # tests/helpers.py

    def faults(self, mode="test", **body) -> None:
        self.sandbox.faults(mode=mode, **body)

    def website_payment(self, ref: str, amount="40") -> httpx.Response:
        """A customer on the merchant's website: the form post, with the public key."""
        return httpx.post(
            f"{self.sandbox.base_url}/ext_transfer",
            data={
                "secret_key": self.sandbox.key("test", "public"),
                "tx_ref": ref,
                "amount": amount,
                # the family's form reads the key from public_key, and requires a description
                "public_key": self.sandbox.key("test", "public"),
                "currency": "USD",
                "email": "web@example.com",
                "first_name": "Wes",
                "last_name": "Site",
                "title": "Web order",
                "description": "From the website",
            },
        )

    def calls(self, mode="test") -> list[str]:
        """The paths of every /api/ call the service received from this merchant."""
        return [call["path"] for call in self.call_log(mode)]

    def call_log(self, mode="test") -> list[dict]:
        """Every /api/ call of this merchant: method, path, time and the status answered."""
        r = httpx.get(
            f"{self.sandbox.base_url}/_sandbox/requests", headers={"Authorization": f"Bearer {self.sandbox.key(mode)}"}
        )
        r.raise_for_status()
        return r.json()["data"]

    def lookup(self, text: str):
        """Type (or paste, or scan) ``text`` into Look up and press Enter; the lookup's outcome."""
        box = self.tab.lookup_box
        press.type_into(box, text)
        return self.loop.run(press.starting("lookup", lambda: press.enter(box)), timeout=60)

    def refresh(self):
        """F5 on the Transactions tab: the list read again from the ledger."""
        press.key(self.tab, Qt.Key.Key_F5)  # wherever the keyboard is in the tab


def open_shop(loop, qtbot, paths, keys, sandbox) -> Shop:
    desk = build_desk(paths, keys)
    session = desk.session
    loop.run(desk.open())
    window = MainWindow(desk)
    qtbot.addWidget(window)
    window.resize(1300, 900)
    window.show()
    # found out as the profile editor's Save does: cards, and where it looks payments up
    profile = use_profile(
        loop, session, sandbox, name="Corner Shop", txref_prefix="SHOP", currencies=["GBP", "USD"], discover=True
    )
    desk.start_background()
    window.start_up_done()
    press.tab(window.tabs, "Transactions")
    loop.until(lambda: window.transactions_tab.loaded, message="the transactions tab")
    return Shop(session, window, sandbox, loop, profile)


def pytest_generate_tests(metafunc):
    """A module whose tests take ``shop`` runs them strict and with --quirks, unless its
    ``pytestmark = pytest.mark.dialects(...)`` names the dialects (tests/conftest.py)."""
    from tests import dialects

    if "shop" in metafunc.fixturenames and metafunc.definition.get_closest_marker("dialects") is None:
        metafunc.parametrize("dialect", dialects.params("strict", "quirks"))


@pytest.fixture
def shop(dialect, make_sandbox, paths, keys, loop, qtbot):
    """The shop on a sandbox of the module's dialects (strict and --quirks unless it says)."""
    from tests import dialects

    sandbox = make_sandbox("sb", base_path="/pay", **dialects.options(dialect))
    opened = open_shop(loop, qtbot, paths, keys, sandbox)
    yield opened
    opened.window.close()
    loop.run(opened.session.close())


@pytest.fixture
def strict_shop(make_sandbox, paths, keys, loop, qtbot):
    sandbox = make_sandbox("sb", base_path="/pay")
    opened = open_shop(loop, qtbot, paths, keys, sandbox)
    yield opened
    opened.window.close()
    loop.run(opened.session.close())
