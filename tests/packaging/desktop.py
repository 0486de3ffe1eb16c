"""A desktop session of our own for the installed app: a virtual X screen (Xvfb), a private
D-Bus session bus (on which at-spi2-core starts the accessibility bus when Qt asks for it),
and gnome-keyring's Secret Service, unlocked, in a throw-away HOME. Plus what a person
would do at that screen: look at it (a screenshot from the X server) and press keys."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.helpers import need_system, start_xvfb

# Qt (this test run's own, on the xcb platform) reads the root window back from the X server
GRAB = (
    "import sys; from PySide6.QtGui import QGuiApplication; app = QGuiApplication([]); "
    "sys.exit(0 if app.primaryScreen().grabWindow(0).save(sys.argv[1]) else 1)"
)


@dataclass(frozen=True)
class Desktop:
    display: str
    env: dict  # DISPLAY, DBUS_SESSION_BUS_ADDRESS, HOME, XDG_RUNTIME_DIR

    def screenshot(self, path: Path) -> Path:
        env = {k: v for k, v in os.environ.items() if not k.startswith("QT_")}
        env.update(self.env, QT_QPA_PLATFORM="xcb")
        subprocess.run([sys.executable, "-c", GRAB, str(path)], env=env, check=True, timeout=60)
        return path

    def xdotool(self, *args: str) -> str:
        xdotool = need_system("xdotool", "xdotool")
        return subprocess.run(
            [xdotool, *args], env=dict(os.environ, **self.env), check=True, capture_output=True, text=True, timeout=30
        ).stdout.strip()


@contextmanager
def desktop_session(tmp: Path):
    need_system("dbus-daemon", "dbus")
    keyring = need_system("gnome-keyring-daemon", "gnome-keyring")
    if not Path("/usr/libexec/at-spi-bus-launcher").exists():
        need_system("at-spi-bus-launcher", "at-spi2-core")
    home, runtime = tmp / "home", tmp / "run"
    home.mkdir()
    runtime.mkdir(mode=0o700)
    started: list[subprocess.Popen] = []
    dbus_pid = None
    try:
        xvfb, display = start_xvfb(tmp)
        started.append(xvfb)
        out = subprocess.run(
            ["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout.split()
        address, dbus_pid = out[0], int(out[1])
        env = {
            "DISPLAY": display,
            "DBUS_SESSION_BUS_ADDRESS": address,
            "HOME": str(home),
            "XDG_RUNTIME_DIR": str(runtime),
        }
        daemon_env = {k: v for k, v in os.environ.items() if not k.startswith(("DBUS_", "GNOME_"))}
        with open(tmp / "keyring.log", "w") as log:
            gk = subprocess.Popen(
                [keyring, "--foreground", "--unlock", "--components=secrets"],
                env=dict(daemon_env, **env),
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        started.append(gk)
        gk.stdin.write(b"paydesk-smoke")  # the login keyring's password, then end of input
        gk.stdin.close()
        yield Desktop(display=display, env=env)
    finally:
        for proc in reversed(started):
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if dbus_pid:  # the accessibility bus and its registry leave with the session bus
            os.kill(dbus_pid, 15)
