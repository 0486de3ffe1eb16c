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


async def test_a_notification_on_the_shared_ledger_reaches_every_desk(pg_url, tmp_path, sandbox,
                                                                       service):
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
        counter.hub.record_changed.connect(
            lambda r: heard_paid.append(r) if r.state == "success" else None)
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
        await until_async(lambda: any(n.verdict == APPLIED for n in heard_notes), 15,
                          "the decided notification heard at the counter")
        assert await counter.inbox.count(InboxQuery(verdict=APPLIED)) == 1
    finally:
        for desk in desks:
            await desk.close()
