"""Kill PayDesk right after a create is sent (the service commits, the answer is dropped),
start it again: exactly one link, in the service and in the ledger, settled."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time


def _rows(db_path, sql, *args):
    if not db_path.exists():
        return []
    with sqlite3.connect(db_path) as db:
        try:
            return db.execute(sql, args).fetchall()
        except sqlite3.OperationalError:
            return []


def test_killed_mid_create_is_settled_on_next_start(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PAYDESK_HOME=str(tmp_path / "data"),
               PAYDESK_SANDBOX_HOME=str(tmp_path / "sandbox"))
    env.pop("PAYDESK_QUIT_AFTER", None)
    service_db = tmp_path / "sandbox" / "sandbox.sqlite3"
    ledger_db = tmp_path / "data" / "ledger.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "tests.ui.crash_helper"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()[-3000:]
        tx_ref = json.loads(line)["creating"]
        deadline = time.monotonic() + 30
        while not _rows(service_db, "SELECT 1 FROM transactions WHERE tx_ref = ?", tx_ref):
            assert time.monotonic() < deadline and proc.poll() is None, "the create never arrived"
            time.sleep(0.02)
        # the service has committed it; the answer was dropped: kill PayDesk now
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert _rows(ledger_db, "SELECT state, checkout_url FROM links WHERE tx_ref = ?", tx_ref) == [
        ("creating", None)]

    again = subprocess.run([sys.executable, "-m", "paydesk"], env=dict(env, PAYDESK_QUIT_AFTER="4"),
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr[-3000:]
    assert _rows(service_db, "SELECT COUNT(*) FROM transactions WHERE tx_ref = ?", tx_ref) == [(1,)]
    (state, url, reference), = _rows(
        ledger_db, "SELECT state, checkout_url, reference FROM links WHERE tx_ref = ?", tx_ref)
    (service_reference,), = _rows(service_db, "SELECT reference FROM transactions WHERE tx_ref = ?",
                                  tx_ref)
    assert state == "pending" and reference == service_reference
    assert url.endswith(f"/payment/{service_reference}")
    assert _rows(ledger_db, "SELECT COUNT(*) FROM links") == [(1,)]
    assert _rows(service_db, "SELECT COUNT(*) FROM transactions") == [(1,)]
