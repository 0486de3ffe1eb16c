"""The installers, built once per test run from a clean checkout of the committed tree and
shared by every packaging test: `./dev package` in a copy made by `git archive HEAD` (so
nothing of this working tree, its .venv or its dist/ leaks in), then, as root, the .deb
installed with apt-get; test_removal.py, which this conftest runs last, removes it and checks
that nothing is left (or the fixture removes it at the end, if that test did not run)."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import need_system

ROOT = Path(__file__).resolve().parents[2]
# what the screenshot and the build log are kept in, beside the test's output
OUTPUT = Path(os.environ.get("PAYDESK_TEST_OUTPUT", ROOT / "test-output")) / "packaging"


def need_root_apt() -> None:
    """Installing the .deb needs root and apt-get: skip (or fail under CI) saying which is missing."""
    missing = []
    if os.geteuid() != 0:
        missing.append("root (the .deb is installed with apt-get)")
    if not shutil.which("apt-get"):
        missing.append("apt-get (a Debian or Ubuntu machine)")
    if missing:
        message = "needs " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(message + "; CI runs .ci/run as root on Debian")
        pytest.skip(message)


BUILD_TIMEOUT = 1800  # s: ./dev package in a clean checkout, as the fixture allows it


@dataclass(frozen=True)
class Built:
    checkout: Path
    bundle: Path
    tarball: Path
    deb: Path
    version: str


@dataclass(frozen=True)
class Installed:
    files: list[str]  # what `dpkg -L paydesk` lists


def pytest_collection_modifyitems(session, config, items):
    """test_removal.py takes away the package every other packaging test runs: it goes last,
    whatever order the files were collected in. Every packaging test may wait for the build.
    They run on one of ./dev test's workers, one after the other (their group in
    tests/side_by_side.py): the build is made once, and the .deb installed on this computer is
    installed and removed by one process."""
    for item in items:  # the first one waits for the build (a fresh venv, PyInstaller):
        if "packaging" in item.path.parts:  # minutes on a busy machine, not the usual 300 s
            item.add_marker(pytest.mark.timeout(BUILD_TIMEOUT))
    last = [item for item in items if item.path.name == "test_removal.py"]
    if last:
        items[:] = [item for item in items if item.path.name != "test_removal.py"] + last


def _clean_checkout(target: Path) -> None:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", "HEAD"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="tar")
    if subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    ).stdout.strip():
        warnings.warn("the packaging tests build the last commit; uncommitted changes are not in it", stacklevel=2)


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    need_system("git", "git")
    need_system("dpkg-deb", "dpkg")
    need_system("dpkg-shlibdeps", "dpkg-dev")
    checkout = tmp_path_factory.mktemp("clean-checkout") / "paydesk"
    _clean_checkout(checkout)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PAYDESK_VENV", "PAYDESK_BUILD_VENV")
    }
    env["PYTHON"] = sys._base_executable  # the interpreter this run's .venv was made from
    OUTPUT.mkdir(parents=True, exist_ok=True)
    log = OUTPUT / "build.log"
    with log.open("w") as out:
        done = subprocess.run(
            ["./dev", "package"], cwd=checkout, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT
        )
    assert done.returncode == 0, f"./dev package failed:\n{log.read_text()[-4000:]}"
    dist = checkout / "dist"
    source = (checkout / "desktop" / "paydesk" / "__init__.py").read_text()
    version = re.search(r'^__version__ = "([^"]+)"', source, re.M).group(1)
    yield Built(
        checkout=checkout,
        bundle=dist / "paydesk",
        tarball=next(dist.glob("paydesk-*.tar.gz")),
        deb=next(dist.glob("paydesk_*.deb")),
        version=version,
    )
    shutil.rmtree(checkout / "build", ignore_errors=True)  # the build environment: 0.5 GB


APT = ["apt-get", "-y", "-q", "-o", "DPkg::Lock::Timeout=600"]


def _dpkg_files() -> list[str]:
    return subprocess.run(["dpkg", "-L", "paydesk"], capture_output=True, text=True, check=True).stdout.splitlines()


def package_installed() -> bool:
    status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", "paydesk"], capture_output=True, text=True).stdout
    return "installed" in status.split()


def remove_package() -> subprocess.CompletedProcess:
    return subprocess.run(
        [*APT, "remove", "--purge", "paydesk"],
        capture_output=True,
        text=True,
        env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
        timeout=600,
    )


@pytest.fixture(scope="session")
def installed(built):
    need_root_apt()
    if package_installed():
        pytest.fail(
            "paydesk is already installed here; the packaging tests install and remove "
            "it, so remove it first (apt-get remove paydesk)"
        )
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    done = subprocess.run(
        [*APT, "install", "--no-install-recommends", str(built.deb)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    files = _dpkg_files()
    yield Installed(files=files)
    # test_removal.py removes it and checks what is left; this only cleans up when that test
    # was not chosen or stopped before apt-get had removed the package
    if package_installed():
        done = remove_package()
        assert done.returncode == 0, (
            "could not remove paydesk after the packaging tests:\n" + done.stdout[-3000:] + done.stderr[-3000:]
        )


@pytest.fixture
def no_python_env(tmp_path) -> dict:
    """An environment with no Python on the PATH and no virtual environment: only `paydesk`,
    `paydesk-sandbox` and `paydesk-receiver`, the installed commands, can be found."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for command in ("paydesk", "paydesk-sandbox", "paydesk-receiver"):
        (bin_dir / command).symlink_to(f"/usr/bin/{command}")
    env = {
        "PATH": str(bin_dir),
        "HOME": str(tmp_path / "home"),
        "LANG": "C.UTF-8",
        "PAYDESK_HOME": str(tmp_path / "data"),
        "PAYDESK_SANDBOX_HOME": str(tmp_path / "sandbox"),
    }
    assert not any(shutil.which(p, path=env["PATH"]) for p in ("python", "python3"))
    return env
