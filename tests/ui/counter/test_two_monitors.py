"""The customer display on a real two-monitor X server, as on a counter with two monitors.

The server is Xorg with its dummy video driver, whose outputs are set with ``xrandr`` as a
shop's monitors are: DUMMY0, 1280×1024 on the left (the primary, the staff's), and DUMMY1,
1920×1080 on its right (the customer's). A window manager (Openbox) places, stacks and focuses
the windows as a desktop does. PayDesk's counter runs there in a child process on Qt's xcb
platform (``test_on_two_monitors``), and what the X server and the window manager report is
checked: where the display window is, that it is full screen and kept above, and where the
keys typed on the X server's keyboard (``xdotool``, through XTEST) land.

Tried first and not kept: Xvfb with two ``-screen``s gives Qt two screens named "screen",
each a display of its own at (0, 0) (no left or right, and a window cannot move between
them); with ``+xinerama`` Qt sees only the first; ``xrandr --setmonitor`` on Xvfb is refused
(BadValue). Xorg's dummy driver has sixteen RandR outputs, of which ``xrandr`` turns on two.
The window manager is Openbox: like GNOME's, it lets another window come above a full-screen
window that has not the focus, so the display's staying above is tested (xfwm4 keeps every
full-screen window on top, which would pass whatever PayDesk asks).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from paydesk.i18n import _
from paydesk.ui.counter.place import THIS_SCREEN
from tests.helpers import need_system
from tests.ui import press
from tests.ui.counter.conftest import SHOP_EMAIL, open_counter_tab
from tests.ui.test_links import decode_qr
from tests.waiting import until

TWO = "PAYDESK_TEST_TWO_MONITORS"
DUMMY_DRIVER = "/usr/lib/xorg/modules/drivers/dummy_drv.so"
CUSTOMER = "Right, 1920×1080 (DUMMY1)"
XORG_CONF = """\
Section "ServerFlags"
  Option "AutoAddDevices" "false"
  Option "AutoAddGPU" "false"
  Option "DontVTSwitch" "true"
EndSection
Section "Device"
  Identifier "dummy"
  Driver "dummy"
  VideoRam 256000
EndSection
Section "Monitor"
  Identifier "monitor"
  HorizSync 5.0-1000.0
  VertRefresh 5.0-200.0
EndSection
Section "Screen"
  Identifier "screen"
  Device "dummy"
  Monitor "monitor"
  DefaultDepth 24
  SubSection "Display"
    Depth 24
    Virtual 3200 1080
  EndSubSection
EndSection
"""
on_two_monitors = pytest.mark.skipif(not os.environ.get(TWO), reason="run on two monitors by test_on_two_monitors")


def _x(*command: str, display: str) -> str:
    done = subprocess.run(command, env=dict(os.environ, DISPLAY=display), capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, f"{' '.join(command)}: {done.stderr}"
    return done.stdout


def _start(command: list[str], log: Path, **kw) -> subprocess.Popen:
    with log.open("w") as out:  # the process has its own copy of the file: ours is closed
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, **kw)


@pytest.fixture
def two_monitors(tmp_path):
    """An X server with two monitors side by side and a window manager: its DISPLAY."""
    xorg = need_system("Xorg", "xserver-xorg-core")
    if not os.path.exists(DUMMY_DRIVER):
        message = (
            "needs Xorg's dummy video driver from Debian's package "
            "'xserver-xorg-video-dummy' (apt-get install xserver-xorg-video-dummy)"
        )
        if os.environ.get("CI"):
            pytest.fail(message + "; .ci/run should have installed it")
        pytest.skip(message)
    need_system("xrandr", "x11-xserver-utils")
    need_system("xprop", "x11-utils")
    need_system("xdotool", "xdotool")
    wm = need_system("openbox", "openbox")
    conf = tmp_path / "xorg.conf"
    conf.write_text(XORG_CONF)
    read, write = os.pipe()
    server = _start(
        [
            xorg,
            "-displayfd",
            str(write),
            "-config",
            str(conf),
            "-noreset",
            "-nolisten",
            "tcp",
            "-logfile",
            str(tmp_path / "Xorg.log"),
        ],
        tmp_path / "xorg.out",
        pass_fds=(write,),
    )
    os.close(write)
    started = []
    try:
        with os.fdopen(read) as numbers:
            number = numbers.readline().strip()
        assert number, f"Xorg did not start: {(tmp_path / 'xorg.out').read_text()[-2000:]}"
        display = f":{number}"
        _x("xrandr", "--output", "DUMMY0", "--mode", "1280x1024", "--pos", "0x0", "--primary", display=display)
        _x("xrandr", "--addmode", "DUMMY1", "1920x1080", display=display)
        _x("xrandr", "--output", "DUMMY1", "--mode", "1920x1080", "--pos", "1280x0", display=display)
        monitors = _x("xrandr", "--listmonitors", display=display)
        assert "Monitors: 2" in monitors, monitors
        env = dict(os.environ, DISPLAY=display)
        started.append(_start([wm, "--sm-disable"], tmp_path / "wm.out", env=env))
        until(
            lambda: subprocess.run(["xdotool", "get_num_desktops"], env=env, capture_output=True).returncode == 0,
            20,
            "the window manager",
            every=0.1,
        )
        yield display
    finally:
        for process in [*started, server]:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()


def test_on_two_monitors(two_monitors, tmp_path):
    """This module's tests, in a PayDesk test process on the two-monitor X server."""
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.update(DISPLAY=two_monitors, QT_QPA_PLATFORM="xcb", **{TWO: "1"})
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
            "not test_on_two_monitors",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-2000:]


