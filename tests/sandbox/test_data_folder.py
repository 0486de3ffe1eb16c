"""The data folder: private from the first byte, and shared safely by two processes."""

import json
import os
import resource
import signal
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest

from tests.helpers import start_sandbox


def _keys_command(data_dir, fsize_limit=None):
    def limits():
        os.umask(0o022)  # the usual umask: files 0644 unless created otherwise
        if fsize_limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of killing
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize_limit, fsize_limit))

    return subprocess.run(
        [sys.executable, "-m", "paydesk.sandbox", "keys", "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        preexec_fn=limits,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=60,
    )


def _modes(folder):
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()}


def test_merchants_file_is_0600_and_its_folder_0700(tmp_path):
    """Item 11: written 0600 from the start, in a folder only its owner can open."""
    folder = tmp_path / "sandbox"
    done = _keys_command(folder)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert _modes(folder) == {"merchants.json": 0o600}


def test_a_failed_write_never_leaves_keys_readable_by_others(tmp_path):
    """Item 11: merchants.json was written with the default umask and chmod-ed after; a
    write that fails half way (here: a file size limit of 300 bytes) left the first keys
    in a file anyone could read. Nothing readable by others is left now."""
    folder = tmp_path / "sandbox"
    done = _keys_command(folder, fsize_limit=300)
    assert done.returncode != 0  # the write really failed
    for name, mode in _modes(folder).items():
        assert mode & 0o077 == 0, (name, oct(mode))
    assert not (folder / "merchants.json").exists()
    assert _keys_command(folder).returncode == 0  # and the next start simply writes it


def test_an_existing_folder_is_made_private(tmp_path):
    """Item 11: a folder given with --data-dir that others can read is closed to them."""
    folder = tmp_path / "mine"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    assert _keys_command(folder).returncode == 0
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_two_processes_on_one_folder_lose_no_card_update(tmp_path):
    """Item 11: card balance changes read the card outside their write transaction, so two
    servers on one data folder lost updates. 60 fundings of 1 through two servers, at
    once, all count."""
    first = start_sandbox(tmp_path / "shared", base_path="/pay")
    second = start_sandbox(tmp_path / "shared", base_path="/pay")
    try:
        assert first.merchants == second.merchants
        with first.client() as c:
            card = c.post("/api/virtual_card/create", json={"amount": "100", "currency": "USD"})
            card_hash = card.json()["data"]["card_hash"]
            before = Decimal(c.get("/_sandbox/balance").json()["data"]["USD"])

        def fund(i):
            with (first if i % 2 else second).client() as c:
                r = c.post("/api/virtual_card/fund", json={"amount": "1", "card_hash": card_hash})
                return r.status_code

        with ThreadPoolExecutor(max_workers=12) as pool:
            codes = list(pool.map(fund, range(60)))
        assert codes == [200] * 60
        with second.client() as c:
            got = c.get(f"/api/virtual_card/card/{card_hash}").json()["data"]
            after = Decimal(c.get("/_sandbox/balance").json()["data"]["USD"])
            records = c.get(f"/api/virtual_card/transactions/{card_hash}").json()["data"]
        assert Decimal(got["balance"]) == Decimal(160)
        assert before - after == Decimal(60)
        assert len(records) == 61
    finally:
        first.stop()
        second.stop()


def _without_webhook_secrets(folder):
    """A data folder as sandboxes before webhook secrets wrote it."""
    assert _keys_command(folder).returncode == 0
    path = folder / "merchants.json"
    merchants = json.loads(path.read_text())
    for m in merchants:
        del m["webhook_secret"]
    path.write_text(json.dumps(merchants, indent=2))
    path.chmod(0o600)
    return merchants


def test_an_old_folder_gets_webhook_secrets_and_keeps_its_keys(tmp_path):
    folder = tmp_path / "old"
    old = _without_webhook_secrets(folder)
    running = start_sandbox(folder, family=True)
    try:
        assert [{k: v for k, v in m.items() if k != "webhook_secret"} for m in running.merchants] == old
        secrets = [m["webhook_secret"] for m in running.merchants]
        assert all(s.startswith("whsec-") and len(s) == 38 for s in secrets)
        assert len(set(secrets)) == 2
        with running.client() as c:  # the old keys still work
            assert c.get("/api/virtual_card/all").status_code == 201
    finally:
        running.stop()
    assert stat.S_IMODE((folder / "merchants.json").stat().st_mode) == 0o600
    printed = _keys_command(folder)
    assert json.loads(printed.stdout) == running.merchants  # kept from then on


@pytest.mark.slow  # two processes, about 6 s: ./dev test runs it, ./dev check leaves it out
def test_two_processes_upgrading_an_old_folder_agree(tmp_path):
    folder = tmp_path / "old"
    _without_webhook_secrets(folder)
    with ThreadPoolExecutor(max_workers=4) as pool:
        printed = list(pool.map(lambda _: _keys_command(folder), range(4)))
    assert all(p.returncode == 0 for p in printed), [p.stderr for p in printed]
    seen = [json.loads(p.stdout) for p in printed]
    assert all(s == seen[0] for s in seen)
    assert json.loads((folder / "merchants.json").read_text()) == seen[0]
    assert all("webhook_secret" in m for m in seen[0])
