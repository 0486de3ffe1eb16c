"""The customer display on a monitor of its own is untouched by the staff's lock: locked
by Ctrl+L, by the idle minutes, or switched to another person, it shows the same sale, full
screen, on the customer's screen. Qt's offscreen platform has one screen unless told
otherwise, so these run in a PayDesk test process of their own with two screens
(``test_on_two_screens``, as tests/ui/counter/test_monitor.py does)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from tests.ui import press
from tests.ui.counter.conftest import SHOP_EMAIL, Counter
from tests.ui.staff.conftest import ADMIN, ADMIN_PIN, COUNTER, COUNTER_PIN, person_shown, sign_in
from tests.ui.staff.test_sign_in import locked
from tests.ui.test_links import decode_qr

TWO = "PAYDESK_TEST_STAFF_TWO_SCREENS"
CUSTOMER = "Right, 1280×800 (Customer)"
SCREENS = {
    "screens": [
        {"name": name, "x": x, "y": 0, "width": 1280, "height": 800, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}
        for name, x in (("Staff", 0), ("Customer", 1280))
    ]
}
on_two_screens = pytest.mark.skipif(not os.environ.get(TWO), reason="run with two screens by test_on_two_screens")


def test_on_two_screens(tmp_path):
    """This module's tests, in a process whose offscreen platform has two screens."""
    if os.environ.get(TWO):
        pytest.skip("already on two screens")
    config = tmp_path / "screens.json"
    config.write_text(json.dumps(SCREENS))
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={config}", **{TWO: "1"})
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", __file__, "-q", "-p", "no:xdist", "-p", "no:cacheprovider"]
        + ["-k", "not test_on_two_screens"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-2000:]


def _said(display) -> list[str]:
    view = display.view
    return [label.text() for label in view.findChildren(QLabel) if label.isVisibleTo(view) and label.text()]


@on_two_screens
def test_the_customer_display_is_untouched_by_the_lock_and_a_switch(staffed, loop):
    app = staffed
    assert len(QApplication.screens()) == 2
    loop.run(app.session.save_profile(replace(app.session.profile, shop_email=SHOP_EMAIL), {}))
    press.click(app.window.gate.lock_button)
    loop.until(lambda: locked(app), message="locked")
    sign_in(app, loop, COUNTER, COUNTER_PIN)
    loop.until(lambda: person_shown(app) == "Bo · Counter", message="Bo signed in")
    counter = Counter(app, loop)
    loop.until(lambda: counter.tab.isVisible() and counter.tab.loaded, message="the Counter tab")
    place = counter.tab.place
    press.choose(place.screens, CUSTOMER)
    press.click(place.toggle)
    display = place.display
    assert display is not None and display.isVisible() and display.isFullScreen()
    sale = counter.sell("9")
    loop.until(lambda: "WAITING FOR PAYMENT" in _said(display), message="the sale on the display")
    before = _said(display)
    assert decode_qr(display.view.qr) == [sale.record.checkout_url]

    press.key(counter.tab.amount, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    loop.until(lambda: locked(app), message="locked by Ctrl+L")
    assert display.isVisible() and display.isFullScreen() and display.screen().name() == "Customer"
    assert _said(display) == before and decode_qr(display.view.qr) == [sale.record.checkout_url]

    sign_in(app, loop, ADMIN, ADMIN_PIN)  # another person at the locked counter
    loop.until(lambda: person_shown(app) == "Ana · Admin", message="Ana signed in")
    assert display.isVisible() and display.isFullScreen() and _said(display) == before
    assert decode_qr(display.view.qr) == [sale.record.checkout_url]
