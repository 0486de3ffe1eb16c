"""The installed PayDesk (the .deb) beside PayDesk from the source tree: start-up to the main
window's first paint of `paydesk --sandbox`, median of N runs each, interleaved, in the same
run; and the sizes: the bundle on disk (/opt/paydesk) and the .deb.

Run: ./dev package && sudo apt-get install ./dist/paydesk_*.deb
     .venv/bin/python tests/benchmarks/bench_installed.py [--runs 5] [--deb dist/paydesk_*.deb]
(./dev bench runs it too, and says so when PayDesk is not installed.) Prints figures; asserts
nothing about time. Offscreen platform, as bench_startup.py; no keyring.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_startup import one

INSTALLED = Path("/usr/bin/paydesk")
ROOT = Path(__file__).resolve().parents[2]


def disk_usage_mb(path: Path) -> float:
    kib = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True).stdout.split()[0]
    return int(kib) / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument(
        "--deb", type=Path, default=max(ROOT.glob("dist/paydesk_*.deb"), default=None, key=lambda p: p.stat().st_mtime)
    )
    args = ap.parse_args()
    if not INSTALLED.exists():
        print(
            "bench_installed: PayDesk is not installed (./dev package, then "
            "apt-get install ./dist/paydesk_*.deb): no figures"
        )
        return
    tmp = Path(tempfile.mkdtemp(prefix="paydesk-installed-"))
    base = dict(os.environ, QT_QPA_PLATFORM="offscreen", PAYDESK_REPORT_PAINT="1", PAYDESK_QUIT_AFTER="30")
    commands = {
        "installed": ([str(INSTALLED), "--sandbox", "--no-keyring"], tmp / "installed"),
        "source": ([sys.executable, "-m", "paydesk", "--sandbox", "--no-keyring"], tmp / "source"),
    }
    envs = {
        name: dict(base, PAYDESK_HOME=str(home / "data"), PAYDESK_SANDBOX_HOME=str(home / "sb"))
        for name, (_, home) in commands.items()
    }
    for name, (cmd, _) in commands.items():
        one(cmd, envs[name], None)  # first run: the sandbox's merchants, the profile; warm caches
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, (cmd, _) in commands.items():
            times[name].append(one(cmd, envs[name], None)[0])
    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"start-up to first paint, paydesk --sandbox, median of {args.runs} runs (offscreen)")
    print(f"  installed (/opt/paydesk bundle): {med['installed'] * 1000:7.0f} ms")
    print(f"  from the source tree (.venv):    {med['source'] * 1000:7.0f} ms")
    print(f"  ratio installed / source:        {med['installed'] / med['source']:7.2f}")
    print(f"bundle on disk (/opt/paydesk): {disk_usage_mb(Path('/opt/paydesk')):.1f} MB")
    if args.deb:
        print(f".deb ({args.deb.name}): {args.deb.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
