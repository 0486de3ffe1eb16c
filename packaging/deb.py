"""The Debian package: the bundle under /opt/paydesk, `paydesk`, `paydesk-sandbox` and
`paydesk-receiver` on the PATH, the desktop entry, hicolor icons, AppStream metainfo, manual
pages, the receiver's systemd unit (installed, never enabled: there are no maintainer
scripts), copyright and changelog; its Depends asked of dpkg-shlibdeps for every ELF file in the bundle, so that
`apt-get install ./paydesk_*.deb` pulls the libraries the bundle does not carry (the xcb set,
libegl1, fontconfig...). Built with dpkg-deb alone: no debian/ source tree to keep in step."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import tempfile
import textwrap
from email.utils import format_datetime
from pathlib import Path

from release import Release

ROOT = Path(__file__).resolve().parent.parent
LINUX = ROOT / "packaging" / "linux"
RESOURCES = ROOT / "resources"
MAINTAINER = "PayDesk developers <packaging@paydesk.invalid>"
COMMANDS = ("paydesk", "paydesk-sandbox", "paydesk-receiver")
# systemd units, installed where Debian's own are and enabled by nobody but the administrator
UNITS = ("paydesk-receiver.service",)
# Not linked, but used: xdg-open opens links and mail; a Secret Service keeps the keys.
RECOMMENDS = "xdg-utils, gnome-keyring | kwalletmanager | keepassxc"


def is_elf(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(4) == b"\x7fELF"


def architecture() -> str:
    return subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()


def shlib_depends(bundle: Path, log: Path) -> str:
    """dpkg-shlibdeps over every ELF in the bundle; libraries found in the bundle are its own."""
    elves = sorted(p for p in bundle.rglob("*") if p.is_file() and not p.is_symlink() and is_elf(p))
    lib_dirs = sorted({str(p.parent) for p in elves if ".so" in p.name})
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "debian").mkdir()
        (Path(tmp) / "debian" / "control").write_text("Source: paydesk\n\nPackage: paydesk\nArchitecture: any\n")
        done = subprocess.run(
            [
                "dpkg-shlibdeps",
                "-O",
                "--ignore-missing-info",
                *(f"-l{d}" for d in lib_dirs),
                *(f"-e{p}" for p in elves),
            ],
            cwd=tmp,
            capture_output=True,
            text=True,
        )
    log.write_text(done.stderr)
    if done.returncode != 0:
        raise SystemExit(f"dpkg-shlibdeps failed (see {log}):\n{done.stderr[-2000:]}")
    line = next(x for x in done.stdout.splitlines() if x.startswith("shlibs:Depends="))
    return line.split("=", 1)[1]


def installed_size_kib(root: Path) -> int:
    return sum(-(-p.lstat().st_size // 1024) for p in root.rglob("*") if p.is_file() or p.is_symlink()) + 4 * sum(
        1 for p in root.rglob("*") if p.is_dir()
    )


def gzip_to(text: str, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write(text.encode("utf-8"))


def changelog(release: Release) -> str:
    notes = "\n".join(
        textwrap.fill(line, 79, initial_indent="  * ", subsequent_indent="    ")
        for line in release.notes or [f"PayDesk {release.version}."]
    )
    when = format_datetime(release.date)
    return f"paydesk ({release.version}) stable; urgency=medium\n\n{notes}\n\n -- {MAINTAINER}  {when}\n"


def put(source: Path, target: Path, mode: int = 0o644) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    target.chmod(mode)


def stage(root: Path, bundle: Path, release: Release) -> None:
    opt = root / "opt" / "paydesk"
    shutil.copytree(bundle, opt, symlinks=True)
    for path in opt.rglob("*"):  # one mode for everything but the executable
        if path.is_dir():
            path.chmod(0o755)
        elif not path.is_symlink():
            path.chmod(0o644)
    (opt / "paydesk").chmod(0o755)
    for command in COMMANDS:
        link = root / "usr" / "bin" / command
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to("/opt/paydesk/paydesk")  # another top-level folder: absolute, as policy says
        gzip_to(
            (LINUX / f"{command}.1").read_text("utf-8"), root / "usr" / "share" / "man" / "man1" / f"{command}.1.gz"
        )
    for unit in UNITS:
        put(LINUX / unit, root / "lib" / "systemd" / "system" / unit)
    share = root / "usr" / "share"
    put(RESOURCES / "paydesk.desktop", share / "applications" / "paydesk.desktop")
    put(release.metainfo, share / "metainfo" / release.metainfo.name)
    put(RESOURCES / "paydesk.svg", share / "icons" / "hicolor" / "scalable" / "apps" / "paydesk.svg")
    for png in sorted((RESOURCES / "icons").glob("*/paydesk.png")):
        put(png, share / "icons" / "hicolor" / png.parent.name / "apps" / "paydesk.png")
    put(LINUX / "copyright", share / "doc" / "paydesk" / "copyright")
    gzip_to(changelog(release), share / "doc" / "paydesk" / "changelog.gz")
    put(LINUX / "lintian-overrides", share / "lintian" / "overrides" / "paydesk")


def control(release: Release, arch: str, depends: str, size: int) -> str:
    summary, *body = (LINUX / "description").read_text("utf-8").strip().splitlines()
    long = "\n".join(f" {line}" if line.strip() else " ." for line in body)
    return (
        f"Package: paydesk\nVersion: {release.version}\nArchitecture: {arch}\n"
        f"Maintainer: {MAINTAINER}\nInstalled-Size: {size}\nDepends: {depends}\n"
        f"Recommends: {RECOMMENDS}\nSection: misc\nPriority: optional\n"
        f"Homepage: {release.homepage}\nDescription: {summary}\n{long}\n"
    )


def build(bundle: Path, out: Path, work: Path, release: Release) -> Path:
    """Stage the package in ``work`` and write ``out/paydesk_VERSION_ARCH.deb``."""
    root = work / "deb-root"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    stage(root, bundle, release)
    (root / "DEBIAN").mkdir(mode=0o755)  # also where dpkg-shlibdeps finds the package's root
    # psycopg (the shared ledger) needs libpq: linked by its C speed-up (psycopg_c, found
    # by dpkg-shlibdeps), or loaded through ctypes by its pure-Python part, out of
    # dpkg-shlibdeps' sight: named here when it was not found
    depends = shlib_depends(root / "opt" / "paydesk", work / "dpkg-shlibdeps.log")
    if not any(part.split()[0] == "libpq5" for part in depends.split(", ")):
        depends += ", libpq5"
    (root / "DEBIAN" / "control").write_text(control(release, architecture(), depends, installed_size_kib(root)))
    target = out / f"paydesk_{release.version}_{architecture()}.deb"
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(int(release.date.timestamp())))
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "-Zxz", "--build", str(root), str(target)],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return target
