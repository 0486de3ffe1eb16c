"""The desktop-integration files in resources/, as the wheel and the bundle carry them: the
icon at every size made from the one SVG, the .ico and .icns the build writes, the desktop
entry, the metainfo's version, and manual pages that cover every option. Fast: no build."""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

import paydesk
from paydesk.resources import path as resource

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))
import icons  # noqa: E402 - packaging/icons.py


def difference(a: QImage, b: QImage) -> float:
    """Mean absolute difference of the ARGB channels, 0..255."""
    a = a.convertToFormat(QImage.Format.Format_ARGB32)
    b = b.convertToFormat(QImage.Format.Format_ARGB32)
    ba, bb = bytes(a.constBits()), bytes(b.constBits())
    return sum(abs(x - y) for x, y in zip(ba, bb)) / len(ba)


@pytest.mark.parametrize("size", icons.HICOLOR_SIZES)
def test_each_png_is_the_svg_at_that_size(size, qapp):
    committed = QImage(str(resource(f"icons/{size}x{size}/paydesk.png")))
    assert (committed.width(), committed.height()) == (size, size)
    fresh = QImage.fromData(icons.render(size))
    assert difference(committed, fresh) < 2, "stale PNG: run python packaging/icons.py png"


def test_the_icon_check_sees_a_wrong_icon(qapp):
    fresh = QImage.fromData(icons.render(48))
    other = QImage(48, 48, QImage.Format.Format_ARGB32)
    other.fill(0xFF00FF00)
    assert difference(fresh, other) > 20


def test_ico_and_icns_hold_every_size(tmp_path, qapp):
    ico, icns = icons.build(tmp_path)
    data = ico.read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data)
    assert (reserved, kind, count) == (0, 1, len(icons.ICO_SIZES))
    for i, size in enumerate(icons.ICO_SIZES):
        w, h, _, _, _, _, length, offset = struct.unpack_from("<BBBBHHII", data, 6 + 16 * i)
        assert (w, h) == (size % 256, size % 256)
        image = QImage.fromData(data[offset : offset + length])
        assert (image.width(), image.height()) == (size, size)
    data = icns.read_bytes()
    assert data[:4] == b"icns" and struct.unpack_from(">I", data, 4)[0] == len(data)
    at, found = 8, {}
    while at < len(data):
        kind, length = data[at : at + 4], struct.unpack_from(">I", data, at + 4)[0]
        found[kind] = QImage.fromData(data[at + 8 : at + length]).width()
        at += length
    assert found == {kind: size for kind, size in icons.ICNS_TYPES}


def test_the_running_app_finds_its_icon_and_desktop_entry():
    assert resource("paydesk.svg").read_text().lstrip().startswith("<svg")
    entry = resource("paydesk.desktop").read_text()
    assert "Exec=paydesk\n" in entry and "Icon=paydesk\n" in entry


def test_the_metainfo_carries_this_version():
    metainfo = next(resource(".").glob("*.metainfo.xml")).read_text()
    assert re.search(r'<release version="([^"]+)"', metainfo).group(1) == paydesk.__version__
    assert '<launchable type="desktop-id">paydesk.desktop</launchable>' in metainfo


def read_qr_codes(image: QImage) -> list[str]:
    from pyzbar import pyzbar

    image = image.convertToFormat(QImage.Format.Format_Grayscale8)
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    raw = bytes(image.constBits())[: stride * height]
    pixels = b"".join(raw[y * stride : y * stride + width] for y in range(height))
    return [s.data.decode() for s in pyzbar.decode((pixels, width, height))]


def test_the_metainfo_screenshot_is_the_links_tab_of_the_main_window(qapp):
    """resources/screenshots/links-tab.png is copied by hand from the smoke test's output
    (test-output/packaging/links-tab.png, the installed app's window cropped from the screen;
    docs/PACKAGING.md): it must be that, a PNG of the main window at its opening size showing
    a link's QR code, and the file the metainfo's <image> names."""
    metainfo = next(resource(".").glob("*.metainfo.xml")).read_text()
    url = re.search(r"<image>([^<]+)</image>", metainfo).group(1)
    shipped = ROOT / url.split("/main/", 1)[1]
    assert shipped == ROOT / "resources" / "screenshots" / "links-tab.png"
    data = shipped.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and 20_000 < len(data) < 2_000_000
    image = QImage(str(shipped))
    window = (ROOT / "desktop" / "paydesk" / "ui" / "main_window.py").read_text()
    opening = r"(?:self\.resize|resize_within_screen)\((?:self, )?(\d+), (\d+)\)"
    size = tuple(map(int, re.search(opening, window).groups()))
    assert (image.width(), image.height()) == size  # as the smoke test crops the window
    (link,) = read_qr_codes(image)
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\S*/payment/\S+", link), link


def test_the_screenshot_check_sees_a_screen_with_no_link(qapp):
    blank = QImage(1100, 720, QImage.Format.Format_RGB32)
    blank.fill(0xFFFFFFFF)
    assert read_qr_codes(blank) == []


@pytest.mark.parametrize("command, module", [("paydesk", "paydesk"), ("paydesk-sandbox", "paydesk.sandbox")])
def test_each_manual_page_names_every_option(command, module):
    helped = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=60).stdout
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", helped))
    page = (ROOT / "packaging" / "linux" / f"{command}.1").read_text().replace("\\-", "-")
    assert options and {o for o in options if o not in page} == set()


def test_the_macos_and_windows_recipes_agree_with_the_rest():
    """They cannot be built here (no macOS or Windows machine): check what can be checked."""
    import plistlib

    info = plistlib.loads((ROOT / "packaging/macos/Info.plist").read_bytes())
    metainfo = next(resource(".").glob("*.metainfo.xml"))
    assert info["CFBundleIdentifier"] == metainfo.name.removesuffix(".metainfo.xml")
    assert "CFBundleShortVersionString" not in info  # the spec sets it from paydesk.__version__
    entitlements = plistlib.loads((ROOT / "packaging/macos/entitlements.plist").read_bytes())
    assert entitlements["com.apple.security.cs.disable-library-validation"] is True
    iss = (ROOT / "packaging/windows/paydesk.iss").read_text()
    assert "AppVersion={#AppVersion}" in iss and "#error" in iss  # no version of its own
    build = (ROOT / "packaging/build.py").read_text()
    assert '"/DAppVersion=' in build or "/DAppVersion={version}" in build
    workflow = (ROOT / ".github/workflows/installers.yml").read_text()
    for job in ("linux:", "windows:", "macos:"):
        assert f"\n  {job}" in workflow
    assert len(re.findall(r"python packaging[/\\]build\.py", workflow)) == 2  # Windows, macOS
    assert "./dev package" in workflow
