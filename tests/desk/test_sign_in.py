"""Signing in at a desk (desk/sign_in.py), called as the window calls it, without Qt: a shop
without staff works as before; the first person is an Admin and is signed in; a PIN signs
a person in, a wrong one says so in one sentence with the growing wait, which a restart
does not end; the lock and switching person leave the counter's shift open; the idle
minutes are the computer's; the staff list is an Admin's and keeps its last Admin."""

import json
import time

import pytest

from paydesk.desk.build import build_desk
from paydesk.desk.sign_in import StaffRefused, WrongPin
from paydesk.desk.staff import Capability, NotAllowed, Person, Role
from paydesk.ledger.staff import pin_hash


async def test_a_shop_without_staff_works_as_before(desk):
    sign_in = desk.sign_in
    assert await sign_in.people() == []
    assert not desk.session.staff.set_up and desk.session.staff.person is None
    assert all(desk.session.staff.allows(c) for c in Capability)
    assert desk.session.staff.actor is None
    assert sign_in.idle_lock_minutes == 5


async def test_the_first_person_is_an_admin_and_is_signed_in(desk):
    with pytest.raises(StaffRefused, match=r"^The first person set up must be an Admin\.$"):
        await desk.sign_in.add_person("Bo", Role.COUNTER, "1234")
    with pytest.raises(StaffRefused, match=r"^A PIN is 4 to 8 digits\.$"):
        await desk.sign_in.add_person("Ana", Role.ADMIN, "12")
    assert not desk.session.staff.set_up
    ana = await desk.sign_in.add_person("Ana", Role.ADMIN, "1234")
    staff = desk.session.staff
    assert staff.set_up and staff.person == ana and staff.actor == "Ana"
    assert staff.person.label == "Ana · Admin"


async def _shop(desk):
    ana = await desk.sign_in.add_person("Ana", Role.ADMIN, "1234")
    bo = await desk.sign_in.add_person("Bo", Role.COUNTER, "2468")
    fay = await desk.sign_in.add_person("Fay", Role.FINANCE, "13579")
    return ana, bo, fay


async def test_a_pin_signs_in_and_a_wrong_one_says_so(desk):
    ana, bo, _ = await _shop(desk)
    sign_in, staff = desk.sign_in, desk.session.staff
    heard: list[Person | None] = []
    staff.on_change(heard.append)
    sign_in.lock()
    assert staff.person is None and not staff.allows(Capability.SELL)
    with pytest.raises(NotAllowed, match=r"^Sign in first: this desk is locked\.$"):
        staff.require(Capability.SELL)
    assert await sign_in.sign_in(bo.id, "2468") == bo
    assert staff.allows(Capability.SELL) and not staff.allows(Capability.LINKS)
    with pytest.raises(NotAllowed, match=r"^Bo \(Counter\) may not use payment links\.$"):
        staff.require(Capability.LINKS)
    sign_in.lock()
    for _ in range(3):
        with pytest.raises(WrongPin, match=r"^Wrong PIN\. Try again\.$"):
            await sign_in.sign_in(ana.id, "9999")
    with pytest.raises(WrongPin, match=r"^Wrong PIN\. Try again in 2 seconds\.$") as fourth:
        await sign_in.sign_in(ana.id, "9999")
    assert fourth.value.wait_s == 2
    with pytest.raises(WrongPin, match=r"^Too many wrong PINs\. Try again in [12] seconds?\.$"):
        await sign_in.sign_in(ana.id, "1234")  # the right PIN, during the wait
    assert staff.person is None
    assert heard == [None, bo, None]


async def test_the_wait_survives_a_restart(paths, keys, desk):
    ana, _, _ = await _shop(desk)
    for _ in range(4):
        with pytest.raises(WrongPin):
            await desk.sign_in.sign_in(ana.id, "0000")
    again = build_desk(paths, keys)  # PayDesk started again on the same file
    await again.open()
    try:
        assert again.session.staff.set_up and again.session.staff.person is None  # opens locked
        with pytest.raises(WrongPin, match="Too many wrong PINs"):
            await again.sign_in.sign_in(ana.id, "1234")
    finally:
        await again.close()


