"""Finance's Counter shifts window over two counters of one shop on one shared ledger (a real
PostgreSQL, a real sandbox): every counter's shifts and open sales, kept live as the other
counter sells, is paid, voids, is paid after the void and closes its shift; Keep settles a
payment after void for every desk; Enter on a shift opens its report."""

from __future__ import annotations

from decimal import Decimal

import pytest

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.ui.counter.shifts import CounterShiftsWindow
from tests import profiles
from tests.helpers import MemoryKeyring
from tests.ui import press

SHOP_EMAIL = "till@example.com"


@pytest.fixture
def shop(paths, keys, loop, tmp_path, sandbox, pg_url):
    """(here, there): two desks on one shared ledger, counters "Till 1" (here, which checks
    payments) and "Till 2", the sandbox's merchant (with the shop's e-mail) their profile."""
    desks = []

    def open_desk(name, desk_paths, desk_keys):
        desk = build_desk(desk_paths, desk_keys, ledger_url=pg_url)
        desk.live.keeper.ttl, desk.live.keeper.renew_every = 3.0, 0.5
        loop.run(desk.open())
        loop.run(desk.naming.rename(name))
        desks.append(desk)
        return desk

    here = open_desk("Till 1", paths, keys)
    merchant = loop.run(profiles.add_profile(here.session, sandbox, txref_prefix="SHOP", shop_email=SHOP_EMAIL))
    there = open_desk(
        "Till 2", Paths(data=tmp_path / "there", sandbox=tmp_path / "there-sandbox").ensure(), KeyStore(MemoryKeyring())
    )
    loop.run(there.session.save_profile(merchant, profiles.keys_of(sandbox)))
    for desk, name in ((here, "Till 1"), (there, "Till 2")):
        loop.run(desk.counter.rename(name))
    here.start_background()
    loop.until(lambda: here.live.keeper.fence is not None, message="the poller's lease")
    there.start_background()
    yield here, there
    for desk in reversed(desks):
        loop.run(desk.close())


def shown(qtbot, widget):
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def choose_row(view, row):
    index = view.model().index(row, 0)
    view.scrollTo(index)
    press.click(view.viewport(), pos=view.visualRect(index).center())


def listed_sales(window) -> list[tuple[str, str, str]]:
    model = window.sales_model
    return [(s.counter, s.tx_ref, model.text(s, 5)) for s in model.sales]


def shift_row(window, counter: str) -> int:
    model = window.shifts_model
    return next(row for row in range(model.rowCount()) if model.at(row)[0].counter == counter)


