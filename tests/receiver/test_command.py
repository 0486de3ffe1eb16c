"""paydesk-receiver as a real process: it reads its keys from a file its user alone may
read (and refuses one that others may), writes into a desk's SQLite ledger, stops cleanly on
SIGTERM, and when killed between answering and re-reading, settles the record at its next
start (the inbox was written before the answer)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from paydesk.ledger.inbox import PENDING, InboxQuery
from tests.helpers import free_port
from tests.receiver.conftest import request
from tests.waiting import until

COMMAND = Path(sys.executable).with_name("paydesk-receiver")
pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes and signals of POSIX")


def _keys_file(path: Path, profile_id: str, sandbox, mode: int = 0o600) -> Path:
    path.write_text(
        json.dumps(
            {"profiles": {profile_id: {"test": sandbox.key("test", "secret"), "live": sandbox.key("live", "secret")}}}
        )
    )
    path.chmod(mode)
    return path


class Running:
    def __init__(self, desk, keys: Path, port: int, tmp_path: Path):
        self.process = subprocess.Popen(
            [
                str(COMMAND),
                "--ledger",
                str(desk.paths.data / "ledger.sqlite3"),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--data-dir",
                str(tmp_path / "receiver"),
                "--keys-file",
                str(keys),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.process.stdout.readline()
        assert "listening at" in line, (line, self.process.stderr.read() if self.process.poll() is not None else "")

    def stop(self, signum: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        code = self.process.wait(timeout=30)
        self.process.stdout.close()
        self.process.stderr.close()
        return code


@pytest.fixture
def started():
    running: list[Running] = []

    def start(*args) -> Running:
        running.append(Running(*args))
        return running[-1]

    yield start
    for one in running:
        one.stop(signal.SIGKILL)


def _answered(sandbox) -> list[dict]:
    """The sandbox's notification attempts that the receiver answered 200."""
    with sandbox.client() as c:
        log = c.get("/_sandbox/notifications").json()["data"]
    return [n for n in log if n["status_code"] == 200]


@pytest.mark.slow  # two processes, about 6 s: ./dev test runs it, ./dev check leaves it out
async def test_killed_after_answering_it_settles_the_record_at_its_next_start(
    desk, add_profile, service, sandbox, tmp_path, started
):
    profile = await add_profile()
    port = free_port()
    keys = _keys_file(tmp_path / "keys.json", profile.id, sandbox)
    record = await desk.links.create(request("KILL-1", callback_url=f"http://127.0.0.1:{port}/notifications"))
    receiver = await asyncio.to_thread(started, desk, keys, port, tmp_path)
    service.faults(latency_ms=4000)  # its re-read at the service: slow, so it is under way
    await asyncio.to_thread(service.control, f"pay/{record.reference}", {"outcome": "success"})
    await asyncio.to_thread(until, lambda: _answered(sandbox), 15, "the receiver's 200")
    assert receiver.stop(signal.SIGKILL) == -signal.SIGKILL  # between answering and re-reading
    kept = await desk.inbox.page(InboxQuery())
    assert [(e.verdict, e.tx_ref) for e in kept] == [(PENDING, "KILL-1")]
    assert (await desk.session.ledger.get(profile.id, "KILL-1")).state == "pending"
    service.faults()  # the service answers at once again
    again = await asyncio.to_thread(started, desk, keys, port, tmp_path)

    async def settled():
        entry = await desk.inbox.get(kept[0].id)
        now = await desk.session.ledger.get(profile.id, "KILL-1")
        return entry.verdict != PENDING and now.state == "success"

    await asyncio.wait_for(_poll(settled), 20)
    # (applied by the re-read, or stale when the restarted receiver's own check came first)
    assert (await desk.inbox.get(kept[0].id)).verdict in ("applied", "stale")
    assert again.stop() == 0  # SIGTERM: a clean stop


async def _poll(predicate):
    while not await predicate():  # noqa: ASYNC110 (polls a state no event announces)
        await asyncio.sleep(0.05)


