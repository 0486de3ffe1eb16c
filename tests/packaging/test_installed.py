"""The .deb installed with apt-get on this machine: the desktop entry and metainfo validate,
the commands run with no Python anywhere on the PATH, every library the bundle loads is
found, and the bundled sandbox serves its pages (templates, payment.js, uvicorn's protocols)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.helpers import need_system

pytestmark = pytest.mark.packaging

METAINFO = "/usr/share/metainfo/io.github.paydesk.PayDesk.metainfo.xml"


def test_desktop_entry_and_metainfo_validate(installed):
    validate = need_system("desktop-file-validate", "desktop-file-utils")
    done = subprocess.run([validate, "/usr/share/applications/paydesk.desktop"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "", done.stdout + done.stderr
    appstream = need_system("appstreamcli", "appstream")
    done = subprocess.run([appstream, "validate", "--no-net", "--explain", METAINFO], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "/usr/share/applications/paydesk.desktop" in installed.files
    assert "/usr/share/icons/hicolor/48x48/apps/paydesk.png" in installed.files


def test_version_with_no_python_on_the_path(installed, built, no_python_env):
    for command, name in (("paydesk", "PayDesk"), ("paydesk-sandbox", "paydesk-sandbox")):
        done = subprocess.run([command, "--version"], env=no_python_env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip() == f"{name} {built.version}"
    assert Path(
        subprocess.run(["readlink", "-f", "/usr/bin/paydesk"], capture_output=True, text=True).stdout.strip()
    ) == Path("/opt/paydesk/paydesk")


def test_the_installed_receiver_starts(installed, built, no_python_env):
    """The bundle's launcher dispatches `paydesk-receiver` to the receiver, which it carries."""
    if not (built.checkout / "desktop" / "paydesk" / "receiver" / "cli.py").exists():
        pytest.skip("paydesk.receiver.cli is not in this tree yet")
    done = subprocess.run(["paydesk-receiver", "--help"], env=no_python_env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--ledger" in done.stdout, done.stderr[-2000:]


def is_elf(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(4) == b"\x7fELF"


def test_every_library_the_bundle_loads_is_found(installed):
    """After apt-get pulled the Depends, nothing the bundle links against is missing."""
    ldd = need_system("ldd", "libc-bin")
    elves = [
        f
        for f in installed.files
        if f.startswith("/opt/paydesk/") and Path(f).is_file() and not Path(f).is_symlink() and is_elf(Path(f))
    ]
    assert len(elves) > 30
    missing = {}
    for elf in elves:
        out = subprocess.run([ldd, elf], capture_output=True, text=True).stdout
        lost = [line.split()[0] for line in out.splitlines() if "not found" in line]
        if lost:
            missing[elf] = lost
    assert missing == {}


def test_the_installed_sandbox_serves_checkout_pages(installed, no_python_env, tmp_path):
    data = tmp_path / "sandbox-data"
    # the block closes its pipes once the sandbox has ended (not left to the collector)
    with subprocess.Popen(
        ["paydesk-sandbox", "--port", "0", "--data-dir", str(data), "--base-path", "/pay"],
        env=no_python_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            first = proc.stdout.readline().split()
            assert first[:1] == ["serving"], proc.stderr.read()[-2000:] if proc.poll() is not None else first
            base = first[1]
            key = json.loads((data / "merchants.json").read_text())[0]["keys"]["test"]["secret"]
            with httpx.Client(base_url=base, timeout=10, headers={"Authorization": f"Bearer {key}"}) as http:
                assert "ServiceCheckout" in http.get(f"{base}/js/payment.js").text
                created = http.post(
                    f"{base}/api/payment",
                    json={
                        "amount": "12",
                        "currency": "GBP",
                        "email": "ada@example.com",
                        "first_name": "Ada",
                        "last_name": "Lovelace",
                        "tx_ref": f"PKG-{int(time.time())}",
                    },
                )
                assert created.status_code in (200, 201), created.text
                page = http.get(created.json()["data"]["checkout_url"])
            assert page.status_code == 200 and "<form" in page.text and "12" in page.text
        finally:
            proc.terminate()
            proc.wait(20)
