"""The call budget in one process (``service/budget.py`` over ``budget_book.MemoryBook``),
against the sandbox's real throttle over HTTP: the limit learned from the headers and kept
whatever the window's phase, another program on the same address seen through
``Remaining``, a limit said only by refusing, a restart mid-window, a person's call before
the background, a 429 waited out by a create past its deadline, and a service without a
throttle that makes nobody wait.

Short windows (``rate_limit_window`` seconds on the sandbox, the same on the book) keep
these to seconds; the rules do not depend on the window's length."""

from __future__ import annotations

import asyncio
import time
from decimal import Decimal

import pytest

from paydesk.service import NotFoundError, PaymentRequest, ServiceClient
from paydesk.service.budget import Budget
from paydesk.service.budget_book import MemoryBook, reserve
from paydesk.service.call_class import CallClass, calls_as
from tests.throttle import (
    WithoutLimitHeaders,
    foreign,
    most_in,
    refused,
    requests_of,
    throttled_calls,
    window_of,
)

LOOKUP = "api/verify-payment"  # the family's route (the document's is no route there)


def request(ref: str) -> PaymentRequest:
    return PaymentRequest(
        amount=Decimal(1000),
        currency="USD",
        email="ada@example.com",
        first_name="Ada",
        last_name="Lovelace",
        tx_ref=ref,
        title="Coffee",
        description="Two flat whites",
    )


def client(sb, budget: Budget, **kw) -> ServiceClient:
    kw.setdefault("lookup_path", LOOKUP)
    return ServiceClient(sb.base_url, sb.key(), budget=budget, backoff=0.01, **kw)


async def look_up(c: ServiceClient, ref: str) -> None:
    try:
        await c.validate(ref)
    except NotFoundError:
        pass  # an answer all the same: counted by the throttle


async def many(c: ServiceClient, count: int, klass: CallClass = CallClass.PERSON_LOOKUP, prefix: str = "NOPE") -> None:
    with calls_as(klass):
        await asyncio.gather(*(look_up(c, f"{prefix}-{n}") for n in range(count)))


def test_the_reserves_leave_more_to_the_classes_above():
    for limit in (1, 2, 3, 5, 12, 60, 600):
        kept = [reserve(k, limit) for k in CallClass]
        assert kept == sorted(kept) and kept[0] == 0 and kept[-1] <= limit - 1
    assert [reserve(k, 60) for k in CallClass] == [0, 1, 3, 5, 15]


async def test_a_service_without_a_throttle_makes_nobody_wait(make_sandbox):
    sb = make_sandbox("plain", family=True)  # rate_limit 0: no headers at all
    budget = Budget(MemoryBook(window=2.0))
    async with client(sb, budget) as c:
        await look_up(c, "FIRST")  # the first answer tells: no throttle
        started = time.perf_counter()
        await many(c, 30, CallClass.BACKGROUND)
        elapsed = time.perf_counter() - started
    state = budget.state().book
    assert state.limit is None and state.left is None
    waits = [w for klass in budget.figures.waits.values() for w in klass]
    assert len(waits) == 31 and max(waits) == 0.0, waits
    assert budget.figures.calls[int(CallClass.BACKGROUND)] == 31
    assert elapsed < 5


async def test_the_limit_learned_from_the_headers_is_kept_in_every_window(make_sandbox):
    sb = make_sandbox("fam", family=True, rate_limit=6, rate_limit_window=2)
    budget = Budget(MemoryBook(window=2.0))
    async with client(sb, budget) as c:
        await many(c, 16)
    calls = requests_of(sb)
    assert len(calls) == 16 and not refused(calls)
    assert most_in(calls, 2.0) <= 6
    state = budget.state().book
    assert state.limit == 6 and state.refusals == 0
    assert budget.figures.most_in_window <= 6
    assert max(budget.figures.waits[int(CallClass.PERSON_LOOKUP)]) > 0.5  # it did wait


async def test_another_program_on_the_address_slows_it_down(make_sandbox):
    sb = make_sandbox("shared", family=True, rate_limit=6, rate_limit_window=3)
    with foreign(sb) as other:  # the same address, another program: 4 of the window's 6
        for n in range(4):
            assert other.get(f"/api/verify-payment/OTHER-{n}").status_code == 404
    resets_at = window_of(sb)["clients"]["127.0.0.1"]["resets_at"]
    budget = Budget(MemoryBook(window=3.0))
    async with client(sb, budget) as c:
        await many(c, 6)
    ours = requests_of(sb)
    assert not refused(ours) and not refused(requests_of(sb, merchant=1))
    before_reset = [call for call in ours if call["at"].timestamp() < resets_at]
    assert len(before_reset) <= 2, before_reset  # what the other program left, no more
    assert len(ours) == 6


@pytest.mark.slow  # budget windows, about 8 s: ./dev test runs it, ./dev check leaves it out
async def test_a_limit_said_only_by_refusing_is_learned(make_sandbox):
    sb = make_sandbox("proxy", family=True, rate_limit=4, rate_limit_window=2)
    budget = Budget(MemoryBook(window=2.0))
    async with client(sb, budget, transport=WithoutLimitHeaders()) as c:
        await many(c, 10)  # no headers: not throttled, until it refuses
        state = budget.state().book
        assert 1 <= state.limit <= 4 and state.refusals >= 1
        first = refused(requests_of(sb))
        assert first  # it had to refuse to be learned
        learned_at = max(call["at"] for call in first)
        await many(c, 8, prefix="AFTER")
    calls = requests_of(sb)
    later = [call for call in calls if call["at"] > learned_at]
    assert len(later) >= 8 and not refused(later)  # learned: no 429 since
    assert sum(1 for call in calls if call["status"] != 429) == 18