# the real command, its HTTP server made to fail (or to end of itself) once it listens
FAILING = """
import asyncio, sys
from paydesk.receiver import cli, serve

async def main_loop(self):
    await asyncio.sleep(0.5)
    if sys.argv[1] == "raises":
        raise RuntimeError("the server broke")

serve._Server.main_loop = main_loop
sys.exit(cli.main(sys.argv[2:]))
"""


@pytest.mark.parametrize("how", ["raises", "ends"])
async def test_a_server_that_stops_of_itself_ends_the_command_with_a_failure(desk, add_profile, sandbox, tmp_path, how):
    """``Restart=on-failure`` restarts it: the status is not 0, and it says why."""
    profile = await add_profile()
    keys = _keys_file(tmp_path / "keys.json", profile.id, sandbox)
    done = await asyncio.to_thread(
        subprocess.run,
        [
            sys.executable,
            "-c",
            FAILING,
            how,
            "--ledger",
            str(desk.paths.data / "ledger.sqlite3"),
            "--port",
            "0",
            "--keys-file",
            str(keys),
            "--data-dir",
            str(tmp_path / "receiver"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "listening at" in done.stdout, done.stderr
    assert done.returncode == 1, (done.returncode, done.stderr)
    said = "the server broke" if how == "raises" else "it ended of itself"
    assert f"paydesk-receiver: the server stopped: {said}" in done.stderr
    logged = "\n".join(p.read_text() for p in (tmp_path / "receiver").rglob("*.log*"))
    assert "the receiver's server stopped" in logged


def test_a_key_file_others_may_read_is_refused(tmp_path, sandbox):
    ledger = tmp_path / "desk" / "ledger.sqlite3"
    ledger.parent.mkdir()
    ledger.touch()
    for mode in (0o644, 0o640, 0o604, 0o660):
        keys = _keys_file(tmp_path / "keys.json", "p1", sandbox, mode)
        done = subprocess.run(
            [str(COMMAND), "--ledger", str(ledger), "--port", "0", "--keys-file", str(keys)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 78, (oct(mode), done.stderr)
        assert "may be read by others" in done.stderr and "chmod 600" in done.stderr
        assert sandbox.key("test", "secret") not in done.stderr + done.stdout
    assert not (tmp_path / "desk" / "logs").exists()  # refused before anything started


def test_the_help_names_the_options_and_the_keys(tmp_path):
    done = subprocess.run([str(COMMAND), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    for word in (
        "--ledger",
        "--host",
        "--port",
        "--data-dir",
        "--keys-file",
        "--list-profiles",
        "PAYDESK_KEYS_FILE",
        "PAYDESK_KEYS",
        "PAYDESK_LEDGER_PASSWORD",
        '"profiles"',
        '"webhook"',
        "chmod 600",
        "/notifications",
    ):
        assert word in done.stdout, word


async def test_it_lists_the_profiles_and_which_keys_it_found(desk, add_profile, sandbox, tmp_path):
    profile = await add_profile()
    keys = _keys_file(tmp_path / "keys.json", profile.id, sandbox)
    done = await asyncio.to_thread(
        subprocess.run,
        [
            str(COMMAND),
            "--ledger",
            str(desk.paths.data / "ledger.sqlite3"),
            "--keys-file",
            str(keys),
            "--list-profiles",
            "--data-dir",
            str(tmp_path / "receiver"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"{profile.id}\ttest,live\tShop\t{sandbox.base_url}"]
    assert sandbox.key("test", "secret") not in done.stdout + done.stderr


async def test_a_second_sigterm_while_it_closes_still_lets_it_close(desk, add_profile, sandbox, tmp_path, started):
    """``runuser`` (or a terminal's Ctrl+C to the whole group) hands the signal on to the
    receiver that got it already: the second one, while it closes, ends nothing early."""
    profile = await add_profile()
    keys = _keys_file(tmp_path / "keys.json", profile.id, sandbox)
    receiver = await asyncio.to_thread(started, desk, keys, free_port(), tmp_path)
    receiver.process.send_signal(signal.SIGTERM)
    await asyncio.sleep(0.15)
    receiver.process.send_signal(signal.SIGTERM)
    assert await asyncio.to_thread(receiver.stop) == 0
    logged = "\n".join(p.read_text() for p in (tmp_path / "receiver").rglob("*.log*"))
    assert "paydesk-receiver stopping" in logged