def test_finance_sees_every_counter_live_and_settles_a_payment_after_void(shop, loop, qtbot, sandbox):
    here, there = shop
    mine = loop.run(here.counter.sell("7", "GBP"))
    theirs = loop.run(there.counter.sell("12", "GBP"))
    window = shown(qtbot, CounterShiftsWindow(here.session, here.counter))
    loop.until(lambda: window.loaded, message="the Counter shifts window")
    assert window.windowTitle() == "Counter shifts"
    shifts = window.shifts_model
    assert sorted(shifts.at(row)[0].counter for row in range(shifts.rowCount())) == ["Till 1", "Till 2"]
    assert all(shifts.text(shifts.at(row), 4) == "open" for row in range(shifts.rowCount()))
    assert set(listed_sales(window)) == {("Till 1", mine.tx_ref, "Open"), ("Till 2", theirs.tx_ref, "Open")}

    # the other counter's sale is paid: out of the open sales, counted in its shift
    sandbox.control(f"pay/{theirs.record.reference}", {"outcome": "success"})
    loop.until(
        lambda: theirs.tx_ref not in [t for _, t, _ in listed_sales(window)],
        timeout=30,
        message="the paid sale out of the open ones",
    )
    row = shift_row(window, "Till 2")
    loop.until(
        lambda: shifts.text(shifts.at(shift_row(window, "Till 2")), 7) == "1",
        timeout=10,
        message="Till 2's shift counting it paid",
    )
    assert shifts.text(shifts.at(row), 11) == "GBP 12.00"

    # it sells again (once its own desk has heard the payment, as its staff would see PAID
    # before the next Enter): listed within a second; voided: out; paid anyway: loud, until Keep
    loop.until(lambda: not there.counter.payable(), timeout=30, message="Till 2's desk hearing the payment")
    later = loop.run(there.counter.sell("15", "GBP"))
    loop.until(
        lambda: ("Till 2", later.tx_ref, "Open") in listed_sales(window),
        timeout=2,
        message="the other counter's new sale",
    )
    assert loop.run(there.counter.new_sale()).voided
    loop.until(
        lambda: later.tx_ref not in [t for _, t, _ in listed_sales(window)],
        timeout=5,
        message="the voided sale out of the open ones",
    )
    assert not window.banner.isVisible()
    sandbox.control(f"pay/{later.record.reference}", {"outcome": "success"})
    loop.until(
        lambda: ("Till 2", later.tx_ref, "Paid after void: refund or keep") in listed_sales(window),
        timeout=30,
        message="the payment after void",
    )
    loop.until(window.banner.isVisible, timeout=5, message="the banner (counted in the ledger)")
    assert window.banner.text() == "1 payment after void: refund or keep"
    row = [t for _, t, _ in listed_sales(window)].index(later.tx_ref)
    choose_row(window.sales, row)
    assert window.keep_button.isEnabled() and window.refund_button.isEnabled()
    decided = loop.run(press.starting("decide", lambda: press.click(window.keep_button)))
    assert decided.decision == "keep" and decided.decided_by == here.counter.user
    assert later.tx_ref not in [t for _, t, _ in listed_sales(window)]
    loop.until(lambda: not window.banner.isVisible(), timeout=5, message="the banner gone")
    assert loop.run(there.counter.book.sale(*later.key)).decision == "keep"  # for every desk

    # the other counter closes its shift: shown closed here, and its report opens with Enter
    closed = loop.run(there.counter.close_shift(loop.run(there.counter.shift()).id))
    loop.until(
        lambda: shifts.text(shifts.at(shift_row(window, "Till 2")), 4) != "open",
        timeout=5,
        message="Till 2's shift closed",
    )
    row = shift_row(window, "Till 2")
    assert shifts.text(shifts.at(row), 5) == there.counter.user
    choose_row(window.shifts, row)
    task = press.starting("report", lambda: press.enter(window.shifts))
    loop.until(lambda: press.shown("shift-report") is not None, message="the report")
    report = press.shown("shift-report")
    said = dict(report.lines())
    assert said["Counter"] == "Till 2" and said["Shift"] == str(closed.id)
    assert (said["Sales made"], said["Paid"], said["Paid after void"]) == ("2", "1", "1")
    assert said["GBP paid"] == "GBP 12.00" and said["GBP paid after void"] == "GBP 15.00"
    assert closed.figures.currencies["GBP"].paid == Decimal(12)
    press.escape(report)
    loop.run(task)
    assert press.closed(report)
    # this counter's own shift is still open, its sale still listed
    assert shifts.text(shifts.at(shift_row(window, "Till 1")), 4) == "open"
    assert ("Till 1", mine.tx_ref, "Open") in listed_sales(window)


def test_a_paid_sale_heard_late_as_open_stays_out_of_the_open_sales(shop, loop, qtbot, sandbox):
    """The sale as it was before it was paid, heard after it left the open sales (a shared
    ledger's reads can reach the window out of order: tests/ui/counter/test_heard_late.py),
    does not come back as open."""
    here, there = shop
    theirs = loop.run(there.counter.sell("12", "GBP"))
    window = shown(qtbot, CounterShiftsWindow(here.session, here.counter))
    loop.until(lambda: window.loaded, message="the Counter shifts window")
    assert ("Till 2", theirs.tx_ref, "Open") in listed_sales(window)
    sandbox.control(f"pay/{theirs.record.reference}", {"outcome": "success"})
    loop.until(
        lambda: theirs.tx_ref not in [t for _, t, _ in listed_sales(window)],
        timeout=30,
        message="the paid sale out of the open ones",
    )
    here.hub.sale_changed.emit(theirs)  # the sale as it was, open, heard late
    assert theirs.tx_ref not in [t for _, t, _ in listed_sales(window)]


def test_the_window_is_marked_as_of_when_the_shared_ledger_went(shop, loop, qtbot, pg_server):
    here, there = shop
    sale = loop.run(there.counter.sell("12", "GBP"))
    window = shown(qtbot, CounterShiftsWindow(here.session, here.counter))
    loop.until(lambda: window.loaded, message="the Counter shifts window")
    assert window.heading.text() == "Every counter's shifts in Shop · TEST"
    with pg_server.down():
        loop.until(lambda: here.live.engine.down_since is not None, timeout=30, message="the ledger out of reach")
        as_of = f"as of {here.live.engine.down_since.astimezone():%H:%M}"
        loop.until(lambda: window.heading.text().endswith(", " + as_of), message="the heading marked")
        assert ("Till 2", sale.tx_ref, "Open") in listed_sales(window)  # the lists stay
    loop.until(lambda: "as of" not in window.heading.text(), timeout=30, message="back: the mark cleared")
