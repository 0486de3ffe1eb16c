"""A sandbox of its own for a benchmark: a separate process, as PayDesk meets a service."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def start_sandbox(data_dir: Path, *options: str) -> tuple[subprocess.Popen, str, dict]:
    """Start ``paydesk.sandbox`` on a free port with its data in ``data_dir`` (``options``:
    more of its command line, e.g. ``--family``); returns the process (terminate it when
    done), its base URL and the first merchant's test keys."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "paydesk.sandbox",
            "--port",
            "0",
            "--data-dir",
            str(data_dir),
            "--base-path",
            "/pay",
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    base = proc.stdout.readline().split(" ", 1)[1].strip()
    keys = json.loads((data_dir / "merchants.json").read_text())[0]["keys"]["test"]
    return proc, base, keys


@contextmanager
def sandbox_running(data_dir: Path) -> Iterator[tuple[str, dict]]:
    """``start_sandbox`` for the length of a ``with``: yields its base URL and test keys, and
    stops the process at the end, whatever happened."""
    proc, base, keys = start_sandbox(data_dir)
    try:
        yield base, keys
    finally:
        proc.terminate()
        proc.wait(10)
