"""One budget for the shop's calls (issue 30), desks built as the app builds them, against the
sandbox's real throttle over HTTP: two counters and a bulk batch on one shared ledger (real
PostgreSQL) with no sale refused and never more calls in a window than the limit; another
program on the same address slowing a batch down; a desk restarted mid-window; the poller's
lease moving to another desk; the status bar's words while the budget is tight.

Every desk and the sandbox agree on a short window (``rate_limit_window`` seconds on the
sandbox, ``desk.budgets.window`` on the desks) so each test takes seconds, not minutes. The
proof is the sandbox's own call log (``tests/throttle.py``): no call answered 429, and no
more than the limit in any stretch of the window's length."""

from __future__ import annotations

import asyncio
import time
from decimal import Decimal

import pytest

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.ledger.counter import OPEN
from paydesk.service.models import PaymentRequest
from tests import profiles
from tests.desk.bulk.files import write_csv
from tests.desk.bulk.test_runner import HEADERS, line, load
from tests.helpers import MemoryKeyring
from tests.throttle import foreign, most_in, refused, requests_of, window_of
from tests.waiting import until_async

pytestmark = pytest.mark.sockets  # calls counted per origin, against the sandbox's throttle

LIMIT, WINDOW = 20, 4
SHOP_EMAIL = "shop@example.com"


@pytest.fixture
def throttled(make_sandbox):
    """The service, throttled as the family's real server is (per client address, a fixed
    window from the first hit), at LIMIT calls a WINDOW seconds."""
    return make_sandbox("throttled", base_path="/pay", rate_limit=LIMIT, rate_limit_window=WINDOW)


def request(ref: str) -> PaymentRequest:
    return PaymentRequest(
        amount=Decimal(12),
        currency="GBP",
        email="kim@example.com",
        first_name="Kim",
        last_name="Lee",
        tx_ref=ref,
        title="Tea",
    )


@pytest.fixture
async def desks(tmp_path, throttled):
    """``await desks(name, ledger_url=None, data=None)``: a desk on the throttled service,
    its budget's window the sandbox's; on the shared ledger when ``ledger_url`` is given (the
    shop's merchant added by the first desk, its keys by every other), opened and started.
    ``data``: another desk's data folder (that desk run again). ``desks.close(desk)``."""
    made = []
    merchant = {}
    keyrings = {}  # each data folder's, kept across a restart

    async def open_desk(name: str, ledger_url: str | None = None, *, data: str | None = None):
        folder = data or name
        paths = Paths(data=tmp_path / folder, sandbox=tmp_path / f"{name}-sb").ensure()
        keys = KeyStore(keyrings.setdefault(folder, MemoryKeyring()))
        desk = build_desk(paths, keys, ledger_url=ledger_url)
        desk.budgets.window = WINDOW
        if desk.live is not None:
            desk.live.keeper.ttl, desk.live.keeper.renew_every = 3.0, 0.5
        await desk.open()
        made.append(desk)
        if "profile" not in merchant:
            await profiles.add_profile(desk.session, throttled, txref_prefix="SHOP", shop_email=SHOP_EMAIL)
            merchant["profile"] = desk.session.profile
        elif desk.session.profile is None or ledger_url is not None:
            await desk.session.save_profile(merchant["profile"], profiles.keys_of(throttled))
        if ledger_url is not None:
            await desk.naming.rename(name)
        desk.start_background()
        return desk

    async def close(desk) -> None:
        made.remove(desk)
        await desk.close()

    open_desk.close = close
    yield open_desk
    for desk in made:
        await desk.close()


def kept_to_the_limit(sb) -> list[dict]:
    calls = requests_of(sb)
    assert not refused(calls), refused(calls)
    assert most_in(calls, WINDOW) <= LIMIT
    return calls


async def sell_until(desk, stop: asyncio.Event, sales: list, every: float = 2.0) -> None:
    """The counter sells every ``every`` s until ``stop``; each sale's code is cleared for the
    next customer (voided: no call). Two counters so spend about half the window (a sale, and
    the look-up of its code when shown): a counter selling faster than the limit allows
    would leave nothing to the batch, rightly."""
    n = 0
    while not stop.is_set():
        n += 1
        started = time.monotonic()
        sale = await desk.counter.sell(str(10 + n), "GBP", f"Coffee {n}")
        sales.append((sale, time.monotonic() - started))
        await asyncio.sleep(every)
        await desk.counter.new_sale()


