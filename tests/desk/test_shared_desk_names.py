"""Each desk of a shop has a name of its own (its installation's), so that "Payments checked by
…" and the Counter shifts tell two desks apart even when their computers have the same name.
Two desks on one PostgreSQL (here both on this computer: one computer name): the first
goes by the computer's name, the second by the computer's name and its installation's id;
each keeps its name across restarts; a name set by the person is the shop's only one of it.
The status bars and the counters' shifts say those names."""

from __future__ import annotations

import pytest

from paydesk.config.desk_name import computer_name
from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.desk.desk_name import DeskNameRefused
from tests import profiles
from tests.helpers import MemoryKeyring


@pytest.fixture
async def shop(tmp_path, pg_url, sandbox):
    """``await shop(folder)``: a desk on the shared ledger, in a data folder and keyring of its
    own, the sandbox's merchant its profile, its lease short; opened (not started)."""
    desks = []
    keyrings = {}

    async def open_desk(folder: str):
        paths = Paths(data=tmp_path / folder, sandbox=tmp_path / f"{folder}-sandbox").ensure()
        desk = build_desk(paths, KeyStore(keyrings.setdefault(folder, MemoryKeyring())), ledger_url=pg_url)
        desk.live.keeper.ttl, desk.live.keeper.renew_every = 3.0, 0.5
        await desk.open()
        desks.append(desk)
        if not desk.session.settings.profiles:
            await profiles.add_profile(desk.session, sandbox, txref_prefix="SHOP", shop_email="till@example.com")
        elif await desk.session.key() is None:
            await desk.session.save_profile(desk.session.profile, profiles.keys_of(sandbox))
        desk.status = []
        desk.hub.shared_status.connect(desk.status.append)
        return desk

    yield open_desk
    for desk in desks:
        await desk.close()


async def test_two_desks_of_one_computer_name_are_told_apart(shop, until):
    computer = computer_name()
    a = await shop("desk-a")
    b = await shop("desk-b")
    assert a.session.desk_name == computer
    assert b.session.desk_name == f"{computer} ({b.session.installation_id})"

    # the status bars: who checks payments, by its desk's name
    a.start_background()
    await until(lambda: a.live.keeper.fence is not None, message="desk A checks payments")
    b.start_background()
    for desk in (a, b):
        await until(
            lambda d=desk: d.status[-1:] == [f"Payments checked by {computer}"],
            message="desk A named in the status bars",
        )
    # the counters' shifts, by their desks' names
    shifts = [await desk.counter.shift() for desk in (a, b)]
    assert [s.counter for s in shifts] == [computer, b.session.desk_name]
    assert shifts[0].id != shifts[1].id  # one shift each, not one for both
    listed = {s.counter for s in await a.book.shifts(a.session.profile.id, "test")}
    assert listed == {computer, b.session.desk_name}

    # desk A stops: B checks payments, and every status bar says B's name
    await a.close()
    await until(
        lambda: b.status[-1:] == [f"Payments checked by {b.session.desk_name}"],
        timeout=20,
        message="desk B named once it checks payments",
    )
    # restarted, each desk keeps its name
    again = await shop("desk-a")
    assert again.session.desk_name == computer
    again.start_background()
    await until(
        lambda: again.status[-1:] == [f"Payments checked by {b.session.desk_name}"],
        message="desk B named in desk A's status bar",
    )


async def test_a_desk_named_by_the_person(shop, until):
    a = await shop("desk-a")
    b = await shop("desk-b")
    await b.naming.rename("Till 2")
    assert b.session.desk_name == "Till 2"
    assert (await b.counter.shift()).counter == "Till 2"  # the counter goes by the desk's name
    with pytest.raises(DeskNameRefused, match="Another desk of the shop is called Till 2"):
        await a.naming.rename("till 2")
    with pytest.raises(DeskNameRefused, match="At most 40 characters"):
        await a.naming.rename("T" * 41)
    assert a.session.desk_name == computer_name()
    b.start_background()
    await until(lambda: b.live.keeper.fence is not None, message="desk B checks payments")
    a.start_background()
    await until(lambda: a.status[-1:] == ["Payments checked by Till 2"], message="desk B named by its new name")
    await b.naming.rename("Back office")  # renamed while it checks payments: said at once
    await until(
        lambda: a.status[-1:] == ["Payments checked by Back office"], message="desk B's new name in desk A's status bar"
    )
    # kept across a restart (in this installation's settings), and given back by emptying it
    await b.close()
    b = await shop("desk-b")
    assert b.session.desk_name == "Back office"
    await b.naming.rename("")
    assert b.session.desk_name == f"{computer_name()} ({b.session.installation_id})"


async def test_a_desk_whose_counter_has_sales_open_keeps_its_name(shop):
    """Its counter goes by the desk's name, and a shift is always one counter's: the desk is
    renamed once the shift is closed (as the counter itself is)."""
    b = await shop("desk-b")
    sale = await b.counter.sell("7", "GBP")
    with pytest.raises(DeskNameRefused, match="close the shift first, then rename the desk"):
        await b.naming.rename("Till 2")
    assert b.session.desk_name == b.counter.name != "Till 2"
    await b.counter.close_shift(sale.shift_id)
    await b.naming.rename("Till 2")
    assert b.counter.name == "Till 2"
