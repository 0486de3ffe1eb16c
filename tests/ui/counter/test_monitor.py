"""The customer display on a monitor of its own, on a counter with two screens: the staff's
and the customer's. Qt's offscreen platform has one screen unless told otherwise (a
configuration file, read once when the application starts), so these tests run in a
PayDesk test process of their own started with two screens (``test_on_two_screens``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from paydesk.i18n import _
from paydesk.ui.counter.place import THIS_SCREEN
from tests.ui import press
from tests.ui.counter.conftest import SHOP_EMAIL, open_counter_tab
from tests.ui.test_links import decode_qr

TWO = "PAYDESK_TEST_TWO_SCREENS"
CUSTOMER = "Right, 1280×800 (Customer)"  # where it stands, its size, the system's name
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
        [
            sys.executable,
            "-m",
            "pytest",
            __file__,
            "-q",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
            "-k",
            "not test_on_two_screens",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-2000:]


def _counter(start_app, loop):
    app = start_app(sandbox=True)
    app.on_links_tab()
    session = app.session
    loop.run(session.save_profile(replace(session.profile, shop_email=SHOP_EMAIL), {}))
    counter = open_counter_tab(app, loop)
    assert [s.name() for s in QApplication.screens()] and len(QApplication.screens()) == 2
    assert app.window.screen().name() == "Staff"
    return counter


def _choices(combo) -> list[str]:
    return [combo.itemText(i) for i in range(combo.count())]


@on_two_screens
def test_the_display_leaves_the_keyboard_with_the_staff(start_app, loop):
    counter = _counter(start_app, loop)
    tab, window = counter.tab, counter.window
    place = tab.place
    # the staff's own screen is not offered: a full-screen display would cover the till
    assert _choices(place.screens) == [CUSTOMER, _(THIS_SCREEN)]
    press.choose(place.screens, CUSTOMER)
    press.click(place.toggle)
    display = place.display
    assert display is not None and display.isVisible() and display.isFullScreen()
    assert display.screen().name() == "Customer"
    assert display.windowTitle() == "PayDesk customer display"
    assert place.toggle.text() == "Close customer display" and not place.beside.isVisible()
    # the keyboard is still the staff's: digits typed land in the Amount box, Enter sells
    loop.until(lambda: QApplication.activeWindow() is not None, message="an active window")
    assert QApplication.activeWindow() is window
    assert press.at_keyboard("8") is tab.amount and tab.amount.text() == "8"
    task = press.starting("sell", lambda: press.at_keyboard(which=Qt.Key.Key_Return))
    sale = loop.run(task, timeout=60)
    assert sale is not None and decode_qr(display.view.qr) == [sale.record.checkout_url]
    assert QApplication.activeWindow() is window and QApplication.focusWidget() is tab.amount
    display.close()  # the customer's side (the window's close button): it stays
    assert display.isVisible()
    press.click(place.toggle)
    assert press.closed(display) and place.toggle.text() == "Open customer display"


@on_two_screens
def test_a_monitor_unplugged_brings_the_view_beside_the_amount_box(start_app, loop, qapp):
    counter = _counter(start_app, loop)
    tab = counter.tab
    place = tab.place
    press.choose(place.screens, CUSTOMER)
    press.click(place.toggle)
    display = place.display
    sale = counter.sell("6")
    customer = display.screen()
    assert customer.name() == "Customer"
    # Qt's offscreen platform cannot unplug a screen: the signal the app receives when one is
    # (the screen is still listed by Qt here, as it is no more after a real unplugging)
    qapp.screenRemoved.emit(customer)
    assert press.closed(display), "a full-screen display left for Qt to move onto the till"
    assert [w for w in QApplication.topLevelWidgets() if w.isVisible() and w.isFullScreen()] == []
    assert _choices(place.screens) == [_(THIS_SCREEN)]
    assert place.beside.isVisible() and place.toggle.text() == "Close customer display"
    assert decode_qr(place.beside.qr) == [sale.record.checkout_url]
    assert QApplication.focusWidget() is tab.amount
    # plugged in again: offered again, the view stays where it is until the staff chooses
    qapp.screenAdded.emit(customer)
    assert _choices(place.screens) == [CUSTOMER, _(THIS_SCREEN)]
    assert place.screens.currentText() == _(THIS_SCREEN) and place.beside.isVisible()


def test_where_a_monitor_stands_is_said_as_a_person_sees_it():
    """Three monitors in a row, one above and one below: each named by where it stands on
    the desktop they make together."""
    from PySide6.QtCore import QRect

    from paydesk.ui.counter.monitors import place_word

    row = [QRect(0, 0, 1280, 1024), QRect(1280, 0, 1920, 1080), QRect(3200, 0, 1280, 1024)]
    desktop = row[0].united(row[1]).united(row[2])
    assert [place_word(g, desktop) for g in row] == ["Left", "Middle", "Right"]
    column = [QRect(0, 0, 1920, 1080), QRect(0, 1080, 1920, 1080)]
    desktop = column[0].united(column[1])
    assert [place_word(g, desktop) for g in column] == ["Above", "Below"]