async def test_a_restart_mid_window_keeps_to_the_limit(make_sandbox):
    sb = make_sandbox("restart", family=True, rate_limit=6, rate_limit_window=3)
    first = Budget(MemoryBook(window=3.0))
    async with client(sb, first) as c:
        await many(c, 4, CallClass.PERSON_CREATE, prefix="BEFORE")
    again = Budget(MemoryBook(window=3.0))  # a new process: its log is empty
    async with client(sb, again) as c:
        await many(c, 8, CallClass.PERSON_CREATE, prefix="AFTER")
    calls = requests_of(sb)
    assert len(calls) == 12 and not refused(calls)
    assert most_in(calls, 3.0) <= 6


@pytest.mark.slow  # budget windows, about 12 s: ./dev test runs it, ./dev check leaves it out
async def test_a_persons_create_goes_before_the_background_waiting(make_sandbox):
    sb = make_sandbox("order", family=True, rate_limit=3, rate_limit_window=3)
    budget = Budget(MemoryBook(window=3.0))
    async with client(sb, budget) as c:
        await many(c, 3, CallClass.PERSON_CREATE, prefix="FILL")  # the window is full
        background = asyncio.gather(*(asyncio.create_task(look_up(c, f"BG-{n}")) for n in range(3)))
        await asyncio.sleep(0.2)
        assert budget.state().waiting == {int(CallClass.BACKGROUND)}
        with calls_as(CallClass.PERSON_CREATE):
            link = await c.create_payment(request("PERSON-1"))
        await background
    assert link.checkout_url
    after_fill = [call for call in requests_of(sb) if "FILL" not in call["path"]]
    assert after_fill[0]["method"] == "POST", after_fill  # the person's, first
    assert not refused(requests_of(sb))


@pytest.mark.slow  # budget windows, about 8 s: ./dev test runs it, ./dev check leaves it out
async def test_after_a_429_the_line_resumes_by_class(make_sandbox):
    sb = make_sandbox("pause", family=True, rate_limit=3, rate_limit_window=2)
    with foreign(sb) as other:
        for n in range(3):
            other.get(f"/api/verify-payment/OTHER-{n}")  # the whole window
    budget = Budget(MemoryBook(window=2.0))
    async with client(sb, budget) as c:
        refused_one = asyncio.create_task(look_up(c, "BG-0"))  # answered 429: a pause
        await asyncio.sleep(0.3)
        assert budget.state().book.paused_for > 0
        rest = [asyncio.create_task(look_up(c, f"BG-{n}")) for n in range(1, 3)]
        await asyncio.sleep(0.05)
        with calls_as(CallClass.PERSON_CREATE):
            link = await c.create_payment(request("AFTER-PAUSE"))
        await asyncio.gather(refused_one, *rest)
    calls = requests_of(sb)
    assert len(refused(calls)) == 1  # the one that taught the pause
    after = [call for call in calls if call["status"] != 429]
    assert after[0]["method"] == "POST", after  # the person's create first after the pause
    assert link.checkout_url


async def test_a_create_waits_out_a_429_longer_than_its_deadline(make_sandbox):
    sb = make_sandbox("deadline", family=True, rate_limit=2, rate_limit_window=3)
    with foreign(sb) as other:
        for n in range(2):
            other.get(f"/api/verify-payment/OTHER-{n}")
    budget = Budget(MemoryBook(window=3.0))
    async with client(sb, budget) as c:
        started = time.monotonic()
        with calls_as(CallClass.PERSON_CREATE):
            link = await c.create_payment(request("PATIENT-1"), deadline=1.0)
        waited = time.monotonic() - started
    assert link.checkout_url and waited > 1.0
    calls = requests_of(sb)
    assert [c["status"] for c in calls if c["method"] == "POST"] == [429, 201]
    assert len(throttled_calls(sb, merchants=(0, 1))) == 4


@pytest.mark.parametrize("count", [5])
async def test_the_figures_count_each_class(make_sandbox, count):
    sb = make_sandbox("figures", family=True, rate_limit=50, rate_limit_window=2)
    budget = Budget(MemoryBook(window=2.0))
    async with client(sb, budget) as c:
        await many(c, count, CallClass.ON_SCREEN)
        await many(c, 2, CallClass.BULK, prefix="B")
    f = budget.figures
    assert f.calls[int(CallClass.ON_SCREEN)] == count and f.calls[int(CallClass.BULK)] == 2
    assert len(f.waits[int(CallClass.ON_SCREEN)]) == count
    assert budget.state().book.used == {int(CallClass.ON_SCREEN): count, int(CallClass.BULK): 2}
    assert budget.state().book.left == 50 - count - 2


class Failing(MemoryBook):
    """A book whose next takes raise (no real book does: this stands for a bug in one)."""

    def __init__(self, fails: int, **kw):
        super().__init__(**kw)
        self.fails = fails

    async def take(self, klass, hand):
        if self.fails:
            self.fails -= 1
            raise RuntimeError("a bug in the book")
        return await super().take(klass, hand)


async def test_the_line_survives_a_book_that_fails(make_sandbox):
    sb = make_sandbox("failing", family=True)
    budget = Budget(Failing(3, window=2.0))
    async with client(sb, budget) as c:
        await asyncio.wait_for(many(c, 3), 10)  # asked again: every call goes in the end
    assert budget.figures.calls[int(CallClass.PERSON_LOOKUP)] == 3
    assert not budget.state().waiting
