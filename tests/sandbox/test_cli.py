"""paydesk-sandbox as a program: the serving line, keys, restarts, arguments."""

import json
import signal
import subprocess
import sys

import httpx

from tests.helpers import payment
from tests.waiting import until


def _start(data_dir, *extra):
    proc = subprocess.Popen(
        [sys.executable, "-m", "paydesk.sandbox", "--port", "0", "--data-dir", str(data_dir), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline().strip()
    assert line.startswith("serving http://127.0.0.1:"), (line, proc.stderr.read() if proc.poll() else "")
    return proc, line.split(" ", 1)[1]


def _stop(proc):
    proc.send_signal(signal.SIGINT)
    try:
        code = proc.wait(timeout=15)
    finally:  # its pipes closed here, not left to the collector (a ResourceWarning, an error)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert code == 0


def test_serves_keys_and_survives_restart(tmp_path):
    proc, base = _start(tmp_path, "--base-path", "/pay/", "--deployment", "cards")
    try:
        assert base.endswith("/pay")
        merchants = json.loads((tmp_path / "merchants.json").read_text())
        assert len(merchants) == 2
        for m in merchants:
            assert set(m) == {"id", "name", "keys", "webhook_secret"}
            for mode in ("test", "live"):
                for kind, prefix in (("secret", "sec"), ("public", "pub")):
                    key = m["keys"][mode][kind]
                    assert key.startswith(f"{prefix}-{mode}-") and len(key) == len(prefix) + len(mode) + 2 + 32
        secret = merchants[0]["keys"]["test"]["secret"]
        r = httpx.post(base + "/api/payment", json=payment("CLI-1"), headers={"Authorization": f"Bearer {secret}"})
        assert r.status_code == 201
    finally:
        _stop(proc)
    keys = subprocess.run(
        [sys.executable, "-m", "paydesk.sandbox", "keys", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(keys.stdout) == merchants
    proc, base2 = _start(tmp_path, "--base-path", "/pay")
    try:
        r = httpx.get(base2 + "/api/transaction/CLI-1", headers={"Authorization": f"Bearer {secret}"})
        assert r.json()["data"]["tx_ref"] == "CLI-1"
    finally:
        _stop(proc)
    assert oct((tmp_path / "merchants.json").stat().st_mode & 0o777) == "0o600"


def test_bad_arguments_are_refused(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "paydesk.sandbox", "--deployment", "other", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "invalid choice" in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "paydesk.sandbox", "--smtp", "nohostport", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "HOST:PORT" in r.stderr


def test_quirks_flag_from_command_line(tmp_path):
    proc, base = _start(tmp_path, "--quirks", "--deployment", "no-cards")
    try:
        secret = json.loads((tmp_path / "merchants.json").read_text())[0]["keys"]["test"]["secret"]
        h = {"Authorization": f"Bearer {secret}"}
        assert httpx.post(base + "/api/payment", json=payment("Q", currency="EUR"), headers=h).status_code == 201
        assert httpx.get(base + "/api/transaction/Q", headers=h).json()["message"] == "Payment not submitted"
        assert httpx.get(base + "/api/virtual_card/all", headers=h).status_code == 400
    finally:
        _stop(proc)


def test_family_and_webhook_url_from_the_command_line(tmp_path):
    import hashlib
    import hmac

    from tests.helpers import Listener

    hook = Listener()
    proc, base = _start(tmp_path, "--family", "--webhook-url", hook.url)
    try:
        merchant = json.loads((tmp_path / "merchants.json").read_text())[0]
        h = {"Authorization": f"Bearer {merchant['keys']['test']['secret']}"}
        url = httpx.post(base + "/api/payment", json=payment("FAM", amount=12), headers=h).json()["data"][
            "checkout_url"
        ]
        assert httpx.get(base + "/api/transaction/FAM", headers=h).status_code == 404
        r = httpx.get(base + "/api/verify-payment/FAM", headers=h)
        assert r.status_code == 404 and r.json()["message"] == "Payment not submitted"
        httpx.post(
            base + f"/_sandbox/pay/{url.rsplit('/', 1)[1]}", json={"outcome": "success"}, headers=h
        ).raise_for_status()
        until(lambda: hook.received, 10, "the notification")
        raw = hook.received[0]["raw"]
        expected = hmac.new(merchant["webhook_secret"].encode(), raw, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(hook.received[0]["headers"]["Signature"], expected)
    finally:
        _stop(proc)
        hook.close()
    keys = subprocess.run(
        [sys.executable, "-m", "paydesk.sandbox", "keys", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(keys.stdout)[0]["webhook_secret"] == merchant["webhook_secret"]


def test_family_refuses_quirks_and_webhook_url_needs_family(tmp_path):
    run = [sys.executable, "-m", "paydesk.sandbox", "--data-dir", str(tmp_path)]
    r = subprocess.run(run + ["--family", "--quirks"], capture_output=True, text=True)
    assert r.returncode == 2 and "not allowed with argument" in r.stderr
    r = subprocess.run(run + ["--webhook-url", "http://127.0.0.1:9/h"], capture_output=True, text=True)
    assert r.returncode == 2 and "--webhook-url is for --family" in r.stderr
    r = subprocess.run(run + ["--family", "--webhook-url", "ftp://x"], capture_output=True, text=True)
    assert r.returncode == 2 and "http or https URL" in r.stderr
