"""The real system keyring (Secret Service from gnome-keyring, in a private D-Bus session):
keys saved by PayDesk, read back after a restart, deleted; no key on disk anywhere."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import need_system


def _keys_in(folder: Path, secrets: list[str]) -> list[str]:
    found = []
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += [f"{path.name}: {s[:12]}…" for s in secrets if s.encode() in data]
    return found


@pytest.fixture
def dbus_session(tmp_path):
    need_system("dbus-run-session", "dbus")
    need_system("gnome-keyring-daemon", "gnome-keyring")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBUS_", "GNOME_KEYRING"))}
    env.update(
        HOME=str(home),
        PAYDESK_HOME=str(tmp_path / "data"),
        PAYDESK_SANDBOX_HOME=str(tmp_path / "sandbox"),
        QT_QPA_PLATFORM="offscreen",
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_RUNTIME_DIR=str(tmp_path / "run"),
    )
    (tmp_path / "run").mkdir(mode=0o700)

    def run(script: str) -> str:
        unlock = "echo -n paydesk-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null\n"
        done = subprocess.run(
            ["dbus-run-session", "--", "bash", "-ec", unlock + script],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    return run, env, tmp_path


def test_keys_survive_restart_and_are_deleted(dbus_session):
    run, env, tmp = dbus_session
    py = sys.executable
    out = run(f"""
        export PAYDESK_QUIT_AFTER=1.5
        {py} -m paydesk --sandbox
        {py} -m tests.ui.keyring_probe read
        {py} -m paydesk
        {py} -m tests.ui.keyring_probe read
        {py} -m tests.ui.keyring_probe delete
    """)
    first, second, deleted = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    merchants = json.loads((tmp / "sandbox" / "merchants.json").read_text())
    expected = {
        f"{mode}/{kind}": merchants[0]["keys"][mode][kind] for mode in ("test", "live") for kind in ("secret", "public")
    }
    assert first["persistent"] is True and "Secret" in first["backend"]
    assert first["keys"] == expected  # saved by the first run
    assert second["keys"] == expected  # still there after the app restarted
    assert deleted["keys"] == {k: None for k in expected}
    log = (tmp / "data" / "logs" / "paydesk.log").read_text()
    assert "keys in memory" not in log and "keys in Secret" in log
    secrets = list(expected.values())
    assert _keys_in(tmp / "data", secrets) == []  # profiles, window state (QSettings), logs


def test_without_a_keyring_keys_stay_in_memory(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBUS_", "GNOME_KEYRING"))}
    env.update(
        HOME=str(tmp_path),
        PAYDESK_HOME=str(tmp_path / "data"),
        PAYDESK_SANDBOX_HOME=str(tmp_path / "sandbox"),
        QT_QPA_PLATFORM="offscreen",
        PAYDESK_QUIT_AFTER="1.5",
        DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent",
    )
    done = subprocess.run(
        [sys.executable, "-m", "paydesk", "--sandbox"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    log = (tmp_path / "data" / "logs" / "paydesk.log").read_text()
    assert "keys in memory (this session only)" in log
    merchants = json.loads((tmp_path / "sandbox" / "merchants.json").read_text())
    secrets = [v for mode in merchants[0]["keys"].values() for v in mode.values()]
    assert _keys_in(tmp_path / "data", secrets) == []
    probe = subprocess.run(
        [sys.executable, "-m", "tests.ui.keyring_probe", "read"], env=env, capture_output=True, text=True, timeout=60
    )
    state = json.loads(probe.stdout)
    assert state["persistent"] is False and set(state["keys"].values()) == {None}
