"""Third-party licences for the bundle: each installed distribution's licence files, and a
README listing every distribution with its version and licence. Called by paydesk.spec."""

from __future__ import annotations

import shutil
import sysconfig
from importlib import metadata
from pathlib import Path

# in the build environment only to build; nothing of theirs is bundled
BUILD_TOOLS = {"pyinstaller", "pyinstaller-hooks-contrib", "altgraph", "pip", "setuptools", "wheel", "packaging"}
LICENCE_WORDS = ("licen", "copying", "notice", "authors")
# code compiled into a distribution whose own files do not carry its licence: (its notices
# here, what the README adds to the distribution's line)
NOTICES = {
    "zxing-cpp": (
        [Path(__file__).parent / "notices" / f"{part}-LICENSE.txt" for part in ("zint", "zueci", "nanobind")],
        "with libzint, libzueci and nanobind compiled in: BSD-3-Clause",
    )
}


def _name(dist: metadata.Distribution) -> str:
    return dist.metadata["Name"].lower().replace("_", "-")


def _licence(dist: metadata.Distribution) -> str:
    meta = dist.metadata
    return (
        meta.get("License-Expression")
        or (meta.get("License") or "").split("\n")[0]
        or next(
            (c.split("::")[-1].strip() for c in meta.get_all("Classifier") or [] if c.startswith("License ::")),
            "see its files",
        )
    )


def collect(out: Path) -> Path:
    """Write the licences under ``out`` (emptied first); return it."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    lines = ["Third-party software in this PayDesk bundle, with the licence each is used under.", ""]
    python_licence = Path(sysconfig.get_paths()["stdlib"]) / "LICENSE.txt"
    if python_licence.exists():
        (out / "python").mkdir()
        shutil.copyfile(python_licence, out / "python" / "LICENSE.txt")
    lines.append(f"python {sysconfig.get_python_version()}: PSF-2.0")
    for dist in sorted(metadata.distributions(), key=_name):
        name = _name(dist)
        if name in BUILD_TOOLS or name == "paydesk":
            continue
        notices, words = NOTICES.get(name, ([], ""))
        lines.append(f"{name} {dist.version}: {_licence(dist)}" + (f", {words}" if words else ""))
        for notice in notices:
            (out / name).mkdir(exist_ok=True)
            shutil.copyfile(notice, out / name / notice.name)
        for file in dist.files or []:
            if any(word in file.name.lower() for word in LICENCE_WORDS) and ".dist-info" in str(file):
                target = out / name / file.name
                target.parent.mkdir(exist_ok=True)
                shutil.copyfile(file.locate(), target)
    (out / "README").write_text("\n".join(lines) + "\n", "utf-8")
    return out
