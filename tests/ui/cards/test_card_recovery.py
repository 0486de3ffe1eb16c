"""Kill PayDesk between sending a fund and its answer (the service commits, the answer is
dropped), start it again: the fund is settled by reading the card back, marked done once,
and nothing is sent again."""

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


def test_killed_mid_fund_is_settled_on_next_start(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PAYDESK_HOME=str(tmp_path / "data"),
               PAYDESK_SANDBOX_HOME=str(tmp_path / "sandbox"))
    env.pop("PAYDESK_QUIT_AFTER", None)
    service_db = tmp_path / "sandbox" / "sandbox.sqlite3"
    ledger_db = tmp_path / "data" / "ledger.sqlite3"
    funded = "SELECT COUNT(*) FROM card_transactions WHERE card_hash = ? AND description = 'Card funded'"
    proc = subprocess.Popen([sys.executable, "-m", "tests.ui.cards.kill_helper"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()[-3000:]
        card = json.loads(line)["card"]
        deadline = time.monotonic() + 30
        while _rows(service_db, funded, card) != [(1,)]:
            assert time.monotonic() < deadline and proc.poll() is None, "the fund never arrived"
            time.sleep(0.02)
        # the service has committed the fund; its answer was dropped: kill PayDesk now
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    (state,), = _rows(ledger_db, "SELECT state FROM card_operations WHERE kind = 'fund'")
    assert state in ("sending", "lost")  # the intent was written before the call

    again = subprocess.run([sys.executable, "-m", "paydesk"], env=dict(env, PAYDESK_QUIT_AFTER="5"),
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr[-3000:]
    assert _rows(service_db, funded, card) == [(1,)]  # not sent again
    (state, settled, evidence), = _rows(
        ledger_db, "SELECT state, settled, evidence FROM card_operations WHERE kind = 'fund'")
    (tx_id,), = _rows(service_db, "SELECT id FROM card_transactions WHERE card_hash = ?"
                      " AND description = 'Card funded'", card)
    assert (state, settled, evidence) == ("done", 1, str(tx_id))
    assert _rows(service_db, "SELECT balance FROM cards WHERE card_hash = ?", card) == [("55.00",)]
    assert _rows(ledger_db, "SELECT balance_minor FROM cards WHERE card_hash = ?", card) == [(5500,)]
    results = [r for (r,) in _rows(ledger_db, "SELECT result FROM card_audit WHERE action = 'fund'"
                                              " ORDER BY id")]
    assert results[0] == "sent" and results[-1] == "checked: done"
