"""The app icon at every size, all from resources/paydesk.svg: the PNGs of the freedesktop
hicolor theme (committed in resources/icons/), and the Windows .ico and macOS .icns that the
build makes.

    python packaging/icons.py png        # re-render resources/icons/ after the SVG changed
    python packaging/icons.py build DIR  # write DIR/paydesk.ico and DIR/paydesk.icns

Rendered by Qt's SVG renderer (PySide6-Essentials); .ico and .icns are written here, holding
PNG images, as both formats allow (Windows Vista and later, macOS 10.7 and later).
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "resources" / "paydesk.svg"
PNG_DIR = ROOT / "resources" / "icons"
HICOLOR_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# icns element types holding PNG data: (type, pixels)
ICNS_TYPES = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"icp6", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic09", 512),
    (b"ic10", 1024),
    (b"ic11", 32),
    (b"ic12", 64),
    (b"ic13", 256),
    (b"ic14", 512),
)


def render(size: int, svg: Path = SVG) -> bytes:
    """The SVG drawn on a transparent square of ``size`` pixels, as PNG."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QIODevice
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])  # kept alive
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(str(svg)).render(painter)
    painter.end()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(buffer.data())


def png_path(size: int) -> Path:
    return PNG_DIR / f"{size}x{size}" / "paydesk.png"


def ico(pngs: dict[int, bytes]) -> bytes:
    """A Windows icon file: a directory of PNG images (256 is written as 0, as the format says)."""
    sizes = [s for s in ICO_SIZES if s in pngs]
    offset = 6 + 16 * len(sizes)
    entries = b""
    for size in sizes:
        entries += struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(pngs[size]), offset)
        offset += len(pngs[size])
    return struct.pack("<HHH", 0, 1, len(sizes)) + entries + b"".join(pngs[s] for s in sizes)


def icns(pngs: dict[int, bytes]) -> bytes:
    """A macOS icon file: typed PNG elements, big-endian lengths."""
    body = b"".join(kind + struct.pack(">I", 8 + len(pngs[size])) + pngs[size] for kind, size in ICNS_TYPES)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def write_pngs() -> list[Path]:
    written = []
    for size in HICOLOR_SIZES:
        path = png_path(size)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(render(size))
        written.append(path)
    return written


def build(out: Path) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    pngs = {size: render(size) for size in {s for _, s in ICNS_TYPES} | set(ICO_SIZES)}
    (out / "paydesk.ico").write_bytes(ico(pngs))
    (out / "paydesk.icns").write_bytes(icns(pngs))
    return out / "paydesk.ico", out / "paydesk.icns"


if __name__ == "__main__":
    if sys.argv[1:2] == ["png"]:
        for p in write_pngs():
            print(p.relative_to(ROOT))
    elif sys.argv[1:2] == ["build"] and len(sys.argv) == 3:
        for p in build(Path(sys.argv[2])):
            print(p)
    else:
        sys.exit(__doc__)