@pytest.mark.slow  # budget windows, about 11 s: ./dev test runs it, ./dev check leaves it out
async def test_two_counters_and_a_batch_on_one_ledger_keep_to_the_limit(desks, pg_url, throttled, tmp_path):
    """Issue 30: two counters sell while the office's batch runs, all behind one address.
    No sale is refused (each waits, first in line, if it must), the batch gets what is left,
    and the service never counts more than the limit in a window."""
    office = await desks("Office", pg_url)
    till_1 = await desks("Till 1", pg_url)
    till_2 = await desks("Till 2", pg_url)
    batch = await load(office, write_csv(tmp_path / "terms.csv", [line(n) for n in range(1, 31)], headers=HEADERS))
    stop, sales = asyncio.Event(), []
    counters = [asyncio.create_task(sell_until(d, stop, sales)) for d in (till_1, till_2)]
    await office.bulk.start(batch)
    try:
        await asyncio.wait_for(office.bulk.wait(batch.id), 60)
    finally:
        stop.set()
    await asyncio.gather(*counters)  # a refused sale would raise here
    assert len(sales) >= 6
    assert all(sale.kind == OPEN and sale.record.checkout_url for sale, _ in sales)
    figures = await office.batches.figures(batch.id)
    assert figures.created == 30 and figures.waiting == figures.creating == 0
    kept_to_the_limit(throttled)
    waits = sorted(wait for _, wait in sales)
    assert waits[len(waits) // 2] < 1.0, waits  # a sale is first in line: no queue behind bulk
    for desk in (office, till_1, till_2):  # the one book: the service's limit, learned
        state = desk.budgets.state(desk.session.profile)
        assert state is not None and state.book.limit == LIMIT


@pytest.mark.slow  # budget windows, about 6 s: ./dev test runs it, ./dev check leaves it out
async def test_another_program_on_the_address_slows_the_batch(desks, throttled, tmp_path):
    desk = await desks("Office")
    with foreign(throttled) as other:  # all but 3 of the window, before PayDesk calls
        for n in range(LIMIT - 3):
            assert other.get(f"/api/transaction/OTHER-{n}").status_code == 404
    resets_at = window_of(throttled)["clients"]["127.0.0.1"]["resets_at"]
    busy = []
    desk.hub.service_busy.connect(busy.append)
    batch = await load(desk, write_csv(tmp_path / "few.csv", [line(n) for n in range(1, 9)], headers=HEADERS))
    await desk.bulk.start(batch)
    said = await until_async(lambda: desk.bulk.time_left(batch.id, 8), 5, "the time left")
    assert said.startswith("about ") and "at the service's 300 calls a minute" in said
    await desk.bulk.wait(batch.id)
    ours = kept_to_the_limit(throttled)
    assert not refused(requests_of(throttled, merchant=1))
    in_that_window = [c for c in ours if c["at"].timestamp() < resets_at]
    assert len(in_that_window) <= 3  # what the other program left: seen in Remaining
    assert (await desk.batches.figures(batch.id)).created == 8
    assert any(text.startswith("Service busy: bulk links slowed;") for text in busy), busy
    await until_async(lambda: busy[-1] == "", 3, "the words gone with their cause")


async def test_a_desk_restarted_mid_window_keeps_to_the_limit(desks, throttled):
    first = await desks("Office")
    for n in range(LIMIT - 2):
        await first.links.create(request(f"BEFORE-{n}"))
    await desks.close(first)
    again = await desks("Office again", data="Office")  # the same data folder, a new process
    made = await asyncio.gather(*(again.links.create(request(f"AFTER-{n}")) for n in range(8)))
    assert all(r.checkout_url for r in made)
    calls = kept_to_the_limit(throttled)
    assert len([c for c in calls if c["method"] == "POST"]) == LIMIT - 2 + 8


@pytest.mark.slow  # budget windows and a lease, about 25 s: ./dev test runs it, ./dev check leaves it out
async def test_the_pollers_lease_moving_keeps_to_the_limit(desks, pg_url, throttled):
    here = await desks("Counter 1", pg_url)
    there = await desks("Finance", pg_url)
    made = [await here.links.create(request(f"OPEN-{n}")) for n in range(24)]
    assert all(r.state == "pending" for r in made)
    holder = here if here.live.keeper.fence is not None else there
    other = there if holder is here else here
    deadline = time.monotonic() + 20
    while holder.scheduler.stats["checks"] < 24 and time.monotonic() < deadline:  # noqa: ASYNC110 (polls a state no event announces)
        await asyncio.sleep(0.2)  # the lease holder checks them all (more than a window's)
    assert holder.scheduler.stats["checks"] >= 24
    await desks.close(holder)  # the lease goes to the other desk, which watches them all
    deadline = time.monotonic() + 20
    while other.scheduler.stats["checks"] < 24 and time.monotonic() < deadline:  # noqa: ASYNC110 (polls a state no event announces)
        await asyncio.sleep(0.2)
    assert other.live.keeper.fence is not None and other.scheduler.stats["checks"] >= 24
    kept_to_the_limit(throttled)


async def test_a_new_counters_first_sale_goes_while_the_window_is_nearly_spent(desks, pg_url, throttled):
    """Before a desk's first call (and every few minutes after) the address is asked whether
    it is the service, and every call waits for that question: it goes as a person's call,
    not the background's. bench_budget.py saw a counter's first sale wait for the shop's
    window to end (the question held back with the background checks)."""
    office = await desks("Office", pg_url)
    with foreign(throttled) as other:  # another program leaves the shop 4 calls of 20
        for n in range(LIMIT - 4):
            assert other.get(f"/api/transaction/OTHER-{n}").status_code == 404
    await office.links.create(request("OFFICE-1"))  # the shop's book learns: 3 left
    till = await desks("Till", pg_url)
    started = time.monotonic()
    sale = await till.counter.sell("12", "GBP", "Tea")
    took = time.monotonic() - started
    assert sale.kind == OPEN and sale.record.checkout_url
    assert took < WINDOW / 2, f"the first sale took {took:.1f} s"
    kept_to_the_limit(throttled)
