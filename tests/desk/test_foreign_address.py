"""Another program at a profile's address (issue 28, item 5). A profile added by hand at an
address where another program answered: the secret key was sent to it twelve times, the
link became NOT CREATED, the status said "The test key was refused" long after the program
was gone, and "Offline" came only after Check now.

Against real programs over HTTP on 127.0.0.1: the sandbox, stopped, and in its place a plain
web server (tests/helpers.py's ``Foreign``) that counts the requests carrying a secret key."""

from decimal import Decimal
from urllib.parse import urlsplit

import pytest

from paydesk.ledger import CREATING
from paydesk.sandbox import SandboxConfig, SandboxServer
from paydesk.service.errors import ServiceError
from paydesk.service.models import PaymentRequest
from tests.helpers import Foreign

pytestmark = pytest.mark.sockets  # who answers at an address: real listeners

FOREIGN_WORDS = "does not answer like the service"


def request(ref):
    return PaymentRequest(
        amount=Decimal(12),
        currency="GBP",
        email="kim@example.com",
        first_name="Kim",
        last_name="Lee",
        tx_ref=ref,
        title="Tea",
    )


def secrets_of(sb):
    return tuple(sb.key(mode, kind) for mode in ("test", "live") for kind in ("secret", "public"))


def health_text(session, profile):
    return session.health.get(profile.id, "test").text()


@pytest.fixture
def foreign_in_place(sandbox):
    """``start(shape)``: the sandbox stopped, and another program answering at its address
    (its port) with ``shape``; stopped after the test."""
    started = []

    def start(shape):
        sandbox.stop()
        program = Foreign(shape, port=urlsplit(sandbox.base_url).port, secrets=secrets_of(sandbox))
        started.append(program)
        return program

    yield start
    for program in started:
        program.close()


@pytest.mark.parametrize("shape", sorted(Foreign.SHAPES))
async def test_a_foreign_program_gets_no_key_blames_none_and_the_link_waits(
    desk, session, add_profile, sandbox, foreign_in_place, service, until, shape
):
    profile = await add_profile()  # saved by hand: nothing was checked
    program = foreign_in_place(shape)
    ref = await desk.links.next_reference(profile)
    with pytest.raises(ServiceError, match=FOREIGN_WORDS):
        await desk.links.create(request(ref))
    said = health_text(session, profile)
    assert FOREIGN_WORDS in said and "refused" not in said
    assert program.with_secret() == 0 and program.count() >= 1  # asked, without a secret
    record = await session.ledger.get(profile.id, ref)
    assert record is not None and record.state == CREATING  # kept as intent: not NOT CREATED

    desk.start_background()  # the scheduler settles creates; the address is asked again
    await until(lambda: program.count() >= 3, 20, "the address asked again, with backoff")
    assert program.with_secret() == 0
    assert FOREIGN_WORDS in health_text(session, profile)
    assert (await session.ledger.get(profile.id, ref)).state == CREATING

    program.close()  # the program goes: nothing listens there now
    await until(
        lambda: health_text(session, profile).startswith("Offline since"), 20, "Offline, said without anything pressed"
    )

    # the service answers there again: the link is settled, created once
    back = SandboxServer(
        SandboxConfig(data_dir=sandbox.server.data_dir, port=urlsplit(sandbox.base_url).port, base_path="/pay")
    ).start()
    try:

        async def settled():
            record = await session.ledger.get(profile.id, ref)
            return record if record.state != CREATING else None

        record = await until(settled, 60, "the link settled once the service answers")
        assert record.state == "pending"
        assert service.payments(ref) == 1
        assert health_text(session, profile).startswith("Checked")
    finally:
        back.stop()


async def test_a_refused_key_is_blamed_only_when_the_service_refuses_it(
    desk, session, add_profile, sandbox, foreign_in_place
):
    """A program that refuses every key as another API does (401, a JSON of its own) is not
    the service refusing this profile's key: a look-up says what answers, blames no key."""
    profile = await add_profile()
    program = foreign_in_place("json-401")
    with pytest.raises(ServiceError, match=FOREIGN_WORDS):
        await desk.links.look_up(profile, "test", "SHOP-NOTHING")
    assert "refused" not in health_text(session, profile)
    assert program.with_secret() == 0


async def test_a_program_that_takes_the_address_later_is_found_out_at_its_first_answer(
    desk, session, add_profile, sandbox, foreign_in_place
):
    """The service answered before (its address trusted); another program takes its place:
    its first answer, not the service's shape, makes PayDesk ask the address again before
    anything more is sent. One request may carry the key (the one that found out); none after."""
    profile = await add_profile()
    ref = await desk.links.next_reference(profile)
    await desk.links.create(request(ref))  # the service answered: the address is trusted
    program = foreign_in_place("html")
    with pytest.raises(ServiceError, match=FOREIGN_WORDS):
        await desk.links.look_up(profile, "test", ref)
    assert program.with_secret() <= 1
    sent = program.with_secret()
    for _ in range(3):
        with pytest.raises(ServiceError, match=FOREIGN_WORDS):
            await desk.links.look_up(profile, "test", ref)
    assert program.with_secret() == sent
    assert FOREIGN_WORDS in health_text(session, profile)


async def test_check_now_asks_the_address_again_and_says_what_answers(
    desk, session, add_profile, sandbox, foreign_in_place
):
    """Check now (Transactions) asks the address again at once, without a key, and says what
    answers there: not "the service cannot be reached"."""
    profile = await add_profile()
    ref = await desk.links.next_reference(profile)
    await desk.links.create(request(ref))
    program = foreign_in_place("html")
    first = await desk.transactions.check(ref)
    asked = program.count()
    again = await desk.transactions.check(ref)  # "Check now", pressed again at once
    assert program.count() > asked  # asked again, not refused on what was known
    for lookup in (first, again):
        assert FOREIGN_WORDS in lookup.message and "cannot be reached" not in lookup.message
    assert program.with_secret() <= 1  # the one request that found it out, if any


async def test_an_address_no_profile_uses_any_more_is_no_longer_asked(
    desk, session, add_profile, sandbox, foreign_in_place, make_sandbox, until, monkeypatch
):
    """The profile's address corrected (the service found elsewhere): the program at the
    old address is asked no more, and the profile works at the new one. (Asked again every
    0.1 s here, not from 1 s up to every 15 s: the same rule, sooner.)"""
    import asyncio
    from dataclasses import replace

    from paydesk.desk import guard
    from tests.profiles import SECRET_KEYS, keys_of

    monkeypatch.setattr(guard, "FIRST", 0.1)
    monkeypatch.setattr(guard, "LONGEST", 0.1)

    profile = await add_profile()
    program = foreign_in_place("html")
    with pytest.raises(ServiceError, match=FOREIGN_WORDS):
        await desk.links.look_up(profile, "test", "SHOP-NOTHING")
    await until(lambda: program.count() >= 3, 10, "the old address asked again")
    elsewhere = make_sandbox("elsewhere", base_path="/pay")
    await session.save_profile(replace(profile, base_url=elsewhere.base_url), keys_of(elsewhere, SECRET_KEYS))
    asked = program.count()
    await asyncio.sleep(1)  # ten times the wait between two askings
    assert program.count() <= asked + 1  # one asking may have been under way
    moved = session.profile
    ref = await desk.links.next_reference(moved)
    assert (await desk.links.create(request(ref))).state == "pending"
    assert FOREIGN_WORDS not in health_text(session, moved)
