"""The installed `paydesk --sandbox`, on a virtual X screen, driven from outside as a person
with a screen reader would: fill in the link form, create the link, read its QR code off
the screen, pay it (the sandbox's control API stands in for the customer's phone), see it
turn to PAID, quit with Ctrl+Q. A screenshot of the window is kept with the test's output.

Why the accessibility bus (AT-SPI) rather than keystrokes and coordinates: it finds each
control by its visible name wherever the layout puts it, sets text the way assistive
technology does, and reads the state label's words rather than guessing from pixels; it is
also how PayDesk promises to be usable. Only Ctrl+Q is a real key press (xdotool), because a
shortcut has no accessible object. Nothing in PayDesk is there for this test."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from PySide6.QtGui import QImage

from tests.helpers import decode_qr_file as decode_qr

from . import atspi
from .conftest import OUTPUT
from .desktop import desktop_session

pytestmark = pytest.mark.packaging

FORM = {"Amount": "25", "Customer e-mail": "ada@example.com", "First name": "Ada", "Last name": "Lovelace"}


@pytest.fixture
def desktop(tmp_path):
    with desktop_session(tmp_path) as session:
        yield session


def test_installed_app_creates_shows_and_sees_a_link_paid(installed, no_python_env, desktop, tmp_path, qapp):
    OUTPUT.mkdir(parents=True, exist_ok=True)
    env = dict(no_python_env, **desktop.env, QT_QPA_PLATFORM="xcb", QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1")
    log = tmp_path / "paydesk.out"
    with log.open("w") as out:
        app = subprocess.Popen(["paydesk", "--sandbox"], env=env, stdout=out, stderr=subprocess.STDOUT)
    bus = None
    try:
        bus = atspi.connect(desktop.env["DBUS_SESSION_BUS_ADDRESS"])
        root = atspi.application(bus, "PayDesk", timeout=60)
        atspi.find(
            root, "label", lambda n: n.startswith("Last call: Sandbox running at "), timeout=60
        )  # start-up is over
        for name, value in FORM.items():
            atspi.find(root, "text", name).set_text(value)
        atspi.find(root, "push button", "Create link").press()
        atspi.find(root, "label", "State: WAITING FOR PAYMENT", timeout=30)
        tx_ref = atspi.find(root, "label", lambda n: n.startswith("Reference SBX-")).name.split()[1]

        shown = desktop.screenshot(OUTPUT / "smoke-waiting.png")
        urls = decode_qr(shown)
        assert len(urls) == 1, f"QR codes read off the screen: {urls} (see {shown})"
        base, reference = urls[0].rsplit("/payment/", 1)
        checkout = httpx.get(urls[0], timeout=10)  # the customer's phone opens the link
        assert checkout.status_code == 200 and "GBP 25" in checkout.text.replace("\n", " ")

        keys = json.loads((Path(env["PAYDESK_SANDBOX_HOME"]) / "merchants.json").read_text())
        secret = {"Authorization": f"Bearer {keys[0]['keys']['test']['secret']}"}
        paid = httpx.post(f"{base}/_sandbox/pay/{reference}", json={"outcome": "success"}, headers=secret, timeout=10)
        assert paid.status_code == 200, paid.text
        # the link on the screen is the one PayDesk shows the reference of
        looked_up = httpx.get(f"{base}/api/transaction/{tx_ref}", headers=secret, timeout=10)
        assert looked_up.status_code == 200, looked_up.text
        assert looked_up.json()["data"]["reference"] == reference
        atspi.find(root, "label", "State: PAID", timeout=60)
        # a paid code is dimmed and marked PAID, so no customer can scan it again: wait for
        # the repaint that follows the new state (a screenshot every half second, 20 s at most)
        deadline = time.monotonic() + 20
        while True:
            time.sleep(0.5)
            screen = desktop.screenshot(OUTPUT / "smoke-paid.png")
            if not decode_qr(screen) or time.monotonic() > deadline:
                break
        window = atspi.find(root, "frame", lambda n: n.startswith("PayDesk"))
        x, y, width, height = window.extents()
        QImage(str(screen)).copy(x, y, width, height).save(str(OUTPUT / "links-tab.png"))
        assert decode_qr(screen) == [], f"the paid link's code still scans (see {screen})"

        window_id = desktop.xdotool("search", "--onlyvisible", "--name", "^PayDesk").split()[0]
        desktop.xdotool("windowfocus", "--sync", window_id)
        desktop.xdotool("key", "ctrl+q")
        assert app.wait(60) == 0, log.read_text()[-3000:]
    finally:
        if bus is not None:
            bus.close()
        if app.poll() is None:
            app.kill()
            app.wait(10)
    history = (Path(env["PAYDESK_HOME"]) / "logs" / "paydesk.log").read_text()
    assert "keys in SecretService" in history  # the bundle found keyring's Secret Service backend
    assert "PayDesk stopped" in history  # the orderly shutdown, not a kill
