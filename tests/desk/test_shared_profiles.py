"""Merchants on a shared ledger: desks of one shop (two data folders, two keyrings) on one
PostgreSQL see the same profiles, without keys; the same merchant added at two desks is one
merchant (one id, one set of records); each desk keeps its keys in its own keyring."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

import pytest

from paydesk.config.merchants import merchant_id
from paydesk.config.paths import Paths
from paydesk.config.profiles import Profile
from paydesk.config.secrets import SERVICE_NAME, KeyStore
from paydesk.desk.embedded import EmbeddedSandbox
from paydesk.desk.events import Hub
from paydesk.desk.health import ConnectionHealth
from paydesk.desk.leases import NoKeyError
from paydesk.desk.profile_store import NoPublicKeyError, SharedProfiles
from paydesk.desk.session import Session
from paydesk.ledger import SqliteLedger
from paydesk.ledger.postgres import PgEngine
from paydesk.ledger.postgres.merchants import PostgresMerchants
from paydesk.ledger.sqlite.cards import SqliteCardLedger
from tests import profiles
from tests.helpers import MemoryKeyring


@asynccontextmanager
async def shop_desk(tmp_path, name, pg_url):
    """A desk's session whose profiles are the shared ledger's merchants, in a data folder and
    a keyring of its own. Its links stay in a SQLite file here: this test is about merchants
    (the session is given its parts as build_desk gives them)."""
    paths = Paths(data=tmp_path / name, sandbox=tmp_path / f"{name}-sandbox").ensure()
    engine = PgEngine(pg_url, desk=name)
    await engine.opened()
    keyring = MemoryKeyring()
    ledger = SqliteLedger(paths.data / "ledger.sqlite3")
    hub = Hub()
    session = Session(
        paths,
        KeyStore(keyring),
        hub=hub,
        ledger=ledger,
        card_ledger=SqliteCardLedger.beside(ledger),
        health=ConnectionHealth(hub.health_changed.emit),
        embedded=EmbeddedSandbox(paths.sandbox),
        profiles=SharedProfiles(PostgresMerchants(engine)),
    )
    await ledger.opened()
    await session.load()
    session.keyring = keyring  # for the test to look into
    try:
        yield session
    finally:
        await session.close()
        await engine.close()


async def test_two_desks_adding_the_same_merchant_share_it(tmp_path, pg_url, sandbox):
    async with shop_desk(tmp_path, "counter-1", pg_url) as one, shop_desk(tmp_path, "finance", pg_url) as two:
        await profiles.add_profile(one, sandbox, name="Shop", txref_prefix="SHOP")
        expected = merchant_id(sandbox.base_url, sandbox.key("test", "public"))
        assert one.profile.id == expected

        # the other desk sees it (its "merchant" event makes it read the list again) ...
        await two.reload_profiles()
        assert [(p.id, p.name, p.txref_prefix) for p in two.settings.profiles] == [(expected, "Shop", "SHOP")]
        # ... without its keys: they are in the first desk's keyring only
        assert await two.key("test", profile=two.settings.profiles[0]) is None
        with pytest.raises(NoKeyError, match="add it in the profile editor"):
            async with two.lease(two.settings.profiles[0], "test"):
                pass

        # the same merchant added at the other desk (its own name for it): one merchant
        await profiles.add_profile(two, sandbox, name="Shop (finance)")
        assert [p.id for p in two.settings.profiles] == [expected]
        await one.reload_profiles()
        assert [(p.id, p.name) for p in one.settings.profiles] == [(expected, "Shop (finance)")]
        for desk in (one, two):
            assert await desk.key("test") == sandbox.key("test", "secret")
            assert desk.keyring.store[(SERVICE_NAME, f"{expected}/test/secret")]

        # another merchant of the same service is another id
        await profiles.add_profile(one, sandbox, name="Other", merchant=1)
        await two.reload_profiles()
        assert {p.id for p in two.settings.profiles} == {
            expected,
            merchant_id(sandbox.base_url, sandbox.key("test", "public", 1)),
        }

        # the shared rows hold no key, and each write rang the others' doorbell
        engine = two.store.merchants.engine
        rows = await engine.read(lambda c: c.execute("SELECT profile::text AS p FROM merchants").fetchall())
        held = " ".join(r["p"] for r in rows)
        for merchant in (0, 1):
            for mode in ("test", "live"):
                for kind in ("secret", "public"):
                    assert sandbox.key(mode, kind, merchant) not in held
        events = await engine.read(
            lambda c: c.execute("SELECT desk, key FROM events WHERE kind = 'merchant' ORDER BY id").fetchall()
        )
        assert [(e["desk"], e["key"]) for e in events][:2] == [("counter-1", expected), ("finance", expected)]

        # the settings file keeps this desk's choice, not the shop's merchants
        saved = json.loads(one.paths.profiles.read_text())
        assert saved["profiles"] == [] and saved["active_profile"] in {p.id for p in one.settings.profiles}


async def test_a_merchant_removed_at_one_desk_goes_from_every_desk(tmp_path, pg_url, sandbox):
    async with shop_desk(tmp_path, "counter-1", pg_url) as one, shop_desk(tmp_path, "counter-2", pg_url) as two:
        await profiles.add_profile(one, sandbox)
        await two.reload_profiles()
        gone = []
        two.hub.profile_deleted.connect(gone.append)
        await one.delete_profile(one.profile.id)
        assert one.settings.profiles == []
        await two.reload_profiles()
        assert two.settings.profiles == [] and two.profile is None
        assert len(gone) == 1


async def test_a_profile_without_a_public_key_is_not_shared(tmp_path, pg_url, sandbox):
    async with shop_desk(tmp_path, "counter-1", pg_url) as one:
        with pytest.raises(NoPublicKeyError, match="public key names the merchant"):
            await profiles.add_profile(one, sandbox, keys=profiles.SECRET_KEYS)
        assert one.settings.profiles == []
        assert one.keyring.store == {}  # nothing kept half-way


async def test_the_embedded_sandbox_stays_this_computers(tmp_path, pg_url):
    async with shop_desk(tmp_path, "counter-1", pg_url) as one, shop_desk(tmp_path, "counter-2", pg_url) as two:
        local = Profile(id=Profile.new_id(), name="Sandbox", base_url="http://127.0.0.1:1", embedded_sandbox=True)
        await one.save_profile(local, {("test", "secret"): "sk_test_x"})
        assert one.profile.id == local.id
        assert json.loads(one.paths.profiles.read_text())["profiles"][0]["id"] == local.id
        await two.reload_profiles()
        assert two.settings.profiles == []


async def test_desks_built_on_the_shared_ledger_hear_each_others_merchants(tmp_path, pg_url, sandbox):
    """As the app builds them (``build_desk(..., ledger_url=...)``), running: a merchant added
    at one desk shows in the other's list by the other desk's own event feed."""
    from paydesk.desk.build import build_desk
    from tests.waiting import until_async

    desks = []
    try:
        for name in ("counter-1", "finance"):
            paths = Paths(data=tmp_path / name, sandbox=tmp_path / f"{name}-sandbox").ensure()
            desk = build_desk(paths, KeyStore(MemoryKeyring()), ledger_url=pg_url)
            await desk.open()
            desk.start_background()
            desks.append(desk)
        one, two = (d.session for d in desks)
        changed = []
        two.hub.session_changed.connect(lambda: changed.append(True))
        # the other desk's feed has started (it follows what is written from then on)
        await until_async(lambda: desks[1].live.feed.last is not None, 10, "the feed", every=0.02)
        await profiles.add_profile(one, sandbox, name="Shop")
        expected = merchant_id(sandbox.base_url, sandbox.key("test", "public"))
        await until_async(
            lambda: [p.id for p in two.settings.profiles] == [expected], 10, "the other desk's list", every=0.02
        )
        assert changed and two.profile.id == expected
        assert await two.key("test") is None  # its keys are the first desk's
        # the records are the merchant's on both desks
        assert one.profile.id == two.profile.id == expected
    finally:
        for desk in desks:
            await desk.close()


async def test_a_merchant_edited_without_its_keys_stays_that_merchant(tmp_path, pg_url, sandbox):
    """The counter's "shop e-mail" box saves the profile with no keys: on a shared ledger it is
    the merchant it was (its id), for every desk, not refused for want of a public key."""
    from dataclasses import replace

    async with shop_desk(tmp_path, "counter-1", pg_url) as one, shop_desk(tmp_path, "finance", pg_url) as two:
        await profiles.add_profile(one, sandbox, name="Shop", txref_prefix="SHOP")
        merchant = one.profile.id
        await one.save_profile(replace(one.profile, shop_email="till@example.com"), {})
        assert one.profile.id == merchant and one.profile.shop_email == "till@example.com"
        await two.reload_profiles()
        assert [(p.id, p.shop_email) for p in two.settings.profiles] == [(merchant, "till@example.com")]
        assert await one.keys.get(merchant, "test", "secret") == sandbox.key("test", "secret")