async def test_switching_person_keeps_the_shift_open(desk, add_profile):
    await add_profile()
    ana, bo, _ = await _shop(desk)
    shift = await desk.counter.shift()
    desk.sign_in.lock()
    assert await desk.sign_in.switch(bo.id, "2468") == bo
    assert (await desk.counter.shift()).id == shift.id
    with pytest.raises(WrongPin):
        await desk.sign_in.switch(ana.id, "0000")
    assert desk.session.staff.person is None  # a wrong PIN leaves it locked
    assert (await desk.counter.shift()).id == shift.id


async def test_the_idle_minutes_are_this_computers_and_an_admins(paths, desk):
    await desk.sign_in.set_idle_lock_minutes(12)  # no staff: anyone, as every setting
    assert desk.sign_in.idle_lock_minutes == 12
    assert json.loads((paths.data / "counter.json").read_text())["idle_lock_minutes"] == 12
    await desk.counter.set_screen("")  # the counter's own saves keep them
    assert json.loads((paths.data / "counter.json").read_text())["idle_lock_minutes"] == 12
    _, bo, _ = await _shop(desk)
    await desk.sign_in.set_idle_lock_minutes(0)
    with pytest.raises(StaffRefused, match="or 0 for never"):
        await desk.sign_in.set_idle_lock_minutes(241)
    await desk.sign_in.switch(bo.id, "2468")
    with pytest.raises(NotAllowed, match="may not use staff"):
        await desk.sign_in.set_idle_lock_minutes(60)
    await desk.counter.load()
    assert desk.sign_in.idle_lock_minutes == 0


async def test_the_staff_list_is_an_admins_and_keeps_its_last_admin(desk):
    ana, bo, fay = await _shop(desk)
    sign_in, staff = desk.sign_in, desk.session.staff
    assert [p.name for p in await sign_in.people()] == ["Ana", "Bo", "Fay"]
    await sign_in.switch(fay.id, "13579")
    with pytest.raises(NotAllowed, match=r"^Fay \(Finance\) may not use staff\.$"):
        await sign_in.add_person("Gus", Role.COUNTER, "1111")
    with pytest.raises(NotAllowed):
        await sign_in.change_person(bo.id, role=Role.ADMIN)
    with pytest.raises(NotAllowed):
        await sign_in.remove_person(bo.id)
    await sign_in.switch(ana.id, "1234")
    with pytest.raises(StaffRefused, match="must keep at least one Admin"):
        await sign_in.change_person(ana.id, role=Role.COUNTER)
    with pytest.raises(StaffRefused, match="cannot remove yourself"):
        await sign_in.remove_person(ana.id)
    with pytest.raises(StaffRefused, match="There is already someone called BO"):
        await sign_in.add_person("BO", Role.COUNTER, "1111")
    await sign_in.change_person(bo.id, pin="86420")
    await sign_in.remove_person(fay.id)
    assert [p.name for p in await sign_in.people()] == ["Ana", "Bo"]
    ana = await sign_in.change_person(ana.id, name="Ana M")
    assert staff.person == ana and staff.actor == "Ana M"  # her new name at once
    await sign_in.switch(bo.id, "86420")


async def test_the_pin_is_hashed_off_the_loops_thread():
    """argon2id takes tens of milliseconds by design: never on the loop's thread."""
    import asyncio
    import threading

    from paydesk.ledger import staff as staff_module

    seen: list[str] = []
    hashed = staff_module._hash

    def spy(*args):
        seen.append(threading.current_thread().name)
        return hashed(*args)

    staff_module._hash = spy
    try:
        started = time.perf_counter()
        await pin_hash("1234", b"0" * 16, staff_module.COST)
        took = time.perf_counter() - started
    finally:
        staff_module._hash = hashed
    assert seen and seen[0] != threading.main_thread().name
    assert asyncio.get_running_loop() is not None and took < 2
