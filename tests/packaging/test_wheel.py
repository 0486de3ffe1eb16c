"""The wheel carries what the running app reads from its own package: every data file of the
source tree (icons, desktop entry, metainfo, the sandbox's templates and payment.js) and
paydesk.resources itself. Built from a copy of this working tree (tracked and new files, as
they are now) with pip, offline through the configured index: seconds, not a bundle build.
The list expected is derived from the source tree (runtime_files.py), so a file added there
but left out of pyproject.toml's package-data fails here."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers import need_system

from .conftest import ROOT
from .runtime_files import missing, package_files, read_by_the_app


def copy_of_the_working_tree(target: Path) -> Path:
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout
    for name in sorted(set(filter(None, listed.decode().split("\0")))):
        source = ROOT / name
        if source.is_file():  # not one deleted in the working tree but still in the index
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> tuple[Path, set[str], str]:
    """The source copy, the wheel's file names, and what the build printed (verbose: the
    build backend's warnings are part of it)."""
    need_system("git", "git")
    source = copy_of_the_working_tree(tmp_path_factory.mktemp("wheel-source"))
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-v",
            "--disable-pip-version-check",
            "-w",
            str(out),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-3000:]
    (built,) = out.glob("paydesk-*.whl")
    with zipfile.ZipFile(built) as archive:
        return source, set(archive.namelist()), said


@pytest.fixture(scope="module")
def wheel(build) -> tuple[Path, set[str]]:
    return build[0], build[1]


def test_a_build_prints_no_package_warnings(build):
    """Installing PayDesk prints no setuptools warnings about its data folders (issue 15: the
    first `./dev start` printed that paydesk.sandbox.templates, paydesk.sandbox.static and
    paydesk.resources.icons were "absent from the `packages` configuration"). Here with the
    packaging tests (it builds a wheel) rather than in the default run."""
    said = build[2]
    assert "setuptools" in said  # the backend's own output is there to be read
    assert "absent from the `packages` configuration" not in said, said[-3000:]
    assert "Package would be ignored" not in said


def test_the_wheel_holds_every_file_the_app_reads(wheel):
    source, names = wheel
    expected = package_files(source)
    assert {
        "paydesk/resources/paydesk.svg",
        "paydesk/resources/paydesk.desktop",
        "paydesk/resources/icons/48x48/paydesk.png",
        "paydesk/sandbox/static/payment.js",
        "paydesk/sandbox/templates/checkout.html",
        "paydesk/resources/__init__.py",
    } <= expected
    assert any(n.endswith(".metainfo.xml") for n in expected)
    assert sorted(expected - names) == [], "left out of the wheel (pyproject.toml's package-data)"
    assert missing(read_by_the_app(source)[0], names) == []


def test_what_the_app_reads_is_in_the_list_the_packages_are_checked_against():
    """The code's own references (resource("paydesk.svg"), the sandbox's PackageLoader and
    payment.js) are all files of the source tree's list; no module reads package files in
    a way the scan does not recognise."""
    reads, unexplained = read_by_the_app(ROOT)
    assert {"paydesk/resources/paydesk.svg", "paydesk/sandbox/static/payment.js", "paydesk/sandbox/templates/"} <= reads
    assert unexplained == [], (
        "reads package files in a way tests/packaging/runtime_files.py does not recognise: add its pattern"
    )
    assert missing(reads, package_files(ROOT)) == []


def test_the_checks_see_a_file_left_out(tmp_path):
    """The checks above can fail: a file read but absent, an empty template folder, a new
    way of reading package files, a data file added to the source but not to the wheel."""
    code = tmp_path / "desktop" / "paydesk"
    (code / "ui").mkdir(parents=True)
    (tmp_path / "resources" / "screenshots").mkdir(parents=True)
    (tmp_path / "resources" / "screenshots" / "links-tab.png").write_bytes(b"")
    (tmp_path / "resources" / "paydesk.svg").write_text("<svg/>")
    (code / "ui" / "sound.wav").write_bytes(b"RIFF")
    (code / "ui" / "a.py").write_text(
        "from importlib import resources\n"
        'resources.files("paydesk.ui").joinpath("beep.wav")\n'
        'PackageLoader("paydesk.ui", "templates")\n'
    )
    (code / "ui" / "b.py").write_text('import importlib.resources\nimportlib.resources.read_text("paydesk", "x.txt")\n')
    reads, unexplained = read_by_the_app(tmp_path)
    files = package_files(tmp_path)
    assert files == {"paydesk/ui/sound.wav", "paydesk/resources/paydesk.svg"}
    assert missing(reads, files) == ["paydesk/ui/beep.wav", "paydesk/ui/templates/"]
    assert unexplained == ["desktop/paydesk/ui/b.py"]
