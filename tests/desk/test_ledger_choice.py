"""Which ledger a desk uses (--ledger, else the saved one, else its own), and the set-up
Settings → Shared ledger… does, without Qt: the address saved without its password, the
password in the keyring (and known to the redactor), the way back to the desk's own ledger."""

from __future__ import annotations

import json

import pytest

from paydesk import logs
from paydesk.config.secrets import SERVICE_NAME, KeyStore
from paydesk.config.shared_ledger import password_entry
from paydesk.desk.ledger_choice import LedgerSetupError, choose_ledger, save_shared_ledger, use_own_ledger

SAVED = "postgresql://paydesk@ledger.shop.lan/paydesk?sslmode=require"
SECRET = "a-long-shop-password"


async def test_a_desk_uses_its_own_ledger_unless_told(paths, keys):
    choice, password = await choose_ledger(paths, keys)
    assert (choice.url, choice.source, password) == (None, "own", None)


async def test_the_saved_ledger_and_its_password_from_the_keyring(session, paths):
    assert await save_shared_ledger(session, SAVED, SECRET)
    text = paths.profiles.read_text()
    assert json.loads(text)["ledger_url"] == SAVED and SECRET not in text
    keyring = session.keys.backend
    assert keyring.store[(SERVICE_NAME, password_entry(SAVED))] == SECRET

    fresh = KeyStore(keyring, on_secret=logs.REDACTOR.add)  # the next start's key store
    choice, password = await choose_ledger(paths, fresh)
    assert (choice.url, choice.source, password) == (SAVED, "settings", SECRET)
    assert SECRET not in logs.REDACTOR.clean(f"connecting with {SECRET}")


async def test_ledger_on_the_command_line_wins_and_its_password_goes_to_the_keyring(session, paths, memory_keyring):
    await save_shared_ledger(session, SAVED, SECRET)
    given = "postgresql://paydesk:other-long-password@localhost/shop"
    choice, password = await choose_ledger(paths, KeyStore(memory_keyring), given)
    assert (choice.url, choice.source, password) == (
        "postgresql://paydesk@localhost/shop",
        "command line",
        "other-long-password",
    )
    assert memory_keyring.store[(SERVICE_NAME, password_entry(given))] == "other-long-password"
    assert json.loads(paths.profiles.read_text())["ledger_url"] == SAVED  # the saved one stays
    with pytest.raises(LedgerSetupError, match="TLS"):
        await choose_ledger(paths, KeyStore(memory_keyring), "postgresql://u@db.lan/shop")


async def test_a_password_typed_in_the_address_is_moved_out_of_it(session, paths):
    await save_shared_ledger(session, "postgresql://paydesk:" + SECRET + "@ledger.shop.lan/paydesk?sslmode=require", "")
    assert SECRET not in paths.profiles.read_text()
    assert session.settings.ledger_url == SAVED
    assert session.keys.backend.store[(SERVICE_NAME, password_entry(SAVED))] == SECRET


async def test_an_address_without_tls_is_not_saved(session, paths):
    with pytest.raises(LedgerSetupError, match="sslmode=require"):
        await save_shared_ledger(session, "postgresql://paydesk@ledger.shop.lan/paydesk", SECRET)
    assert session.settings.ledger_url is None
    assert session.keys.backend.store == {}


async def test_back_to_the_desks_own_ledger(session, paths):
    await save_shared_ledger(session, SAVED, SECRET)
    await use_own_ledger(session)
    assert "ledger_url" not in json.loads(paths.profiles.read_text())
    assert (SERVICE_NAME, password_entry(SAVED)) not in session.keys.backend.store
    choice, _ = await choose_ledger(paths, session.keys)
    assert choice.url is None
