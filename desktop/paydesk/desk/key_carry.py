"""A desk's keys follow it onto the shop's shared ledger (Qt-free).

On its own ledger a desk keeps a profile's keys in its keyring under the profile's own id;
on a shared ledger the profile is the shop's merchant, known by its merchant id
(``config/merchants.py``), and its keys are looked up under that id. ``merchant_map`` says
which merchant each of the desk's own profiles is (the service's address and the public
key the keyring holds); ``carry_keys`` copies the keys over, through the key store (off the
loop's thread): when the desk connects (``Session.load``, and whenever the shop's merchants
change) and when it imports its ledger (``ledger_import.py``). A copy, never a move: the
old entries stay (the desk's own ledger still uses them), and a key the desk already keeps
for the merchant is never overwritten.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from ..config.merchants import identifying_key, is_merchant_id, merchant_id
from ..config.profiles import MODES, Profile
from ..config.secrets import PROFILE_ENTRIES, KeyStore

log = logging.getLogger("paydesk.keys")


async def merchant_map(profiles: Sequence[Profile], keys: KeyStore) -> dict[str, str]:
    """{local profile id: merchant id} for the profiles whose merchant is known: a profile
    saved under its merchant id already, or one whose public key this desk's keyring holds."""
    found: dict[str, str] = {}
    for profile in profiles:
        if is_merchant_id(profile.id):
            found[profile.id] = profile.id
            continue
        public = {(mode, "public"): await keys.get(profile.id, mode, "public") or "" for mode in MODES}
        key = identifying_key(public)
        if key:
            found[profile.id] = merchant_id(profile.base_url, key)
    return found


async def carry_keys(keys: KeyStore, merchants: Mapping[str, str]) -> int:
    """Copy each local profile's keys (``merchants``: {local profile id: merchant id}) to its
    merchant's id where the keyring has none for it yet; the number of keys copied."""
    copied = 0
    for local, merchant in merchants.items():
        if local == merchant:
            continue
        for mode, kind in PROFILE_ENTRIES:
            value = await keys.get(local, mode, kind)
            if not value or await keys.get(merchant, mode, kind):
                continue
            await keys.set(merchant, mode, kind, value)  # written before anything is removed
            copied += 1
    if copied:
        log.info("%d keys of this desk's own profiles carried over to their merchants", copied)
    return copied


async def carry_to_shown(keys: KeyStore, own: Sequence[Profile], shown: Sequence[Profile], carried: set[str]) -> None:
    """The keys of this desk's ``own`` profiles copied to those of the merchants ``shown``
    that stand for them, once per merchant (``carried`` remembers which, across calls)."""
    if not own:
        return
    waiting = {p.id for p in shown} - carried
    if not waiting:
        return
    merchants = {local: merchant for local, merchant in (await merchant_map(own, keys)).items() if merchant in waiting}
    await carry_keys(keys, merchants)
    carried.update(merchants.values())
