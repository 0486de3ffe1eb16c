"""A profile of a running sandbox, saved in a session with its keys: what a user's Save in the
profile editor leaves behind. ``add_profile`` is a coroutine (Qt-free, for tests without a
window); ``use_profile`` runs it on a GUI test's loop (``loop`` of tests/ui/conftest.py).
No Qt: the Qt-free tier imports it."""

from __future__ import annotations

from paydesk.config.profiles import KINDS, MODES, Profile

ALL_KEYS = tuple((mode, kind) for mode in MODES for kind in KINDS)
SECRET_KEYS = tuple((mode, "secret") for mode in MODES)  # the test and the live secret key
TEST_SECRET = (("test", "secret"),)


def keys_of(sb, which=ALL_KEYS, merchant: int = 0) -> dict[tuple[str, str], str]:
    """The keys ``which`` ((mode, kind) pairs) of a merchant of the sandbox ``sb``."""
    return {(mode, kind): sb.key(mode, kind, merchant) for mode, kind in which}


async def add_profile(
    session,
    sb,
    *,
    name: str = "Shop",
    merchant: int = 0,
    keys=ALL_KEYS,
    discover: bool = False,
    activate: bool = True,
    **fields,
) -> Profile:
    """A new profile of ``session`` on the sandbox ``sb`` (tests/helpers.py's ``Running``)
    holding the ``keys`` of ``merchant``, saved and (unless ``activate=False``) made the
    active one. ``fields`` go to ``Profile`` (``txref_prefix``, ``has_cards``, ``currencies``,
    ...). With ``discover``, found out first as the profile editor's Save does (cards, the
    lookup path)."""
    profile = Profile(id=Profile.new_id(), name=name, base_url=sb.base_url, **fields)
    if discover:
        profile = await session.discover(profile, sb.key("test", "secret", merchant))
    await session.save_profile(profile, keys_of(sb, keys, merchant), activate=activate)
    return profile


def use_profile(loop, session, sb, **options) -> Profile:
    """``add_profile`` run to its end on ``loop`` (a GUI test's); ``options`` as there."""
    return loop.run(add_profile(session, sb, **options))
