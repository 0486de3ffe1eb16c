"""paydesk-receiver given a configuration it cannot use, as a real process: every such
mistake (an option, the ledger's address or TLS, the key file, the folder, what the
ledger's server refuses) is one plain line on stderr and exit status 78, which the systemd
unit names in ``RestartPreventExitStatus=`` so that systemd does not start it again and
again; a ledger that cannot be reached for now is one line and status 1 (started again)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import free_port
from tests.receiver.test_command import COMMAND

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes of POSIX")
CONFIGURATION = 78  # EX_CONFIG of sysexits.h; systemd shows it as "78/CONFIG"
UNIT = Path(__file__).resolve().parents[2] / "packaging" / "linux" / "paydesk-receiver.service"


def _keys(tmp_path: Path, password: str | None = None) -> Path:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({"profiles": {}, **({"ledger_password": password} if password else {})}))
    path.chmod(0o600)
    return path


def _run(*args: str, timeout: int = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(COMMAND), *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    """What it said: one line on stderr, starting with its name, and no traceback."""
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("paydesk-receiver: "), lines[0]
    assert "listening at" not in done.stdout
    return lines[0]


def test_the_documented_address_without_tls_is_a_configuration_error(tmp_path):
    """RECEIVER.md's example before it asked for TLS: refused by the TLS rule in one line."""
    done = _run(
        "--ledger",
        "postgresql://paydesk@db.shop.lan/paydesk",
        "--port",
        "0",
        "--keys-file",
        str(_keys(tmp_path)),
        "--data-dir",
        str(tmp_path / "r"),
    )
    said = _one_line(done)
    assert done.returncode == CONFIGURATION, (done.returncode, said)
    assert "sslmode=require" in said


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--ledger", "mysql://paydesk@db.shop.lan/paydesk"], "postgresql://"),
        (["--ledger", "postgresql://paydesk@db.shop.lan/?sslmode=require"], "database"),
        (["--ledger", "postgresql://paydesk@db.shop.lan/paydesk?sslmode=sometimes"], "sslmode"),
        (["--ledger", ""], "--ledger"),  # systemd's ${PAYDESK_LEDGER} when receiver.env lacks it
        (["--ledger", "{tmp}/nothing-here/ledger.sqlite3"], "no ledger at"),
        (["--ledger", "{tmp}/keys.json"], "cannot be opened"),  # a file, but not a ledger
        (["--ledger", "{tmp}/desk/ledger.sqlite3", "--keys-file", "{tmp}/missing.json"], "missing.json"),
        (["--ledger", "{tmp}/desk/ledger.sqlite3", "--port", "abc"], "--port"),
        (["--ledger", "{tmp}/desk/ledger.sqlite3", "--port", "70000"], "--port"),
        (["--ledger", "{tmp}/desk/ledger.sqlite3", "--frobnicate"], "--frobnicate"),
        (["--ledger", "{tmp}/desk/ledger.sqlite3", "--keep-refused", "0"], "--keep-refused"),
        (["--port", "0"], "--ledger"),
        (["--ledger", "{tmp}/desk/ledger.sqlite3", "--data-dir", "/proc/paydesk"], "/proc/paydesk"),
    ],
)
def test_each_configuration_mistake_is_one_line_and_status_78(tmp_path, args, words):
    (tmp_path / "desk").mkdir()
    (tmp_path / "desk" / "ledger.sqlite3").touch()  # an empty file: SQLite makes a ledger of it
    keys = _keys(tmp_path)
    given = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if "--keys-file" not in given:
        given += ["--keys-file", str(keys)]
    if "--port" not in given:
        given += ["--port", "0"]
    done = _run(*given)
    said = _one_line(done)
    assert done.returncode == CONFIGURATION, (done.returncode, said)
    assert words in said, said


def test_a_key_file_that_is_not_json_is_a_configuration_error(tmp_path):
    keys = tmp_path / "keys.json"
    keys.write_text("{not json")
    keys.chmod(0o600)
    (tmp_path / "ledger.sqlite3").touch()
    done = _run("--ledger", str(tmp_path / "ledger.sqlite3"), "--keys-file", str(keys), "--port", "0")
    said = _one_line(done)
    assert done.returncode == CONFIGURATION and "keys.json" in said, said


def test_a_password_the_server_refuses_is_a_configuration_error(tmp_path, pg_server):
    database = pg_server.fresh_database()
    pg_server.login_role(f"r{database}", "the-right-one", database)
    url = f"postgresql://r{database}@127.0.0.1:{pg_server.port}/{database}"
    done = _run(
        "--ledger",
        url,
        "--keys-file",
        str(_keys(tmp_path, "a-wrong-one")),
        "--port",
        "0",
        "--data-dir",
        str(tmp_path / "r"),
    )
    said = _one_line(done)
    assert done.returncode == CONFIGURATION, (done.returncode, said)
    assert "password" in said and "a-wrong-one" not in said
    # no password at all: the server asks for one
    done = _run("--ledger", url, "--keys-file", str(_keys(tmp_path)), "--port", "0", "--data-dir", str(tmp_path / "r"))
    said = _one_line(done)
    assert done.returncode == CONFIGURATION and "password" in said, said
    # a database the server does not have
    done = _run(
        "--ledger",
        f"postgresql://r{database}@127.0.0.1:{pg_server.port}/none_such",
        "--keys-file",
        str(_keys(tmp_path, "the-right-one")),
        "--port",
        "0",
        "--data-dir",
        str(tmp_path / "r"),
    )
    said = _one_line(done)
    assert done.returncode == CONFIGURATION and "none_such" in said, said


def test_a_ledger_out_of_reach_for_now_is_one_line_and_status_1(tmp_path):
    """Nothing answers there yet (PostgreSQL starting after it, the network not up): systemd's
    ``Restart=on-failure`` starts it again, so it is not status 78."""
    url = f"postgresql://paydesk@127.0.0.1:{free_port()}/paydesk"
    done = _run(
        "--ledger", url, "--keys-file", str(_keys(tmp_path, "secret")), "--port", "0", "--data-dir", str(tmp_path / "r")
    )
    said = _one_line(done)
    assert done.returncode == 1, (done.returncode, said)
    assert "Nothing answers at 127.0.0.1" in said


def test_the_help_and_the_unit_name_the_exit_statuses():
    done = _run("--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "exit status" in text.lower()
    assert f"{CONFIGURATION}: " in text and "configuration" in text
    unit = {
        k.strip(): v.strip()
        for k, _, v in (line.partition("=") for line in UNIT.read_text().splitlines())
        if not k.startswith("#")
    }
    assert unit.get("RestartPreventExitStatus") == str(CONFIGURATION)
    assert unit.get("Restart") == "on-failure"
