"""Two desks of one shop whose computers have one name (here: both on this computer), on one
shared ledger (a real PostgreSQL, a real sandbox): the status bar and the Counter shifts
window name each by its own desk's name, the second told apart by its installation's id."""

from __future__ import annotations

import pytest

from paydesk.config.desk_name import computer_name
from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.ui.counter.shifts import CounterShiftsWindow
from paydesk.ui.status import StatusLine
from tests import profiles
from tests.helpers import MemoryKeyring


@pytest.fixture
def two_desks(loop, tmp_path, sandbox, pg_url):
    desks = []
    for folder in ("desk-a", "desk-b"):
        paths = Paths(data=tmp_path / folder, sandbox=tmp_path / f"{folder}-sb").ensure()
        desk = build_desk(paths, KeyStore(MemoryKeyring()), ledger_url=pg_url)
        desk.live.keeper.ttl, desk.live.keeper.renew_every = 3.0, 0.5
        loop.run(desk.open())
        desks.append(desk)
    a, b = desks
    merchant = loop.run(profiles.add_profile(a.session, sandbox, txref_prefix="SHOP", shop_email="till@example.com"))
    loop.run(b.session.save_profile(merchant, profiles.keys_of(sandbox)))
    yield a, b
    for desk in reversed(desks):
        loop.run(desk.close())


def test_the_status_bar_and_the_counter_shifts_tell_the_desks_apart(two_desks, loop, qtbot):
    a, b = two_desks
    computer = computer_name()
    second = f"{computer} ({b.session.installation_id})"
    assert (a.session.desk_name, b.session.desk_name) == (computer, second)
    status = StatusLine(a.session)
    qtbot.addWidget(status)
    b.start_background()
    loop.until(lambda: b.live.keeper.fence is not None, message="desk B checks payments")
    a.start_background()
    loop.until(
        lambda: status.shared.text() == f"Payments checked by {second}", message="desk B named in desk A's status bar"
    )
    assert status.shared.accessibleName() == f"Shared ledger: Payments checked by {second}"

    loop.run(a.counter.sell("7", "GBP"))
    loop.run(b.counter.sell("12", "GBP"))
    window = CounterShiftsWindow(a.session, a.counter)
    qtbot.addWidget(window)
    window.show()
    loop.until(lambda: window.loaded, message="the Counter shifts window")
    shifts = window.shifts_model
    shown = [shifts.text(shifts.at(row), 0) for row in range(shifts.rowCount())]
    assert sorted(shown) == sorted([computer, second])  # one shift each, each desk named
