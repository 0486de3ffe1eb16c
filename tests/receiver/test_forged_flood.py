"""A flood of forged notifications at the real ``paydesk-receiver`` (issue 29: 100 forged
60 KB bodies took 5.9 MB and 104 rows of the Notifications window): on a desk's SQLite file
and on a shop's PostgreSQL alike, what they leave is bounded (a few traces of 256 bytes
and one counter row per peer and minute), every one of them is counted, and a verified
notification sent among them is still kept whole. The peer is the address the proxy in
front names (``X-Forwarded-For``, trusted from 127.0.0.1 only, as nginx sets it)."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.ledger.inbox import REFUSED_HEAD, REFUSED_PER_MINUTE, InboxQuery
from paydesk.receiver.signature import sign
from tests import profiles
from tests.helpers import MemoryKeyring, free_port
from tests.receiver.test_command import COMMAND

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes and signals of POSIX")
FORGERIES = 120
FORGED = json.dumps(
    {"event": "payment.completed", "data": {"tx_ref": "SHOP-1", "status": "success", "padding": "x" * 60_000}}
).encode()


async def _stored(desk, backend: str) -> tuple[int, int, int]:
    """(rows, bytes of bodies and heads) kept for refused requests and notifications, and
    how many notifications: read below PayDesk's interface, as an administrator would."""
    if backend == "sqlite":

        def read_file():
            with sqlite3.connect(desk.paths.data / "ledger.sqlite3") as db:
                return (
                    db.execute("SELECT count(*), COALESCE(sum(length(head)), 0) FROM refused").fetchone(),
                    db.execute("SELECT count(*), COALESCE(sum(length(body)), 0) FROM inbox").fetchone(),
                )

        refused, inbox = await asyncio.to_thread(read_file)
    else:

        def read(conn):
            one = conn.execute("SELECT count(*) AS n, COALESCE(sum(length(head)), 0) AS b FROM refused").fetchone()
            two = conn.execute("SELECT count(*) AS n, COALESCE(sum(length(body)), 0) AS b FROM inbox").fetchone()
            return (one["n"], one["b"]), (two["n"], two["b"])

        refused, inbox = await desk.session.ledger._engine.read(read)
    return refused[0] + inbox[0], refused[1] + inbox[1], inbox[0]


@pytest.fixture(params=["sqlite", "postgresql"])
async def shop(request, tmp_path, sandbox):
    """A desk with a profile on the sandbox, on a SQLite file or a shared PostgreSQL, and the
    ``--ledger`` the receiver is given for it."""
    paths = Paths(data=tmp_path / "desk", sandbox=tmp_path / "desk-sb").ensure()
    url = None
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_url")
    desk = build_desk(paths, KeyStore(MemoryKeyring()), ledger_url=url)
    await desk.open()
    await profiles.add_profile(desk.session, sandbox, txref_prefix="SHOP")
    desk.backend = request.param
    desk.given = url or str(paths.data / "ledger.sqlite3")
    yield desk
    await desk.close()


