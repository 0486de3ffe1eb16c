"""A desk's keys follow it onto the shared ledger (a real PostgreSQL, a real sandbox, the tests'
file keyring): a desk that kept a merchant's keys under its own profile's id finds them under
the merchant's id once it connects, or once it imports its ledger, and can create links at
once. The keys are copied in the keyring: the old entries stay (the desk's own ledger still
uses them), and keys the desk already keeps for the merchant are never overwritten."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from paydesk.config.merchants import merchant_id
from paydesk.config.paths import Paths
from paydesk.config.secrets import SERVICE_NAME, KeyStore, entry
from paydesk.desk.build import build_desk
from paydesk.service.models import PaymentRequest
from tests import file_keyring, profiles
from tests.helpers import MemoryKeyring

LOCAL = "p_coffee"  # desk B's own profile id, from before the shop shared its ledger


@pytest.fixture
def desk_b(tmp_path, sandbox, monkeypatch):
    """Desk B's data folder, with its own profile of the sandbox's merchant, and its keyring
    file holding that profile's keys under the profile's own id (as the desk kept them)."""
    paths = Paths(data=tmp_path / "desk-b", sandbox=tmp_path / "desk-b-sandbox").ensure()
    paths.profiles.write_text(
        json.dumps(
            {
                "profiles": [
                    {"id": LOCAL, "name": "Coffee shop", "base_url": sandbox.base_url, "txref_prefix": "COFFEE"}
                ],
                "active_profile": LOCAL,
                "installation_id": "B0B0B0",
            }
        )
    )
    keyring = tmp_path / "desk-b-keyring.json"
    file_keyring.write(
        keyring,
        {(SERVICE_NAME, entry(LOCAL, mode, kind)): value for (mode, kind), value in profiles.keys_of(sandbox).items()},
    )
    monkeypatch.setenv(file_keyring.VARIABLE, str(keyring))
    return paths, keyring


async def shop_merchant(tmp_path, pg_url, sandbox) -> str:
    """Desk A adds the shop's merchant on the shared ledger (with its keys, in A's keyring)."""
    paths = Paths(data=tmp_path / "desk-a", sandbox=tmp_path / "desk-a-sandbox").ensure()
    desk = build_desk(paths, KeyStore(MemoryKeyring()), ledger_url=pg_url)
    await desk.open()
    try:
        await profiles.add_profile(desk.session, sandbox, name="Coffee shop")
        return desk.session.profile.id
    finally:
        await desk.close()


async def test_connecting_carries_the_keys_over_to_the_merchant(tmp_path, pg_url, sandbox, desk_b):
    paths, keyring = desk_b
    merchant = await shop_merchant(tmp_path, pg_url, sandbox)
    assert merchant == merchant_id(sandbox.base_url, sandbox.key("test", "public"))
    desk = build_desk(paths, KeyStore(file_keyring.FileKeyring()), ledger_url=pg_url)
    await desk.open()
    try:
        session = desk.session
        assert [(p.id, p.name) for p in session.settings.profiles] == [(merchant, "Coffee shop")]
        # the keys, under the merchant's id now, and usable at once
        assert await session.key("test") == sandbox.key("test", "secret")
        record = await desk.links.create(
            PaymentRequest(
                amount=Decimal(4),
                currency="GBP",
                email="kim@example.com",
                first_name="Kim",
                last_name="Lee",
                tx_ref="COFFEE-1",
                title="Flat white",
            )
        )
        assert record.state == "pending" and record.profile_id == merchant
    finally:
        await desk.close()
    kept = file_keyring.read(keyring)
    for (mode, kind), value in profiles.keys_of(sandbox).items():
        assert kept[(SERVICE_NAME, entry(merchant, mode, kind))] == value
        assert kept[(SERVICE_NAME, entry(LOCAL, mode, kind))] == value  # the old ones stay


async def test_keys_kept_for_the_merchant_are_not_overwritten(tmp_path, pg_url, sandbox, desk_b):
    paths, keyring = desk_b
    merchant = await shop_merchant(tmp_path, pg_url, sandbox)
    entries = file_keyring.read(keyring)
    entries[(SERVICE_NAME, entry(merchant, "test", "secret"))] = "sk_test_rotated_since"
    file_keyring.write(keyring, entries)
    desk = build_desk(paths, KeyStore(file_keyring.FileKeyring()), ledger_url=pg_url)
    await desk.open()
    try:
        assert await desk.session.key("test") == "sk_test_rotated_since"
        assert await desk.session.key("live") == sandbox.key("live", "secret")  # was missing
    finally:
        await desk.close()


async def test_importing_carries_the_keys_over(tmp_path, pg_url, sandbox, desk_b):
    """The import files B's records under the merchant (its public key names it); the keys
    follow, so that the merchant, once on the shared ledger, is usable at B."""
    from paydesk.desk.ledger_import import import_desk_ledger
    from paydesk.ledger import SqliteLedger
    from paydesk.ledger.postgres import PgEngine

    paths, keyring = desk_b
    own = SqliteLedger(paths.data / "ledger.sqlite3")
    await own.opened()
    await own.close()
    merchant = merchant_id(sandbox.base_url, sandbox.key("test", "public"))
    engine = PgEngine(pg_url, desk="B0B0B0")
    keys = KeyStore(file_keyring.FileKeyring())
    try:
        await engine.opened()
        await import_desk_ledger(engine, paths, keys, dry_run=True)
        assert (SERVICE_NAME, entry(merchant, "test", "secret")) not in file_keyring.read(keyring)
        await import_desk_ledger(engine, paths, keys)
    finally:
        await engine.close()
    kept = file_keyring.read(keyring)
    assert kept[(SERVICE_NAME, entry(merchant, "test", "secret"))] == sandbox.key("test", "secret")
    assert kept[(SERVICE_NAME, entry(LOCAL, "test", "secret"))] == sandbox.key("test", "secret")


async def test_a_merchant_added_later_gets_the_keys_too(tmp_path, pg_url, sandbox, desk_b):
    """Desk B connected first; the merchant is added at desk A afterwards: B reads the shop's
    merchants again (its "merchant" event) and has the keys."""
    paths, keyring = desk_b
    desk = build_desk(paths, KeyStore(file_keyring.FileKeyring()), ledger_url=pg_url)
    await desk.open()
    try:
        assert desk.session.settings.profiles == []
        merchant = await shop_merchant(tmp_path, pg_url, sandbox)
        await desk.session.reload_profiles()
        assert [p.id for p in desk.session.settings.profiles] == [merchant]
        assert await desk.session.key("test", profile=desk.session.settings.profiles[0]) == sandbox.key(
            "test", "secret"
        )
    finally:
        await desk.close()