def _window_id(widget) -> str:
    return str(int(widget.winId()))


def _xdotool(*args: str) -> str:
    return _x("xdotool", *args, display=os.environ["DISPLAY"])


def _on_x(widget) -> tuple[int, int, int, int]:
    """Where the X server has the window: x, y, width, height on the whole desktop."""
    shell = dict(line.split("=", 1) for line in _xdotool("getwindowgeometry", "--shell", _window_id(widget)).split())
    return int(shell["X"]), int(shell["Y"]), int(shell["WIDTH"]), int(shell["HEIGHT"])


def _wm_state(widget) -> str:
    return _x("xprop", "-id", _window_id(widget), "_NET_WM_STATE", display=os.environ["DISPLAY"])


def _stacking() -> list[int]:
    """The window manager's windows, bottom to top."""
    text = _x("xprop", "-root", "_NET_CLIENT_LIST_STACKING", display=os.environ["DISPLAY"])
    return [int(word.strip(","), 16) for word in text.split("#", 1)[1].split()]


@on_two_monitors
def test_the_display_opens_full_screen_on_the_chosen_monitor(start_app, loop):
    app = start_app(sandbox=True)
    app.on_links_tab()
    loop.run(app.session.save_profile(replace(app.session.profile, shop_email=SHOP_EMAIL), {}))
    loop.until(lambda: QApplication.activeWindow() is app.window, message="the window active")
    counter = open_counter_tab(app, loop)
    tab, window = counter.tab, counter.window
    assert QApplication.platformName() == "xcb"
    assert [s.name() for s in QApplication.screens()] == ["DUMMY0", "DUMMY1"]
    assert window.screen().name() == "DUMMY0"
    loop.until(lambda: QApplication.activeWindow() is window, message="the staff's window active")
    place = tab.place
    # named as the system names it, with its size and where it stands
    assert [place.screens.itemText(i) for i in range(place.screens.count())] == [CUSTOMER, _(THIS_SCREEN)]
    press.choose(place.screens, CUSTOMER)
    press.click(place.toggle)
    display = place.display
    assert display is not None
    # full screen on the customer's monitor, as the X server and the window manager see it
    loop.until(
        lambda: display.isVisible() and _on_x(display) == (1280, 0, 1920, 1080),
        message="the display full screen on the right monitor",
    )
    assert display.screen().name() == "DUMMY1" and display.isFullScreen()
    state = _wm_state(display)
    assert "_NET_WM_STATE_FULLSCREEN" in state, state
    assert _on_x(window)[0] < 1280, "the staff's window left its monitor"
    # the keyboard stays with the staff: keys typed on the X server's keyboard land in Amount
    loop.until(lambda: QApplication.activeWindow() is window, message="the staff's window active")
    _xdotool("type", "--delay", "20", "8")
    loop.until(lambda: tab.amount.text() == "8", message="8 typed into the Amount box")
    assert QApplication.focusWidget() is tab.amount
    _xdotool("key", "Return")
    loop.until(
        lambda: (
            counter.tab.controller.current is not None
            and counter.tab.controller.current.record is not None
            and bool(counter.tab.controller.current.record.checkout_url)
        ),
        60,
        "the sale's code",
    )
    sale = counter.tab.controller.current
    loop.until(
        lambda: decode_qr(display.view.qr) == [sale.record.checkout_url], message="the code on the customer's monitor"
    )
    assert QApplication.activeWindow() is window and QApplication.focusWidget() is tab.amount
    # the staff's window raised and activated (as a click on it does) stays below the display
    _xdotool("windowactivate", "--sync", _window_id(window))
    loop.until(lambda: QApplication.activeWindow() is window, message="the staff's window active")
    stack = _stacking()
    assert stack.index(int(display.winId())) > stack.index(int(window.winId())), stack
    # another window moved onto the customer's monitor and activated stays below it too
    other = QWidget(None, Qt.WindowType.Window)
    other.setWindowTitle("Another program")
    other.resize(600, 400)
    other.show()
    loop.until(lambda: other.windowHandle().isExposed(), message="another window")
    _xdotool("windowmove", "--sync", _window_id(other), "1500", "200")
    _xdotool("windowactivate", "--sync", _window_id(other))
    loop.until(lambda: QApplication.activeWindow() is other, message="another window active")
    stack = _stacking()
    assert stack.index(int(display.winId())) > stack.index(int(other.winId())), stack
    other.close()
    _xdotool("windowactivate", "--sync", _window_id(window))
    press.click(place.toggle)
    assert press.closed(display) and place.toggle.text() == "Open customer display"
