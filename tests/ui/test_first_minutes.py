"""The first minutes with PayDesk, as a new user meets them: the embedded sandbox keeps its
address, a start uses up no reference, no display gives a plain message, crash text is text."""

import os
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from PySide6.QtCore import QStandardPaths, Qt
from PySide6.QtWidgets import QLabel

from paydesk.app import NO_DISPLAY, display_problem
from paydesk.config.paths import default_paths
from paydesk.ui.crash import CrashDialog, ExceptionHook
from tests import conftest
from tests.ui import press
from tests.ui.test_links import create, fill


def test_a_link_still_opens_pays_and_is_watched_after_a_restart(start_app, loop):
    """Regression: the sandbox took a new port at every start; every earlier QR pointed at a
    closed port."""
    first = start_app(sandbox=True).on_links_tab(size=None)
    base = first.session.profile.base_url
    fill(first.window.links_tab)
    record = create(first.window.links_tab, loop)
    assert first.close() == 0

    again = start_app(sandbox=True).on_links_tab(size=None)
    assert again.session.profile.base_url == base == again.session.sandbox.base_url
    assert httpx.get(record.checkout_url).status_code == 200  # the old QR opens
    assert f"Sandbox running at {base}" in again.window.last_call.text()
    tab = again.window.links_tab
    assert tab.recent.state_of(record.tx_ref) == "WAITING FOR PAYMENT"
    secret = loop.run(again.session.key("test"))
    httpx.post(
        f"{base}/_sandbox/pay/{record.reference}",
        json={"outcome": "success"},
        headers={"Authorization": f"Bearer {secret}"},
    ).raise_for_status()
    loop.until(
        lambda: tab.recent.state_of(record.tx_ref) == "PAID", timeout=30, message="the earlier link watched to PAID"
    )
    assert again.close() == 0


def test_a_taken_port_moves_the_sandbox_and_says_so(start_app, loop):
    first = start_app(sandbox=True).on_links_tab(size=None)
    port = urlsplit(first.session.profile.base_url).port
    assert first.close() == 0
    squatter = socket.socket()
    # like any server: the first session's closed connections may still be in TIME_WAIT
    squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    squatter.bind(("127.0.0.1", port))
    squatter.listen(1)  # another program took the port meanwhile
    try:
        again = start_app(sandbox=True).on_links_tab(size=None)
        moved = urlsplit(again.session.profile.base_url).port
        assert moved != port and again.session.sandbox is not None
        text = again.window.last_call.text()
        assert f"usual port {port} is taken" in text and f"port {moved} for now" in text
        assert again.session.profile.sandbox_port == port  # still its own
        assert again.close() == 0
    finally:
        squatter.close()
    # the port is free again: the sandbox is back at its usual address, and so are old links
    back = start_app(sandbox=True).on_links_tab(size=None)
    assert urlsplit(back.session.profile.base_url).port == port
    assert back.close() == 0


def test_a_start_uses_up_no_reference(start_app, loop):
    first = start_app(sandbox=True).on_links_tab(size=None)
    shown = first.window.links_tab.form.tx_ref.text()
    assert first.close() == 0
    again = start_app(sandbox=True).on_links_tab(size=None)
    assert again.window.links_tab.form.tx_ref.text() == shown
    fill(again.window.links_tab)
    made = create(again.window.links_tab, loop)
    assert made.tx_ref == shown
    following = again.window.links_tab.form.tx_ref.text()
    assert following != shown and following.split("-")[3][:4] == "0002"
    assert again.close() == 0


def test_no_display_says_so_plainly():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run([sys.executable, "-m", "paydesk"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"paydesk: {NO_DISPLAY} (neither DISPLAY nor WAYLAND_DISPLAY is set).")
    assert "plugin" not in done.stderr and "Aborted" not in done.stderr


def test_what_counts_as_a_display():
    assert display_problem({"DISPLAY": ":9999"}, "linux").endswith("(nothing answers on display :9999).")
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert display_problem({}, "win32") is None


def test_crash_text_is_shown_as_text(qapp, qtbot, tmp_path):
    """Regression: the service's words were rendered as rich text in the crash dialog."""
    hook = ExceptionHook(tmp_path / "paydesk.log")
    try:
        raise RuntimeError("<b>bold</b> <img src='http://evil.example/x.png'> <a href='x'>here</a>")
    except RuntimeError:
        hook(*sys.exc_info())
    dialog: CrashDialog = hook.dialogs[-1]
    qtbot.addWidget(dialog)
    summary = dialog.findChild(QLabel, "crash-summary")
    assert summary.textFormat() == Qt.TextFormat.PlainText
    assert "<b>bold</b> <img src='http://evil.example/x.png'>" in summary.text()
    assert all(label.textFormat() != Qt.TextFormat.RichText for label in dialog.findChildren(QLabel))
    press.click(press.button(dialog, "Close"))


def test_tests_never_write_into_the_real_home(qapp):
    """Regression: the file-dialog tests wrote Qt's dialog state into ~/.config of the
    machine running them. The suite runs with its own HOME and XDG folders."""
    home = Path(os.environ["HOME"])
    assert home == conftest.TEST_HOME != conftest.REAL_HOME
    for kind in (
        QStandardPaths.StandardLocation.ConfigLocation,
        QStandardPaths.StandardLocation.GenericDataLocation,
        QStandardPaths.StandardLocation.CacheLocation,
    ):
        assert Path(QStandardPaths.writableLocation(kind)).is_relative_to(home)
    paths = default_paths()
    assert paths.data.is_relative_to(home) and paths.sandbox.is_relative_to(home)
