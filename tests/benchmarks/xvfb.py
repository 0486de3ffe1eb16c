"""A virtual X display of the benchmark's own (Xvfb) for Qt's xcb platform: a free display
number (Xvfb picks it and writes it when ready), two screens as a counter has (the staff's and
the customer's: two X screens, which Qt offers as two monitors), stopped at the end."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCREENS = ("1400x900x24", "1280x1024x24")  # the staff's, then the customer's


def _ends_with_us() -> None:
    """In the child: the X server is stopped when the benchmark dies (its watchdog too)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@contextmanager
def xvfb_display(screens: tuple[str, ...] = SCREENS) -> Iterator[str]:
    """Start Xvfb on a free display; yields its name (":N"); stops it on leaving."""
    binary = shutil.which("Xvfb")
    if binary is None:
        raise SystemExit("Xvfb is not installed (Debian package xvfb: scripts/system-deps)")
    handle, name = tempfile.mkstemp(prefix="paydesk-bench-xvfb-", suffix=".log")
    os.close(handle)  # reopened below for Xvfb's messages
    log = Path(name)
    read, write = os.pipe()
    args = [binary, "-displayfd", str(write), "-nolisten", "tcp"]
    for number, screen in enumerate(screens):
        args += ["-screen", str(number), screen]
    with open(log, "w") as out:
        proc = subprocess.Popen(
            args, pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=out, preexec_fn=_ends_with_us
        )
    os.close(write)
    try:
        with os.fdopen(read) as ready:
            number = ready.readline().strip()
        if not number:
            raise SystemExit(f"Xvfb did not start: {log.read_text()[-1000:]}")
        yield f":{number}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.unlink(missing_ok=True)
