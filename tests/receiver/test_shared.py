"""The receiver on a shop's shared ledger (a real PostgreSQL): a notification kept in the
shared inbox, re-read, recorded; every desk of the shop hears PAID (by the ledger's events),
and hears of the notification. The other desk holds no key here, so its own checks cannot
settle the link: only the notification can."""

from __future__ import annotations

import asyncio

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.ledger.inbox import APPLIED, InboxQuery
from paydesk.receiver.serve import Receiver
from tests import profiles
from tests.helpers import MemoryKeyring
from tests.receiver.conftest import php_body, request, signed
from tests.waiting import until_async


async def test_a_notification_on_the_shared_ledger_reaches_every_desk(pg_url, tmp_path, sandbox, service):
    desks = []
    try:
        for name in ("receiver", "counter"):
            paths = Paths(data=tmp_path / name, sandbox=tmp_path / f"{name}-sb").ensure()
            desk = build_desk(paths, KeyStore(MemoryKeyring()), ledger_url=pg_url)
            await desk.open()
            desks.append(desk)
        at_receiver, counter = desks
        await profiles.add_profile(at_receiver.session, sandbox, txref_prefix="SHOP")
        profile = at_receiver.session.profile  # the shop's merchant, named by its public key
        await counter.session.reload_profiles()
        assert counter.session.settings.profile(profile.id) is not None
        heard_paid, heard_notes = [], []
        counter.hub.record_changed.connect(lambda r: heard_paid.append(r) if r.state == "success" else None)
        counter.hub.notification_changed.connect(heard_notes.append)
        counter.start_background()  # the feed (and checks, which have no key here)
        receiver = Receiver(at_receiver, "127.0.0.1", 0)
        await receiver.start()
        at_receiver.receiver = receiver
        record = await at_receiver.links.create(request("SHARED-1"))
        await asyncio.to_thread(service.control, f"pay/{record.reference}", {"outcome": "success"})
        answer = await signed(receiver.url, php_body("SHARED-1"), sandbox.key("test", "secret"))
        assert answer.status_code == 200
        await until_async(lambda: heard_paid, 15, "PAID heard at the counter")
        assert heard_paid[-1].learned_by == "notification"
        await until_async(
            lambda: any(n.verdict == APPLIED for n in heard_notes), 15, "the decided notification heard at the counter"
        )
        assert await counter.inbox.count(InboxQuery(verdict=APPLIED)) == 1
    finally:
        for desk in desks:
            await desk.close()


async def test_paydesk_receiver_takes_the_poller_lease_from_a_desk(pg_url, tmp_path, sandbox):
    """The real command on the shop's ledger: a desk holds the lease (it checks payments);
    ``paydesk-receiver`` started beside it takes the lease before it expires, and the desk's
    status bar says who checks payments now. Stopped, it hands the lease back."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from tests.helpers import free_port

    paths = Paths(data=tmp_path / "counter", sandbox=tmp_path / "counter-sb").ensure()
    counter = build_desk(paths, KeyStore(MemoryKeyring()), ledger_url=pg_url)
    process = None
    try:
        await counter.open()
        await profiles.add_profile(counter.session, sandbox, txref_prefix="SHOP")
        profile = counter.session.profile
        said: list[str] = []
        counter.hub.shared_status.connect(said.append)
        counter.start_background()
        await until_async(
            lambda: said and said[-1].startswith("Payments checked by") and "receiver" not in said[-1],
            15,
            "the counter holding the lease",
        )
        keys = tmp_path / "keys.json"
        keys.write_text(
            json.dumps(
                {
                    "profiles": {
                        profile.id: {"test": sandbox.key("test", "secret"), "live": sandbox.key("live", "secret")}
                    }
                }
            )
        )
        keys.chmod(0o600)
        process = subprocess.Popen(  # noqa: ASYNC220 (Popen starts it and returns)
            [
                str(Path(sys.executable).with_name("paydesk-receiver")),
                "--ledger",
                pg_url,
                "--host",
                "127.0.0.1",
                "--port",
                str(free_port()),
                "--data-dir",
                str(tmp_path / "receiver"),
                "--keys-file",
                str(keys),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        await until_async(
            lambda: said and "notification receiver on" in said[-1], 30, "the counter's status naming the receiver"
        )
        process.terminate()
        assert await asyncio.to_thread(process.wait, 30) == 0
        await until_async(lambda: "receiver" not in said[-1], 30, "the counter checking payments again")
    finally:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(10)
        if process is not None:
            process.stdout.close()
            process.stderr.close()
        await counter.close()
