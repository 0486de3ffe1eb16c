"""`paydesk-receiver` as the .deb ships it: the command (the bundle's one executable, which
dispatches on the name it was started by), its manual page naming every option and
variable, and its systemd unit, hardened and never enabled by the package. Fast: the .deb's
tree is staged from a stand-in bundle, nothing is built (test_bundle.py checks the real one)."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINUX = ROOT / "packaging" / "linux"
UNIT = LINUX / "paydesk-receiver.service"
PAGE = LINUX / "paydesk-receiver.1"
RECEIVER = ROOT / "desktop" / "paydesk" / "receiver"
sys.path.insert(0, str(ROOT / "packaging"))
import deb  # noqa: E402 - packaging/deb.py
import release  # noqa: E402 - packaging/release.py


def _has_receiver() -> bool:
    return find_spec("paydesk.receiver") is not None and find_spec("paydesk.receiver.cli") is not None


needs_receiver = pytest.mark.skipif(not _has_receiver(), reason="paydesk.receiver.cli is not in this tree yet")


def _unit() -> dict[str, list[str]]:
    """Each "Section.Key" of the unit and its values, in order (a key may repeat)."""
    values: dict[str, list[str]] = {}
    section = ""
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        values.setdefault(f"{section}.{key.strip()}", []).append(value.strip())
    return values


def test_the_deb_carries_the_receiver_its_unit_and_its_manual_page(tmp_path):
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "paydesk").write_bytes(b"a stand-in for the bundle's executable")
    root = tmp_path / "deb-root"
    deb.stage(root, bundle, release.current())
    command = root / "usr" / "bin" / "paydesk-receiver"
    assert command.is_symlink() and os.readlink(command) == "/opt/paydesk/paydesk"
    unit = root / "lib" / "systemd" / "system" / "paydesk-receiver.service"
    assert unit.read_bytes() == UNIT.read_bytes()
    assert unit.stat().st_mode & 0o777 == 0o644
    page = root / "usr" / "share" / "man" / "man1" / "paydesk-receiver.1.gz"
    assert gzip.decompress(page.read_bytes()).decode() == PAGE.read_text()
    # installed, never enabled: no maintainer script, no link under /etc
    assert not (root / "etc").exists() and not (root / "DEBIAN").exists()


def test_the_launcher_dispatches_on_the_name_it_was_started_by(tmp_path):
    launcher = tmp_path / "paydesk-sandbox"
    launcher.symlink_to(ROOT / "packaging" / "launcher.py")
    done = subprocess.run([sys.executable, str(launcher), "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("paydesk-sandbox "), done
    source = (ROOT / "packaging" / "launcher.py").read_text()
    assert 'name.startswith("paydesk-receiver")' in source
    assert "from paydesk.receiver.cli import main" in source


@needs_receiver
def test_the_launcher_starts_the_receiver(tmp_path):
    launcher = tmp_path / "paydesk-receiver"
    launcher.symlink_to(ROOT / "packaging" / "launcher.py")
    done = subprocess.run([sys.executable, str(launcher), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--ledger" in done.stdout, done


def test_the_unit_runs_the_receiver_hardened_and_restarts_it():
    unit = _unit()
    assert unit["Unit.Documentation"] == ["man:paydesk-receiver(1)"]
    (start,) = unit["Service.ExecStart"]
    assert start.startswith("/usr/bin/paydesk-receiver ")
    # a system user of its own; keys as a credential only that user may read
    assert unit["Service.DynamicUser"] == ["yes"]
    assert unit["Service.LoadCredential"] == ["keys.json:/etc/paydesk/receiver-keys.json"]
    assert "--keys-file %d/keys.json" in start
    assert unit["Service.EnvironmentFile"] == ["/etc/paydesk/receiver.env"]
    for key, value in {
        "ProtectSystem": "strict",
        "NoNewPrivileges": "yes",
        "PrivateTmp": "yes",
        "ProtectHome": "yes",
        "Restart": "on-failure",
        "CapabilityBoundingSet": "",
        "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
    }.items():
        assert unit[f"Service.{key}"] == [value], key
    assert unit["Install.WantedBy"] == ["multi-user.target"]  # when the administrator enables it
    # every option it passes is one the manual page (and so the command) has
    page = PAGE.read_text().replace("\\-", "-")
    used = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", start))
    assert used == {"--ledger", "--host", "--port", "--data-dir", "--keys-file"}
    assert {o for o in used if o not in page} == set()


def test_systemd_reads_the_unit_without_complaint(tmp_path):
    """``systemd-analyze verify``: only what is missing off an installed system may be said
    (the command, and its manual page)."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("needs systemd-analyze (Debian's package 'systemd')")
    copy = tmp_path / UNIT.name
    copy.write_bytes(UNIT.read_bytes())
    done = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True, timeout=60)
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    expected = ("/usr/bin/paydesk-receiver is not executable", "man paydesk-receiver(1)")
    assert [line for line in said if not any(e in line for e in expected)] == []


@needs_receiver
def test_the_receivers_manual_page_names_every_option_and_variable():
    helped = subprocess.run(
        [sys.executable, "-c", "import sys; from paydesk.receiver.cli import main; sys.exit(main(['--help']))"],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", helped))
    page = PAGE.read_text().replace("\\-", "-")
    assert options and {o for o in options if o not in page} == set()
    # the environment variables the receiver reads (keys, the key file) are all described
    source = "\n".join(p.read_text() for p in RECEIVER.rglob("*.py"))
    variables = set(re.findall(r"\bPAYDESK_[A-Z0-9_]+\b", source))
    assert {v for v in variables if v.replace("_", "\\_") not in PAGE.read_text() and v not in page} == set()
