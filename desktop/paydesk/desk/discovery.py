"""What a profile's service is found to be when the profile is saved (Qt-free): whether it
has cards, and where it looks payments up; asked only once the address answers like the
service (no key to another program)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from ..config.profiles import CARDS_CURRENCIES, NO_CARDS_CURRENCIES, Profile
from ..service.errors import ServiceError
from .guard import AddressGuard


async def discover(guard: AddressGuard, profile: Profile, secret: str) -> Profile:
    """Find out from the service whether it has cards (adjusting the default currencies)
    and where it looks payments up."""
    from ..config import keycheck  # httpx is imported after the first paint

    try:
        await guard.ask(profile, "test")  # no key to another program
    except ServiceError:
        return profile  # not found out now: the first call finds it
    cards, lookup_path = await asyncio.gather(
        keycheck.has_cards(profile.base_url, secret), keycheck.lookup_path(profile.base_url, secret)
    )
    # not found out (unreachable): None, and the first lookup finds it
    profile = replace(profile, lookup_path=lookup_path)
    if cards is None:
        return profile
    currencies = profile.currencies
    if currencies in (CARDS_CURRENCIES, NO_CARDS_CURRENCIES):
        currencies = list(CARDS_CURRENCIES if cards else NO_CARDS_CURRENCIES)
    return replace(profile, has_cards=cards, currencies=currencies)
