"""The shared ledger's password and the command line, with real processes: ``paydesk`` run
as a process of its own (offscreen), a real PostgreSQL whose role logs in with its password
(scram-sha-256 over TCP), the tests' file keyring. A password written into ``--ledger``'s
address is refused with one line (it would be readable in ``ps`` and /proc/PID/cmdline for as
long as PayDesk ran); ``--ledger-password-stdin`` reads it from standard input: it is never
in the process's arguments nor in its log, it is kept in the keyring, and the next start
connects without it. The window's path and ``--import-ledger``'s alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from paydesk.config.merchants import merchant_id, shared_fields
from paydesk.config.profiles import Profile
from paydesk.config.secrets import SERVICE_NAME
from paydesk.config.shared_ledger import password_entry
from tests import file_keyring
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[2]
SECRET = "Sh0p-ledger-pa55word-in-no-argv"


@pytest.fixture
def shop(pg_server, pg_url, tmp_path):
    """(url without a password, data folder, keyring file): the test's database reached as a
    role of its own that logs in with SECRET, one merchant in it (so that the window opens
    without the first-run question), an empty keyring."""
    dbname = pg_url.rsplit("/", 1)[1]
    role = f"till_{dbname}"
    pg_server.login_role(role, SECRET, dbname)
    profile = Profile(id="", name="Shop", base_url="https://pay.example")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO merchants (id, profile) VALUES (%s, %s)",
            (merchant_id(profile.base_url, "PK_TEST-0001"), json.dumps(shared_fields(profile))),
        )
    data = tmp_path / "data"
    keyring = tmp_path / "keyring.json"
    file_keyring.write(keyring, {})
    return f"postgresql://{role}@127.0.0.1:{pg_server.port}/{dbname}", data, keyring


def environment(keyring: Path, **more: str) -> dict[str, str]:
    env = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "tests.file_keyring.FileKeyring",
        file_keyring.VARIABLE: str(keyring),
        "QT_QPA_PLATFORM": "offscreen",
    }
    env.pop("PAYDESK_QUIT_AFTER", None)
    env.update(more)
    return env


def paydesk(*args, keyring: Path, stdin=subprocess.DEVNULL, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "paydesk", *map(str, args)],
        env=environment(keyring, **env),
        cwd=ROOT,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def log_text(data: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in (data / "logs").glob("paydesk.log*"))


def give(proc: subprocess.Popen, text: str) -> None:
    """``text`` on the process's standard input, then its end (as ``echo … |`` gives it)."""
    assert proc.stdin is not None
    try:
        proc.stdin.write(text)
        proc.stdin.close()
    except BrokenPipeError:  # it ended before reading: its exit code says why
        pass
    proc.stdin = None  # closed: communicate() only reads what it said


def cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def window_running(proc: subprocess.Popen, data: Path) -> None:
    """Until the window's start-up has looked the keyring up (the window is shown)."""
    until(lambda: "keys in " in log_text(data) or proc.poll() is not None, 60, "the window started", every=0.1)
    assert proc.poll() is None, proc.communicate()


def test_a_password_in_the_address_is_refused_with_one_line(shop):
    url, data, keyring = shop
    given = url.replace("@", f":{SECRET}@", 1)
    for extra in ((), ("--import-ledger", "--dry-run")):
        proc = paydesk("--data-dir", data, "--ledger", given, *extra, keyring=keyring)
        try:
            out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:  # it ran, the password in its arguments
                proc.kill()
        assert proc.returncode == 2, err
        assert err.strip().splitlines() == [
            "paydesk: --ledger: leave the password out of the address (it would be readable "
            "in the list of processes): give it with --ledger-password-stdin, or type it "
            "when PayDesk asks for it"
        ]
        assert SECRET not in out + err
    assert file_keyring.read(keyring) == {}  # nothing kept from it
    assert SECRET not in log_text(data)


def test_the_window_takes_the_password_from_standard_input(shop):
    url, data, keyring = shop
    proc = paydesk(
        "--data-dir",
        data,
        "--ledger",
        url,
        "--ledger-password-stdin",
        keyring=keyring,
        stdin=subprocess.PIPE,
        PAYDESK_QUIT_AFTER="4",
    )
    try:
        give(proc, SECRET + "\n")
        window_running(proc, data)
        # while it runs: the password is in neither its arguments nor its log
        assert url in cmdline(proc.pid) and SECRET not in cmdline(proc.pid)
        assert SECRET not in log_text(data)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert SECRET not in out + err + log_text(data)
    assert file_keyring.read(keyring)[(SERVICE_NAME, password_entry(url))] == SECRET

    # the next start: the password from the keyring, nothing asked
    again = paydesk("--data-dir", data, "--ledger", url, keyring=keyring, PAYDESK_QUIT_AFTER="2")
    try:
        started = time.monotonic()
        out, err = again.communicate(timeout=90)
    finally:
        if again.poll() is None:
            again.kill()
    assert again.returncode == 0, err
    assert "the shared ledger cannot be opened" not in log_text(data)
    assert time.monotonic() - started < 80


def test_the_import_takes_the_password_from_standard_input(shop):
    import asyncio

    from paydesk.ledger import SqliteLedger

    url, data, keyring = shop
    data.mkdir()
    (data / "profiles.json").write_text(json.dumps({"profiles": [], "installation_id": "K7QM4X"}))

    async def empty_ledger() -> None:  # this desk's own ledger, with nothing in it yet
        ledger = SqliteLedger(data / "ledger.sqlite3")
        await ledger.opened()
        await ledger.close()

    asyncio.run(empty_ledger())
    proc = paydesk(
        "--data-dir",
        data,
        "--ledger",
        url,
        "--ledger-password-stdin",
        "--import-ledger",
        "--dry-run",
        keyring=keyring,
        stdin=subprocess.PIPE,
    )
    assert SECRET not in cmdline(proc.pid)
    give(proc, SECRET + "\n")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.startswith("Dry run: nothing was written.")
    assert SECRET not in out + err + log_text(data)
    assert file_keyring.read(keyring)[(SERVICE_NAME, password_entry(url))] == SECRET
    # the next import: the password from the keyring
    again = paydesk("--data-dir", data, "--ledger", url, "--import-ledger", "--dry-run", keyring=keyring)
    out, err = again.communicate(timeout=60)
    assert again.returncode == 0, err
