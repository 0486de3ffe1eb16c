"""PayDesk killed between a call the service committed and its answer: what the crash
recovery tests share (the folders of one run, the kill, the start again)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.waiting import until


def rows(db_path: Path, sql: str, *args) -> list[tuple]:
    """A query on a file another process writes; nothing while it is not there yet."""
    if not db_path.exists():
        return []
    with sqlite3.connect(db_path) as db:
        try:
            return db.execute(sql, args).fetchall()
        except sqlite3.OperationalError:
            return []


class Run:
    """PayDesk's and its embedded sandbox's folders under ``tmp_path``."""

    def __init__(self, tmp_path: Path):
        self.env = dict(
            os.environ,
            QT_QPA_PLATFORM="offscreen",
            PAYDESK_HOME=str(tmp_path / "data"),
            PAYDESK_SANDBOX_HOME=str(tmp_path / "sandbox"),
        )
        self.env.pop("PAYDESK_QUIT_AFTER", None)
        self.service_db = tmp_path / "sandbox" / "sandbox.sqlite3"
        self.ledger_db = tmp_path / "data" / "ledger.sqlite3"

    def kill_once_committed(self, helper: str, committed: Callable[[dict], bool], what: str) -> dict:
        """Start ``python -m helper``, read the first line it prints (JSON), wait until the
        service has ``committed`` it, then SIGKILL the helper: its answer never arrives."""
        # the block closes its pipes once the helper has ended (not left to the collector)
        with subprocess.Popen(
            [sys.executable, "-m", helper], env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        ) as proc:
            try:
                line = proc.stdout.readline()
                assert line, proc.stderr.read()[-3000:]
                said = json.loads(line)
                until(lambda: committed(said) or proc.poll() is not None, 30, what)
                assert committed(said), f"{what} never arrived (the helper ended first)"
                proc.send_signal(signal.SIGKILL)
                proc.wait(10)
            finally:
                if proc.poll() is None:
                    proc.kill()
        return said

    def start_again(self, quit_after: float) -> None:
        """PayDesk started again, quitting by itself after ``quit_after`` seconds."""
        again = subprocess.run(
            [sys.executable, "-m", "paydesk"],
            env=dict(self.env, PAYDESK_QUIT_AFTER=str(quit_after)),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert again.returncode == 0, again.stderr[-3000:]
