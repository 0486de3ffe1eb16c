"""A counter's customer waits for PAID, and PAID comes by notification: its re-read is a
person's look-up, not a code on screen's (issue 30, section 5). bench_budget.py saw 3 of 43
re-reads of a notified sale wait for the window's end (32-41 s): the batch, the other
program on the address and the codes on screen had spent the window down to the reserves,
and the re-read had only the codes on screen's.

A desk built as the app builds it, its receiver over real HTTP, on the sandbox's real
throttle at the family's 60 calls, in a window long enough (30 s) that a re-read waiting for
its end is seen: the batch running, the other program and the counter's own look-ups spend
the window until only the reserves are left; the customer pays; the notification's re-read
goes at once."""

from __future__ import annotations

import asyncio
import time

import pytest

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.ledger.counter import OPEN
from paydesk.ledger.inbox import APPLIED, PENDING
from paydesk.receiver.serve import Receiver
from paydesk.service.budget_book import reserve
from paydesk.service.call_class import CallClass
from tests import profiles
from tests.desk.bulk.files import write_csv
from tests.desk.bulk.test_runner import HEADERS, line, load
from tests.helpers import MemoryKeyring
from tests.receiver.conftest import php_body, signed
from tests.throttle import foreign, most_in, refused, requests_of, window_of
from tests.waiting import until_async

pytestmark = pytest.mark.sockets  # calls counted per origin, against the sandbox's throttle

LIMIT, WINDOW = 60, 30
ON_SCREEN_KEPT = reserve(CallClass.ON_SCREEN, LIMIT)  # 3: what codes on screen leave


@pytest.fixture
def throttled(make_sandbox):
    return make_sandbox("throttled60", base_path="/pay", rate_limit=LIMIT, rate_limit_window=WINDOW)


@pytest.fixture
async def till(tmp_path, throttled):
    """A counter's desk on the throttled service with its receiver started (the receiver
    is the one on the merchant's webhook: it re-reads what is notified)."""
    paths = Paths(data=tmp_path / "till", sandbox=tmp_path / "till-sb").ensure()
    desk = build_desk(paths, KeyStore(MemoryKeyring()))
    desk.budgets.window = WINDOW
    await desk.open()
    await profiles.add_profile(desk.session, throttled, txref_prefix="SHOP", shop_email="shop@example.com")
    desk.start_background()
    receiver = Receiver(desk, "127.0.0.1", 0)
    await receiver.start()
    desk.receiver = receiver
    yield desk
    await receiver.close()
    desk.receiver = None
    await desk.close()


async def _created(desk, batch_id: int, rows: int) -> bool:
    return (await desk.batches.figures(batch_id)).created >= rows


def left_at_service(sb) -> int:
    return window_of(sb)["clients"]["127.0.0.1"]["remaining"]


async def test_a_notified_sales_reread_goes_while_the_window_is_spent_to_the_reserves(till, throttled, tmp_path):
    sale = await till.counter.sell("12", "GBP", "Tea")  # its code on screen: looked up
    assert sale.kind == OPEN and sale.record.checkout_url
    batch = await load(till, write_csv(tmp_path / "many.csv", [line(n) for n in range(1, 200)], headers=HEADERS))
    await till.bulk.start(batch)  # the batch spends the window, spread, down to its reserve
    await until_async(lambda: _created(till, batch.id, 5), 15, "the batch under way")
    with foreign(throttled) as other:  # another program on the address spends the rest
        n = 0
        while left_at_service(throttled) > ON_SCREEN_KEPT + 2:
            n += 1
            assert other.get(f"/api/transaction/OTHER-{n}").status_code == 404
    # the counter's look-ups of its code (and the batch, were it allowed) take the rest
    await until_async(
        lambda: left_at_service(throttled) <= ON_SCREEN_KEPT,
        10,
        "the window spent down to the codes on screen's reserve",
        every=0.1,
    )
    resets_at = window_of(throttled)["clients"]["127.0.0.1"]["resets_at"]
    assert resets_at - time.time() > 8, "the window ends too soon for the test to tell"

    record = sale.record
    await asyncio.to_thread(throttled.control, f"pay/{record.reference}", {"outcome": "success"})
    started = time.monotonic()
    answer = await signed(till.receiver.url, php_body(record.tx_ref), throttled.key("test", "secret"))
    assert answer.status_code == 200
    entry_id = answer.json()["id"]

    async def decided():
        entry = await till.inbox.get(entry_id)
        return entry if entry.verdict != PENDING else None

    entry = await until_async(decided, WINDOW + 10, "the notification re-read")
    took = time.monotonic() - started
    assert entry.verdict == APPLIED
    assert (await till.session.ledger.get(record.profile_id, record.tx_ref)).state == "success"
    assert took < 5, (
        f"the customer waited {took:.1f} s for PAID (the window ends in {resets_at - time.time() + took:.0f} s)"
    )
    calls = requests_of(throttled)
    assert not refused(calls), refused(calls)
    assert most_in(calls, WINDOW) <= LIMIT
