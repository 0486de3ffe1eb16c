"""What `./dev package` builds from a clean checkout: the bundle holds PayDesk and what it runs
on, and nothing else (no secret, no test data, no test code, no unused Qt part, no system
library the .deb declares instead); the .tar.gz is the bundle; the .deb installs where a
Debian desktop looks, declares the libraries, carries one version, and lintian passes it."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.helpers import need_system

from .conftest import ROOT
from .runtime_files import missing, package_files, read_by_the_app

pytestmark = pytest.mark.packaging

# the family's key formats (as in paydesk.service.redact), private keys, tokens in URLs
SECRET_PATTERNS = [
    r"(?i)(sec|pub)-(test|live)-[A-Za-z0-9]{16,}",
    r"-----BEGIN [A-Z ]*PRIVATE KEY",
    r"(?i)authorization: *bearer +[A-Za-z0-9-]{16,}",
]
TEST_DATA_NAMES = re.compile(
    r"(^|/)(merchants\.json|profiles\.json|[^/]*\.sqlite3[^/]*|[^/]*\.eml|"
    r"\.env|\.hypothesis|\.pytest_cache|test-output)($|/)"
)
TEST_CODE = re.compile(
    r"(^|[/.])(tests?|testing|conftest|_pytest|pytest|pytest_plugin|hypothesis)($|[/.])"
    r"|(^|[/.])test_[^/.]+"
)
# run-time code whose name looks like test code: Jinja's built-in template tests ("is odd")
NOT_TEST_CODE = {"jinja2.tests"}
DEBIAN_LIBRARIES = [
    "libxcb-cursor0",
    "libxkbcommon-x11-0",
    "libxcb-icccm4",
    "libxcb-keysyms1",
    "libxcb-render-util0",
    "libxcb-image0",
    "libxcb1",
    "libegl1",
    "libfontconfig1",
    "libdbus-1-3",
    "libpq5",  # the shared ledger's: linked by psycopg's C speed-up
]
METAINFO = "io.github.paydesk.PayDesk.metainfo.xml"


def bundle_files(bundle: Path) -> list[str]:
    return sorted(str(p.relative_to(bundle)) for p in bundle.rglob("*") if not p.is_dir())


@functools.cache
def executable_archive(bundle: Path, checkout: Path) -> dict:
    """Every entry of the executable's archive (compiled modules, decompressed) and which of
    them match SECRET_PATTERNS, read with the build environment's PyInstaller."""
    python = checkout / "build" / "venv" / "bin" / "python"
    done = subprocess.run(
        [str(python), str(Path(__file__).with_name("archive_contents.py")), str(bundle / "paydesk"), *SECRET_PATTERNS],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_no_secret_no_test_data_no_test_code_in_the_bundle(built):
    files = bundle_files(built.bundle)
    assert len(files) > 50, "the bundle is (nearly) empty"
    assert [f for f in files if TEST_DATA_NAMES.search(f)] == []
    assert [f for f in files if TEST_CODE.search(f)] == []
    secrets_on_disk = [
        f
        for f in files
        if not (built.bundle / f).is_symlink()
        and any(re.search(p.encode(), (built.bundle / f).read_bytes()) for p in SECRET_PATTERNS)
    ]
    assert secrets_on_disk == []
    # and inside the executable's archive: every compiled module, decompressed
    archive = executable_archive(built.bundle, built.checkout)
    modules = archive["entries"]
    assert "paydesk.app" in modules and "paydesk.sandbox.server" in modules
    assert [m for m in modules if TEST_CODE.search(m) and m not in NOT_TEST_CODE] == []
    assert archive["hits"] == {}


def test_no_test_data_is_found_by_the_check_itself(tmp_path):
    """The name checks above can fail: they catch what a careless build would bring in."""
    assert TEST_DATA_NAMES.search("_internal/sandbox/merchants.json")
    assert TEST_DATA_NAMES.search("_internal/ledger.sqlite3-wal")
    assert TEST_CODE.search("tests.ui.test_links") and TEST_CODE.search("_internal/tests/x.pyc")
    assert TEST_CODE.search("anyio.pytest_plugin") and not TEST_CODE.search("paydesk.desk.tasks")
    key = "sec-test-" + "a1B2" * 8
    assert re.search(SECRET_PATTERNS[0], key)


def test_the_bundle_holds_every_file_the_app_reads(built):
    """The same list as the wheel's (test_wheel.py), from the checkout the bundle was built
    from: the data files beside the executable in _internal/, the code in its archive."""
    expected = package_files(built.checkout)
    assert {"paydesk/resources/paydesk.svg", "paydesk/sandbox/static/payment.js"} <= expected
    on_disk = set(bundle_files(built.bundle / "_internal"))
    data = {f for f in expected if not f.endswith(".py")}
    assert sorted(data - on_disk) == [], "left out of the bundle (paydesk.spec's datas)"
    modules = set(executable_archive(built.bundle, built.checkout)["entries"])
    code = {f.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for f in expected if f.endswith(".py")}
    assert code and sorted(code - modules) == []  # paydesk.resources, which resource() lives in
    assert missing(read_by_the_app(built.checkout)[0], on_disk) == []


def test_only_the_qt_parts_paydesk_uses(built):
    qt = built.bundle / "_internal" / "PySide6" / "Qt"
    plugins = {p.parent.name + "/" + p.name for p in (qt / "plugins").glob("*/*")}
    assert "platforms/libqxcb.so" in plugins and "imageformats/libqsvg.so" in plugins
    assert "printsupport/libcupsprintersupport.so" in plugins
    kinds = {p.split("/")[0] for p in plugins}
    assert kinds <= {
        "platforms",
        "xcbglintegrations",
        "platforminputcontexts",
        "platformthemes",
        "iconengines",
        "imageformats",
        "printsupport",
    }
    assert (
        not {
            "platforms/libqwayland.so",
            "platforms/libqeglfs.so",
            "platformthemes/libqgtk3.so",
            "imageformats/libqtiff.so",
        }
        & plugins
    )
    # Qt's own words only in the languages PayDesk speaks; PayDesk's catalogues compiled
    assert {p.name for p in (qt / "translations").iterdir()} == {"qtbase_fr.qm"}
    assert (built.bundle / "_internal" / "paydesk" / "locale" / "fr" / "LC_MESSAGES" / "paydesk.mo").is_file()
    libs = {p.name for p in (qt / "lib").iterdir()}
    assert "libQt6Widgets.so.6" in libs and not {"libQt6Network.so.6", "libQt6OpenGL.so.6"} & libs
    # system libraries are the .deb's Depends, not copies (Python's own runtime travels along)
    top = {p.name for p in (built.bundle / "_internal").iterdir()}
    assert not [
        n
        for n in top
        if re.match(
            r"lib(X11|xcb|fontconfig|freetype|glib|gtk|ssl|"
            r"crypto|stdc\+\+|EGL|GL)\b",
            n,
        )
    ]
    assert any(n.startswith("libpython3") for n in top)


def test_the_tarball_is_the_bundle(built):
    top = f"paydesk-{built.version}"
    with tarfile.open(built.tarball) as tar:
        members = tar.getmembers()
    assert {m.name.removeprefix(top + "/") for m in members if not m.isdir()} == set(bundle_files(built.bundle))
    assert {(m.uname, m.gname) for m in members} == {("root", "root")}
    assert all(m.name == top or m.name.startswith(top + "/") for m in members)
    assert built.tarball.name == f"paydesk-{built.version}-linux-x86_64.tar.gz"


def deb_file(deb: Path, path: str) -> bytes:
    """One file of the .deb's data, e.g. "/usr/share/metainfo/...", read without installing."""
    with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE) as proc:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for member in tar:
                if member.name.removeprefix(".") == path and member.isfile():
                    data = tar.extractfile(member).read()
                    break
            else:
                raise AssertionError(f"{path} is not in {deb.name}")
        proc.stdout.close()  # the rest of the tar is not wanted
        proc.wait(60)
    return data


