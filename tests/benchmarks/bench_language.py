"""Start-up in French against English: `paydesk --sandbox --language fr` beside `--language
en`, started alternately the same way in the same run (issue 33: the catalogue, Qt's own
words and the formats must not slow the start; aim within 5%).

Run: .venv/bin/python tests/benchmarks/bench_language.py [--runs 9]
Prints figures (wall clock and CPU to the first paint, medians, the ratio); asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_startup import bytecode_kept, one


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="paydesk-language-"))
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        PAYDESK_REPORT_PAINT="1",
        PAYDESK_QUIT_AFTER="30",
        PAYDESK_HOME=str(tmp / "data"),
        PAYDESK_SANDBOX_HOME=str(tmp / "sandbox"),
    )
    base = [sys.executable, "-m", "paydesk", "--sandbox", "--no-keyring", "--language"]
    one([*base, "en"], env, None)  # the first run makes the sandbox's merchants; warm caches
    one([*base, "fr"], env, None)
    wall: dict[str, list[float]] = {"en": [], "fr": []}
    cpu: dict[str, list[float]] = {"en": [], "fr": []}
    for _ in range(args.runs):
        for language in ("en", "fr"):
            painted, _memory, used = one([*base, language], env, None)
            wall[language].append(painted)
            cpu[language].append(used)
    med = statistics.median
    print(f"start-up to first paint by language, median of {args.runs} runs each, alternated (offscreen)")
    for language, name in (("en", "English"), ("fr", "French")):
        print(f"  {name:8s} wall {med(wall[language]) * 1000:6.0f} ms   CPU {med(cpu[language]) * 1000:6.0f} ms")
    print(f"  bytecode kept: {bytecode_kept(env)}; load average {os.getloadavg()[0]:.2f}")
    print(
        f"language: French/English start-up wall {med(wall['fr']) / med(wall['en']):.3f}, "
        f"CPU {med(cpu['fr']) / med(cpu['en']):.3f} (aim: within 1.05)"
    )


if __name__ == "__main__":
    main()
