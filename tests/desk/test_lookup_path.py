"""Where a deployment looks payments up is found out once and kept with its profile (as
whether it has cards is): by the profile editor's Save (``Session.discover``), and by the
first lookup of a profile that does not know yet; saved in profiles.json, handed to the
next client. The session alone, no Qt."""

import pytest

from paydesk.config.profiles import Profile, SettingsFile
from paydesk.service import NotFoundError
from tests import dialects, profiles

LOOKUP_PATH = {"strict": "api/transaction", "quirks": "api/transaction", "family": "api/verify-payment"}


@pytest.fixture(params=dialects.params())
def dialect_sandbox(request, make_sandbox):
    return make_sandbox(request.param, base_path="/pay", **dialects.options(request.param))


def _saved(paths, profile_id):
    return SettingsFile(paths.profiles).load().profile(profile_id)


async def test_the_first_lookup_finds_it_and_the_profile_keeps_it(session, paths, until, dialect_sandbox):
    sb = dialect_sandbox
    expected = LOOKUP_PATH[dialects.dialect_of(sb)]
    profile = await profiles.add_profile(session, sb)
    assert profile.lookup_path is None

    async with session.lease(profile, "test") as client:
        with pytest.raises(NotFoundError):
            await client.validate("NOT-THERE-1")
    assert session.settings.profile(profile.id).lookup_path == expected
    await until(
        lambda: _saved(paths, profile.id).lookup_path == expected, message="the lookup path saved in profiles.json"
    )

    # the client of the next start
    async with session.lease(session.settings.profile(profile.id), "live") as client:
        assert client.lookup_path == expected


async def test_discover_finds_it_with_the_cards(session, dialect_sandbox):
    """What the profile editor's Save asks before the profile is stored."""
    sb = dialect_sandbox
    profile = Profile(
        id=Profile.new_id(),
        name="Shop",
        base_url=sb.base_url,
        lookup_path="api/transaction" if dialects.dialect_of(sb) == "family" else "api/verify-payment",
    )  # as if the address had moved
    found = await session.discover(profile, sb.key("test"))
    assert found.lookup_path == LOOKUP_PATH[dialects.dialect_of(sb)]
    assert found.has_cards is True


@pytest.mark.skipif(not dialects.FAMILY_READY, reason=dialects.WAITING)
async def test_a_client_of_the_old_address_never_sets_the_moved_profiles_path(session, make_sandbox):
    family = make_sandbox("family", base_path="/pay", **dialects.options("family"))
    strict = make_sandbox("strict", base_path="/pay")
    profile = await profiles.add_profile(session, family, keys=profiles.TEST_SECRET)

    async with session.lease(profile, "test") as old:  # looked up while it moves
        moved = Profile(id=profile.id, name="Shop", base_url=strict.base_url)
        await session.save_profile(moved, {("test", "secret"): strict.key()})
        with pytest.raises(NotFoundError):
            await old.validate("NOT-THERE-2")  # finds verify-payment at the old address
        assert old.lookup_path == "api/verify-payment"
    assert session.settings.profile(profile.id).lookup_path is None  # not the old address's