def deb_field(deb: Path, field: str) -> str:
    return subprocess.run(
        ["dpkg-deb", "-f", str(deb), field], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_deb_installs_the_desktop_integration_and_declares_its_libraries(built):
    listing = subprocess.run(["dpkg-deb", "-c", str(built.deb)], capture_output=True, text=True, check=True).stdout
    paths = {line.split()[5].removeprefix(".") for line in listing.splitlines()}
    for expected in [
        "/opt/paydesk/paydesk",
        "/usr/bin/paydesk",
        "/usr/bin/paydesk-sandbox",
        "/usr/share/applications/paydesk.desktop",
        "/usr/share/metainfo/io.github.paydesk.PayDesk.metainfo.xml",
        "/usr/share/icons/hicolor/scalable/apps/paydesk.svg",
        "/usr/share/doc/paydesk/copyright",
        "/usr/share/doc/paydesk/changelog.gz",
        "/usr/share/man/man1/paydesk.1.gz",
        "/opt/paydesk/_internal/licenses/README",
        "/usr/bin/paydesk-receiver",
        "/usr/share/man/man1/paydesk-receiver.1.gz",
        "/lib/systemd/system/paydesk-receiver.service",
    ]:
        assert expected in paths, expected
    for size in (16, 22, 24, 32, 48, 64, 128, 256, 512):
        assert f"/usr/share/icons/hicolor/{size}x{size}/apps/paydesk.png" in paths
    assert "/usr/bin/paydesk -> /opt/paydesk/paydesk" in listing
    depends = {d.split()[0] for d in deb_field(built.deb, "Depends").split(", ")}
    assert set(DEBIAN_LIBRARIES) <= depends, set(DEBIAN_LIBRARIES) - depends
    assert deb_field(built.deb, "Package") == "paydesk"


def test_the_shared_ledgers_speed_up_travels_linked_to_the_systems_libpq(built):
    """psycopg's C speed-up is in the bundle (packaging/requirements.txt), linked to the
    system's libpq, which is not bundled: Debian's security updates reach it (the .deb
    depends on libpq5)."""
    files = bundle_files(built.bundle)
    speed_up = [f for f in files if re.search(r"(^|/)psycopg_c/(pq|_psycopg)\.cpython-[^/]*\.so$", f)]
    assert len(speed_up) == 2, speed_up
    assert [f for f in files if re.search(r"(^|/)libpq\.so", f)] == []
    for module in speed_up:
        linked = subprocess.run(["ldd", str(built.bundle / module)], capture_output=True, text=True, timeout=60)
        assert re.search(r"libpq\.so\.5 => /(usr/)?lib/", linked.stdout), linked.stdout
    assert "libpq5" in {part.split()[0] for part in deb_field(built.deb, "Depends").split(", ")}


def test_the_qr_encoder_travels_with_all_its_licences(built):
    """The codes are encoded by zxing-cpp's compiled module, its writer (libzint, with
    libzueci) and its binding (nanobind) inside it: the module is in the bundle, and so are
    the licences, zxing-cpp's (Apache-2.0, from its distribution) and the three BSD-3-Clause
    ones its files do not carry (packaging/notices/)."""
    files = bundle_files(built.bundle)
    assert [f for f in files if re.search(r"(^|/)zxingcpp/zxingcpp\.cpython-[^/]*\.so$", f)], "no QR encoder"
    assert not [f for f in files if "/segno/" in f]
    licences = built.bundle / "_internal" / "licenses"
    readme = (licences / "README").read_text()
    assert re.search(
        r"^zxing-cpp \S+: Apache-2\.0, with libzint, libzueci and nanobind compiled in: BSD-3-Clause$", readme, re.M
    ), readme
    assert "Apache License" in (licences / "zxing-cpp" / "LICENSE").read_text()
    for part, holder in (("zint", "Robin Stuart"), ("zueci", "gitlost"), ("nanobind", "Wenzel Jakob")):
        notice = (licences / "zxing-cpp" / f"{part}-LICENSE.txt").read_text()
        assert holder in notice and "Redistributions in binary form must reproduce" in notice, part


def test_one_version_everywhere(built):
    assert deb_field(built.deb, "Version") == built.version
    assert built.deb.name == f"paydesk_{built.version}_amd64.deb"
    # the metainfo the .deb installs, and the one the bundle carries, as built
    in_bundle = built.bundle / "_internal" / "paydesk" / "resources" / METAINFO
    shipped = {"deb": deb_file(built.deb, "/usr/share/metainfo/" + METAINFO).decode(), "bundle": in_bundle.read_text()}
    newest = {where: re.search(r'<release version="([^"]+)"', text).group(1) for where, text in shipped.items()}
    assert newest == {"deb": built.version, "bundle": built.version}
    done = subprocess.run([str(built.bundle / "paydesk"), "--version"], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == f"PayDesk {built.version}"


def lintian_tags(deb: Path) -> list[tuple[str, str]]:
    done = subprocess.run(["lintian", "--no-tag-display-limit", str(deb)], capture_output=True, text=True, timeout=600)
    return sorted({(m.group(1), m.group(2)) for m in re.finditer(r"^([EW]): paydesk[^:]*: (\S+)", done.stdout, re.M)})


def lintian_section() -> str:
    """docs/PACKAGING.md's "lintian" section, which explains the overrides and warnings."""
    page = (ROOT / "docs" / "PACKAGING.md").read_text()
    return page.split("\n## lintian\n", 1)[1].split("\n## ", 1)[0]


def test_lintian_passes_and_every_warning_is_explained_in_the_packaging_page(built):
    need_system("lintian", "lintian")
    tags = lintian_tags(built.deb)
    assert [tag for level, tag in tags if level == "E"] == []
    explained = lintian_section()
    unexplained = [tag for level, tag in tags if level == "W" and f"`{tag}`" not in explained]
    assert unexplained == [], "lintian warnings not listed in docs/PACKAGING.md's lintian section"
