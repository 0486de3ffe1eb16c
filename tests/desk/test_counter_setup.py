"""What a counter needs before its first sale (desk/counter.py, desk/counter_checks.py):
the Sandbox profile PayDesk makes sells at once (an older one is given the shop e-mail and
walk-in name at start); any other profile's shop e-mail is asked at the counter, checked and
saved in the profile. Against the real sandbox."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from paydesk.config.profiles import SettingsFile
from paydesk.desk.build import build_desk
from paydesk.ledger.counter import OPEN
from paydesk.service.errors import ValidationError


async def test_the_sandbox_profile_sells_at_once(paths, keys):
    """The profile PayDesk makes for its own sandbox has a shop e-mail and a walk-in name:
    its first sale is made, not refused. One made by an older PayDesk without them gets
    them at the next start."""
    desk = build_desk(paths, keys)
    await desk.open()
    try:
        profile = await desk.session.start_embedded_sandbox()
        assert desk.counter.setup_missing() is None
        sale = await desk.counter.sell("5", profile.currencies[0])
        assert sale.kind == OPEN and sale.record.email == profile.shop_email
        assert (sale.record.first_name, sale.record.last_name) == ("Walk-in", "customer")
        # as an older PayDesk left it
        await desk.session.save_profile(replace(profile, shop_email="", walk_in_name=""), {})
        assert desk.counter.setup_missing() is not None
    finally:
        await desk.close()
    desk = build_desk(paths, keys)
    await desk.open()
    try:
        assert desk.session.profile.shop_email == ""
        again = await desk.session.start_embedded_sandbox()
        assert again.id == profile.id and again.shop_email == profile.shop_email
        assert again.walk_in_name == "Walk-in customer"
        assert desk.counter.setup_missing() is None
    finally:
        await desk.close()


async def test_the_shop_email_asked_at_the_counter_is_saved_in_the_profile(desk, add_profile):
    """A profile without the shop's e-mail: the counter says so before any sale, and the
    address typed there is checked and saved in the profile."""
    shop = await add_profile()
    counter = desk.counter
    missing = counter.setup_missing()
    assert missing is not None and missing.field == "shop_email"
    for typed, problem in (("", "Enter the shop's e-mail"), ("till@", "Not an e-mail address")):
        with pytest.raises(ValidationError) as bad:
            await counter.set_shop_email(typed)
        assert bad.value.errors == {"shop_email": [problem]}
        assert desk.session.profile.shop_email == ""
    await counter.set_shop_email("  till@example.com ")
    assert desk.session.profile.shop_email == "till@example.com"
    assert desk.session.profile.id == shop.id and counter.setup_missing() is None
    saved = await asyncio.to_thread(SettingsFile(desk.session.paths.profiles).load)
    assert saved.profile(shop.id).shop_email == "till@example.com"  # as the next start reads it
    sale = await counter.sell("7", "GBP")
    assert sale.record.email == "till@example.com"
