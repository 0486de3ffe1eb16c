"""Installing PayDesk prints no setuptools warnings about its data folders (issue 15: the
first `./dev start` printed that paydesk.sandbox.templates, paydesk.sandbox.static and
paydesk.resources.icons were "absent from the `packages` configuration"), and the wheel
still carries every data file."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_build_prints_no_package_warnings_and_carries_the_data(tmp_path):
    source = tmp_path / "src"
    # a fresh copy of what git holds: no build/ or egg-info left by an earlier install
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    shutil.copy2(ROOT / "pyproject.toml", source / "pyproject.toml")  # as in the worktree
    shutil.copy2(ROOT / "setup.py", source / "setup.py")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            "--disable-pip-version-check", "-w", str(tmp_path / "wheel"),
                            str(source)], capture_output=True, text=True, timeout=600)
    said = built.stdout + built.stderr
    assert built.returncode == 0, said[-3000:]
    assert "absent from the `packages` configuration" not in said, said[-3000:]
    assert "Package would be ignored" not in said
    wheel = next((tmp_path / "wheel").glob("paydesk-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("paydesk/sandbox/templates/checkout.html", "paydesk/sandbox/static/payment.js",
                   "paydesk/resources/paydesk.svg", "paydesk/resources/paydesk.desktop",
                   "paydesk/resources/icons/48x48/paydesk.png", "paydesk/resources/__init__.py"):
        assert needed in names, needed