@pytest.mark.slow  # a flood, about 8 s on each backend: ./dev test runs it, ./dev check leaves it out
async def test_a_flood_of_forged_bodies_leaves_a_bounded_trace(shop, sandbox, tmp_path):
    profile = shop.session.profile
    keys = tmp_path / "keys.json"
    keys.write_text(
        json.dumps(
            {"profiles": {profile.id: {"test": sandbox.key("test", "secret"), "live": sandbox.key("live", "secret")}}}
        )
    )
    keys.chmod(0o600)
    port = free_port()
    process = subprocess.Popen(  # noqa: ASYNC220 (Popen starts it and returns)
        [
            str(COMMAND),
            "--ledger",
            shop.given,
            "--port",
            str(port),
            "--keys-file",
            str(keys),
            "--data-dir",
            str(tmp_path / "receiver"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = await asyncio.to_thread(process.stdout.readline)
        assert "listening at" in line, (line, process.stderr.read() if process.poll() else "")
        url = f"http://127.0.0.1:{port}/notifications"
        rows_before, bytes_before, _ = await _stored(shop, shop.backend)
        async with httpx.AsyncClient(timeout=30) as client:

            async def forge(n: int) -> int:
                answer = await client.post(
                    url,
                    content=FORGED,
                    headers={
                        "Content-Type": "application/json",
                        "Signature": f"{n:064x}",
                        "X-Forwarded-For": "10.0.0.7",
                    },
                )
                return answer.status_code

            answers = [await forge(n) for n in range(FORGERIES)]
            # a real notification among them, as large: kept whole
            real = FORGED.replace(b"SHOP-1", b"SHOP-2")
            answer = await client.post(
                url,
                content=real,
                headers={
                    "Content-Type": "application/json",
                    "Signature": sign(real, sandbox.key("test", "secret")),
                    "X-Forwarded-For": "203.0.113.5",
                },
            )
        assert answers == [401] * FORGERIES
        assert answer.status_code == 200, answer.text
        rows, kept, notifications = await _stored(shop, shop.backend)
        # bounded: a few traces of their first bytes and a counter row, not 120 bodies
        assert notifications == 1
        assert rows - rows_before <= 2 * (REFUSED_PER_MINUTE + 1) + 1
        assert kept - bytes_before <= len(real) + 2 * REFUSED_PER_MINUTE * REFUSED_HEAD
        (entry,) = await shop.inbox.page(InboxQuery())
        assert entry.body == real and entry.tx_ref == "SHOP-2"  # whole, byte for byte
        groups = await shop.inbox.refused_groups(datetime.now(UTC) - timedelta(hours=1))
        assert [(g.remote, g.count) for g in groups] == [("10.0.0.7", FORGERIES)]
        assert groups[0].size == FORGERIES * len(FORGED)
        # its log is bounded as well: a line for each trace, not for each one counted
        logged = "\n".join(p.read_text() for p in (tmp_path / "receiver").rglob("*.log*"))
        assert 1 <= logged.count("10.0.0.7") <= 2 * (REFUSED_PER_MINUTE + 1)
    finally:
        process.terminate()
        assert await asyncio.to_thread(process.wait, 30) == 0
        process.stdout.close()
        process.stderr.close()


async def test_the_receiver_forgets_refused_requests_past_their_time(desk, tmp_path, sandbox):
    """``--keep-refused DAYS`` (here a second's worth): what is older is pruned at its start
    (and every hour after); a verified notification is never pruned."""
    await desk.inbox.refuse(FORGED, "10.0.0.7")
    entry, _ = await desk.inbox.receive(
        b'{"tx_ref":"SHOP-9"}', {}, "203.0.113.5", profile_id="p1", mode="test", tx_ref="SHOP-9"
    )
    await asyncio.sleep(1.5)
    keys = tmp_path / "keys.json"
    keys.write_text("{}")
    keys.chmod(0o600)
    process = subprocess.Popen(  # noqa: ASYNC220 (Popen starts it and returns)
        [
            str(COMMAND),
            "--ledger",
            str(desk.paths.data / "ledger.sqlite3"),
            "--port",
            "0",
            "--keys-file",
            str(keys),
            "--data-dir",
            str(tmp_path / "receiver"),
            "--keep-refused",
            "0.00001",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = await asyncio.to_thread(process.stdout.readline)
        assert "listening at" in line, line
        for _ in range(200):
            if not await desk.inbox.refused_page():
                break
            await asyncio.sleep(0.05)
        assert await desk.inbox.refused_page() == []
        assert (await desk.inbox.get(entry.id)).body == b'{"tx_ref":"SHOP-9"}'
    finally:
        process.terminate()
        assert await asyncio.to_thread(process.wait, 30) == 0
        process.stdout.close()
        process.stderr.close()
