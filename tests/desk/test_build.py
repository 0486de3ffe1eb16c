"""The composition root builds a whole desk without a window: before any loop runs (a
headless process builds first and runs after), and in a process that never imports Qt."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from tests.helpers import MemoryKeyring

ROOT = Path(__file__).resolve().parents[2]


def test_a_desk_is_built_before_its_loop_runs(tmp_path):
    paths = Paths(data=tmp_path / "data", sandbox=tmp_path / "sandbox").ensure()
    desk = build_desk(paths, KeyStore(MemoryKeyring()))  # no running loop here
    busy: list[bool] = []
    desk.hub.ledger_busy.connect(busy.append)

    async def life() -> tuple[int, bool]:
        await desk.open()
        try:
            return len(desk.session.settings.profiles), bool(desk.session.installation_id)
        finally:
            await desk.close()

    assert asyncio.run(life()) == (0, True)
    assert busy == []  # nothing held the ledger


def test_the_inbox_is_built_beside_the_ledger(tmp_path):
    from paydesk.ledger.inbox import InboxQuery
    from paydesk.ledger.sqlite.inbox import SqliteInbox

    paths = Paths(data=tmp_path / "data", sandbox=tmp_path / "sandbox").ensure()
    desk = build_desk(paths, KeyStore(MemoryKeyring()))
    assert isinstance(desk.inbox, SqliteInbox)

    async def life() -> int:
        await desk.open()
        try:
            await desk.inbox.receive(b"{}", {}, "127.0.0.1")
            return await desk.inbox.count(InboxQuery())
        finally:
            await desk.close()

    assert asyncio.run(life()) == 1
    assert desk.session.ledger.path == paths.data / "ledger.sqlite3"  # the same file


HEADLESS = """
import asyncio, json, sys
from paydesk.desk.build import open_desk

async def main():
    desk = await open_desk(sys.argv[1], sys.argv[2], use_keyring=False)
    desk.start_background()
    await asyncio.sleep(0.2)
    said = {"profiles": len(desk.session.settings.profiles), "started": desk.started,
            "keys": desk.keys.backend_name}
    await desk.close()
    return said

said = asyncio.run(main())
said["qt"] = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "qasync"))
print(json.dumps(said))
"""


def test_open_desk_runs_a_whole_desk_in_a_process_without_qt(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", HEADLESS, str(tmp_path / "data"), str(tmp_path / "sandbox")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["qt"] == []  # the desk, its scheduler and its ledgers, and no Qt at all
    assert said["profiles"] == 0 and said["started"] is True
    assert said["keys"] == "memory (this session only)"  # use_keyring=False
    assert (tmp_path / "data" / "logs" / "paydesk.log").is_file()  # its log file, set up
    assert (tmp_path / "data" / "ledger.sqlite3").is_file()
