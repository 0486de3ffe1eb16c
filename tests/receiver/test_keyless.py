"""Counters without keys on a shop's shared ledger (a real PostgreSQL, a real sandbox): the
counter writes its sale as a request, the key holder (the receiver, holding the keys and the
poller lease) makes it; its limits refuse in one sentence; with the key holder down the
counter says so and sells nothing; stopped mid-sale and started again, nothing is lost or
doubled."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import replace
from decimal import Decimal

import pytest

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.desk.counter_keyless import DOWN, SILENT, KeyHolderDown, SaleRefused
from paydesk.desk.leases import KeylessDesk
from paydesk.ledger.counter import OPEN, PAID
from paydesk.ledger.postgres.lease import RECEIVER
from paydesk.ledger.postgres.requests import SaleRequests
from paydesk.receiver.serve import Receiver
from tests import profiles
from tests.helpers import MemoryKeyring
from tests.waiting import until_async


class Shop:
    """The key holder (a receiver desk holding the keys) and key-less counters, on one ledger."""

    def __init__(self, pg_url, tmp_path, sandbox, password=None):
        self.url, self.tmp, self.sandbox, self.password = pg_url, tmp_path, sandbox, password
        self.desks = []
        self.holder = None
        self.receiver = None
        self.keyring = MemoryKeyring()  # the key holder's keys, kept across its restarts

    async def start_holder(self):
        paths = Paths(data=self.tmp / "holder", sandbox=self.tmp / "holder-sb").ensure()
        desk = build_desk(
            paths, KeyStore(self.keyring), ledger_url=self.url, ledger_password=self.password, lease_priority=RECEIVER
        )
        await desk.open()
        if desk.session.profile is None:
            await profiles.add_profile(desk.session, self.sandbox, txref_prefix="SHOP", shop_email="till@example.com")
        desk.start_background()
        self.receiver = Receiver(desk, "127.0.0.1", 0, key_holder=True)
        await self.receiver.start()
        desk.receiver = self.receiver
        self.holder = desk
        await until_async(lambda: desk.live.keeper.state.mine, 15, "the key holder holding the lease")
        return desk

    async def stop_holder(self):
        desk, self.holder = self.holder, None
        await desk.close()

    async def counter(self, name, url=None, password=None):
        folder = self.tmp / name
        folder.mkdir()
        (folder / "counter.json").write_text(json.dumps({"name": name, "keyless": True}))
        desk = build_desk(
            Paths(data=folder, sandbox=self.tmp / f"{name}-sb").ensure(),
            KeyStore(MemoryKeyring()),
            ledger_url=url or self.url,
            ledger_password=password or self.password,
        )
        await desk.open()
        self.desks.append(desk)
        await desk.session.reload_profiles()
        (profile,) = desk.session.settings.profiles
        await desk.session.switch_profile(profile.id)
        desk.start_background()
        return desk

    def payments(self, tx_ref):
        with sqlite3.connect(self.tmp / "sandbox" / "sandbox.sqlite3") as db:
            return db.execute("SELECT COUNT(*) FROM transactions WHERE tx_ref = ?", (tx_ref,)).fetchone()[0]

    async def close(self):
        for desk in [*self.desks, self.holder]:
            if desk is not None:
                await desk.close()


@pytest.fixture
async def shop(pg_url, tmp_path, sandbox):
    made = Shop(pg_url, tmp_path, sandbox)
    yield made
    await made.close()


async def test_a_keyless_counter_sells_through_the_key_holder(shop, service):
    await shop.start_holder()
    till = await shop.counter("Till 1")
    assert await till.keys.get(till.session.profile.id, "test", "secret") is None  # no key here
    sale = await till.counter.sell("12", "GBP", "Tea")
    assert sale.kind == OPEN and sale.record.checkout_url and sale.counter == "Till 1"
    assert sale.record.title == "Tea"
    assert till.counter.current == sale
    assert shop.payments(sale.tx_ref) == 1
    await asyncio.to_thread(service.control, f"pay/{sale.record.reference}", {"outcome": "success"})
    await until_async(lambda: till.counter.current.kind == PAID, 20, "PAID at the key-less counter")
    profile = till.session.profile
    for asked in (till.cards.refresh(profile, "test"), till.links.look_up(profile, "test", sale.tx_ref)):
        with pytest.raises(KeylessDesk) as refused:  # it never calls the service itself
            await asked
        assert (
            refused.value.message == "This counter holds no keys: cards, links and look-ups are made at a finance desk."
        )


async def test_a_keyless_sale_and_its_link_name_the_person_signed_in_at_the_counter(shop):
    """Issue 32 §3: the request carries who asked (the person signed in at the till), and the
    key holder writes the sale, its shift and its link under that name."""
    from paydesk.desk.staff import Person, Role

    await shop.start_holder()
    till = await shop.counter("Till 1")
    till.session.staff.signed_in(Person("p-bo", "Bo", Role.COUNTER))
    sale = await till.counter.sell("9", "GBP", "Scones")
    assert sale.actor == "Bo" and sale.record.actor == "Bo"
    shift = await till.counter.book.shift(sale.shift_id)
    assert shift is not None and shift.opened_actor == "Bo"


async def test_the_key_holder_refuses_over_a_counter_s_limits_in_one_sentence(shop):
    holder = await shop.start_holder()
    till = await shop.counter("Till 2")
    await SaleRequests(holder.live.engine).set_limits("Till 2", Decimal(50), 2)
    with pytest.raises(SaleRefused) as refused:
        await till.counter.sell("60", "GBP")
    assert (
        refused.value.message == "This counter may sell at most 50.00 GBP at a time: a finance desk can make this sale."
    )
    for amount in ("10", "20"):
        await till.counter.sell(amount, "GBP")
        await till.counter.new_sale()
    with pytest.raises(SaleRefused) as refused:
        await till.counter.sell("5", "GBP")
    assert refused.value.message.startswith(
        "This counter has made its 2 sales of the last hour: the next can be made in"
    )
    assert len(await till.counter.today()) == 2  # nothing written for the refused ones


async def test_with_the_key_holder_down_the_counter_says_so_and_sells_nothing(shop):
    await shop.start_holder()
    till = await shop.counter("Till 3")
    await shop.stop_holder()  # its lease given up
    with pytest.raises(KeyHolderDown) as down:
        await till.counter.sell("12", "GBP")
    assert down.value.message == DOWN
    assert await till.counter.today() == [] and till.counter.current is None


async def test_a_request_the_key_holder_does_not_answer_is_withdrawn_and_never_served(shop):
    holder = await shop.start_holder()
    till = await shop.counter("Till 4")
    till.counter.keyless.answer_wait = 1.0
    await shop.receiver.close()  # the lease still held, nothing serves the requests
    with pytest.raises(KeyHolderDown) as silent:
        await till.counter.sell("12", "GBP")
    assert silent.value.message == SILENT
    await shop.stop_holder()
    assert holder is not None
    await shop.start_holder()  # back: the withdrawn request is not served
    await asyncio.sleep(2)
    assert await till.counter.today() == []


async def test_the_key_holder_stopped_mid_sale_and_started_again_loses_and_doubles_nothing(shop, sandbox):
    holder = await shop.start_holder()
    till = await shop.counter("Till 5")
    sandbox.faults(latency_ms=1500)  # the service slow: the key holder stops during the create
    selling = asyncio.ensure_future(till.counter.sell("12", "GBP"))

    async def creating():
        for ask in await SaleRequests(holder.live.engine).still_open():
            record = ask.tx_ref and await holder.session.ledger.get(ask.profile_id, ask.tx_ref)
            if record and record.state == "creating":
                return [record]
        return None

    made = await until_async(creating, 15, "the link's intent written by the key holder")
    await shop.stop_holder()  # mid-sale: the intent written, the service's answer not yet
    sandbox.faults()
    await shop.start_holder()
    sale = await selling
    assert sale.tx_ref == made[0].tx_ref
    await until_async(lambda: till.counter.current.record.state == "pending", 30, "the sale's code at the counter")
    assert shop.payments(sale.tx_ref) == 1
    assert len(await till.counter.today()) == 1


async def test_a_counter_logged_in_as_its_own_role_sells_through_the_key_holder(pg_server, tmp_path, sandbox, service):
    """The shop as docs/SHARED_LEDGER.md sets it up: the desks' role owns the database, the
    counter logs in as a role of its own (made by the script), limited to its own rows."""
    from tests.counter_roles import OWNER, OWNER_PW, TILL, TILL_PW, counter_role, owned_database

    dbname = owned_database(pg_server)
    shop = Shop(pg_server.url(dbname, OWNER), tmp_path, sandbox, password=OWNER_PW)
    try:
        holder = await shop.start_holder()
        await holder.session.save_profile(replace(holder.session.profile, customer_language="fr"), {})
        await asyncio.to_thread(counter_role, pg_server, dbname, "Till 7", "largest_sale=100")
        till = await shop.counter("Till 7", url=pg_server.url(dbname, TILL), password=TILL_PW)
        shown = till.session.profile  # what a counter shows of its merchant
        assert (shown.shop_email, shown.customer_language) == ("till@example.com", "fr")
        sale = await till.counter.sell("12", "GBP", "Tea")
        assert sale.record.checkout_url and shop.payments(sale.tx_ref) == 1
        await asyncio.to_thread(service.control, f"pay/{sale.record.reference}", {"outcome": "success"})
        await until_async(lambda: till.counter.current.kind == PAID, 20, "PAID at the counter logged in as its role")
        with pytest.raises(SaleRefused):
            await till.counter.sell("120", "GBP")
        await till.counter.new_sale()
        second = await till.counter.sell("15", "GBP")
        voided = await till.counter.new_sale()  # its void written by the counter itself
        assert voided is not None and voided.tx_ref == second.tx_ref and voided.voided
        assert [s.tx_ref for s in await till.counter.today()] == [second.tx_ref, sale.tx_ref]
        closed = await till.counter.close_shift(sale.shift_id)  # the shift closed by the counter itself
        assert closed.closed and closed.figures.made == 2 and closed.figures.voided == 1
    finally:
        await shop.close()
        pg_server.drop_later(dbname)


async def test_a_key_holder_without_the_merchant_s_key_refuses_in_one_sentence(shop):
    holder = await shop.start_holder()
    till = await shop.counter("Till 8")
    profile = holder.session.profile
    await holder.keys.set(profile.id, "test", "secret", "")  # its test key removed
    with pytest.raises(SaleRefused) as refused:
        await till.counter.sell("12", "GBP")
    assert refused.value.message == f"The shop's key holder has no test key for {profile.shown_name}: nothing was sold."
    assert await till.counter.today() == []
