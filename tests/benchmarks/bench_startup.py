"""Start-up: process start to the main window's first paint, `paydesk --sandbox` beside a bare
PySide6 window with three empty tabs started the same way, in the same run; then to the
window's paint with its desk (the frame paints first, "Opening the ledger…", and the desk's
tabs come once the ledger is open); and PayDesk's resident memory once idle.

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_startup.py [--runs 5])
Prints figures; asserts nothing about time. Offscreen platform (no display here).
Beside the wall-clock time it prints the CPU time each process had used by its first paint
(all its threads, from /proc): on a machine shared with other work the wall-clock figures
swing with the load, the CPU figures much less. It also says whether PayDesk's own modules
had their bytecode kept (PYTHONDONTWRITEBYTECODE set and no __pycache__ beside the source:
each start compiles them again, as a source tree run under that setting does; an installed
PayDesk has its bytecode).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_s(pid: int) -> float:
    """The CPU time of every thread of ``pid`` so far (nanoseconds in /proc/PID/task/*/schedstat)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended meanwhile
    return total / 1e9


def one(cmd: list[str], env: dict, idle: float | None) -> tuple[float, float | None, float, float | None]:
    """Seconds to the first paint, resident MB after ``idle`` s, CPU s by the first paint, and
    seconds to the window's paint with its desk (PayDesk's "window-ready"; None: the bare one)."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    painted = ready = None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"{cmd} ended before painting")
        if line.strip() == "first-paint":
            painted = time.perf_counter() - started
            cpu = cpu_s(proc.pid)
            if cmd[-1].endswith("bare_window.py"):  # it prints nothing more
                break
        elif line.strip() == "window-ready":
            ready = time.perf_counter() - started
            break
    memory = None
    if idle:
        time.sleep(idle)
        memory = rss_mb(proc.pid)
    proc.terminate()
    proc.wait(20)
    return painted, memory, cpu, ready


def bytecode_kept(env: dict) -> str:
    import paydesk

    cached = any(Path(paydesk.__file__).parent.rglob("__pycache__/*.pyc"))
    if cached:
        return "yes (__pycache__ beside the source)"
    return "no (compiled at every start)" if env.get("PYTHONDONTWRITEBYTECODE") else "yes (written at the first run)"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="paydesk-startup-"))
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        PAYDESK_REPORT_PAINT="1",
        PAYDESK_QUIT_AFTER="30",
        PAYDESK_HOME=str(tmp / "data"),
        PAYDESK_SANDBOX_HOME=str(tmp / "sandbox"),
    )
    app_cmd = [sys.executable, "-m", "paydesk", "--sandbox", "--no-keyring"]
    bare_cmd = [sys.executable, str(HERE / "bare_window.py")]
    one(app_cmd, env, None)  # first run creates the sandbox's merchants; warm caches
    one(bare_cmd, env, None)
    app_times, bare_times, memories, app_cpu, bare_cpu, ready_times = [], [], [], [], [], []
    for _ in range(args.runs):
        painted, _, cpu, _ = one(bare_cmd, env, None)
        bare_times.append(painted)
        bare_cpu.append(cpu)
        painted, memory, cpu, ready = one(app_cmd, env, 4.0)
        app_times.append(painted)
        memories.append(memory)
        app_cpu.append(cpu)
        ready_times.append(ready)
    med = statistics.median
    print(f"start-up to first paint, median of {args.runs} runs (offscreen)")
    print(f"  bare PySide6 window, 3 empty tabs: {med(bare_times) * 1000:7.0f} ms")
    print(f"  paydesk --sandbox:                 {med(app_times) * 1000:7.0f} ms")
    print(f"  ratio:                             {med(app_times) / med(bare_times):7.2f}")
    print(f"  CPU by the first paint, bare:      {med(bare_cpu) * 1000:7.0f} ms")
    print(f"  CPU by the first paint, paydesk:   {med(app_cpu) * 1000:7.0f} ms")
    print(f"  CPU ratio:                         {med(app_cpu) / med(bare_cpu):7.2f}")
    print(f"  paydesk's window with its desk:    {med(ready_times) * 1000:7.0f} ms (its tabs painted)")
    print(f"  ratio, with its desk:              {med(ready_times) / med(bare_times):7.2f}")
    print(f"  PayDesk's bytecode kept: {bytecode_kept(env)}; load average {os.getloadavg()[0]:.2f}")
    print(
        f"PayDesk resident memory once idle (4 s after its window painted with its desk, sandbox running): "
        f"{med(memories):.0f} MB"
    )


if __name__ == "__main__":
    main()
