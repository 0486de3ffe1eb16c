"""The scheduler on its own, driving failures the sandbox cannot produce: a check that hangs,
a key that vanished, the ledger busy, a client closed mid-call, a bug in a check."""

import asyncio
import time

import pytest

from paydesk.desk.pacing import Pacing
from paydesk.desk.scheduler import Scheduler, StopWatching
from paydesk.service.errors import AnswerLostError, RateLimitedError, ServiceError, ServiceUnavailableError
from tests.records import link_record
from tests.waiting import until_async


def record(ref, state="pending", profile="p1", mode="test"):
    url = None if state == "creating" else f"http://x/payment/{ref}"
    return link_record(ref, state, profile_id=profile, mode=mode, checkout_url=url)


class Service:
    """Stands in for the controller: each reference's next answers, scripted."""

    def __init__(self):
        self.script: dict[str, list] = {}
        self.calls: list[tuple[str, str, float]] = []

    async def _answer(self, kind, rec):
        self.calls.append((kind, rec.tx_ref, time.monotonic()))
        steps = self.script.get(rec.tx_ref) or [rec.state]
        step = steps.pop(0) if len(steps) > 1 else steps[0]
        if isinstance(step, (int, float)) and not isinstance(step, bool):
            await asyncio.sleep(step)  # a slow answer
            return rec
        if isinstance(step, BaseException):
            raise step
        if callable(step):
            raise step()
        from dataclasses import replace

        return replace(rec, state=step)

    async def check(self, rec):
        return await self._answer("check", rec)

    async def settle(self, rec):
        return await self._answer("settle", rec)

    def count(self, ref, kind=None):
        return sum(1 for k, r, _ in self.calls if r == ref and (kind is None or k == kind))


@pytest.fixture
async def running():
    started = []

    def start(service, **options):
        options = {
            "first_every": 0.05,
            "settle_first": 0.05,
            "focused_every": 0.05,
            "slowest": 0.8,
            "focused_slowest": 0.2,
            "retry_first": 0.05,
            **options,
        }
        pace = {k: options.pop(k) for k in list(options) if k in Pacing.__dataclass_fields__}
        scheduler = Scheduler(service.check, service.settle, pacing=Pacing(**pace), **options)
        started.append(asyncio.create_task(scheduler.run()))
        return scheduler

    yield start
    for task in started:
        task.cancel()
    await asyncio.gather(*started, return_exceptions=True)


async def test_a_slow_check_holds_up_nothing_else(running):
    """Regression: checks ran one batch at a time; one 5 s check delayed every other."""
    service = Service()
    service.script["SLOW"] = [30.0]
    scheduler = running(service, parallel=2)
    scheduler.watch(record("SLOW"))
    for i in range(3):
        scheduler.watch(record(f"FAST-{i}"))
    await until_async(
        lambda: all(service.count(f"FAST-{i}") >= 3 for i in range(3)), 3, "the fast ones to be checked again and again"
    )
    assert service.count("SLOW") == 1  # still on its first check


async def test_check_now_is_immediate_even_when_every_lane_is_busy(running):
    service = Service()
    scheduler = running(service, parallel=2, first_every=30, slowest=60)
    for i in range(4):
        service.script[f"HANG-{i}"] = [60.0]
        scheduler.watch(record(f"HANG-{i}"))
        scheduler.check_now(record(f"HANG-{i}"))
    await until_async(lambda: len(service.calls) == 2, 2, "the background lane to fill")
    shown = record("ON-SCREEN")
    asked = time.monotonic()
    scheduler.focus("panel", shown)
    await until_async(lambda: service.count("ON-SCREEN") == 1, 1, "the link on screen to be checked")
    assert service.calls[-1][2] - asked < 0.3


@pytest.mark.parametrize(
    "failure",
    [
        ServiceUnavailableError("The service cannot be reached"),
        AnswerLostError("The connection to the service was cut"),
        ServiceError("No test secret key for Shop: add it in the profile editor"),  # NoKeyError's kind
        RuntimeError("database is locked"),  # an error no one expected (LedgerBusy was one)
        ValueError("a bug"),
    ],
    ids=["unreachable", "answer lost", "no key", "ledger busy", "a bug"],
)
async def test_no_error_ends_it(running, failure, caplog):
    """Regression: NoKeyError, LedgerBusy or a client closed mid-retry ended the loop, and no
    link was checked for the rest of the session."""
    service = Service()
    service.script["R-1"] = [failure, failure, failure, "success"]
    scheduler = running(service)
    scheduler.watch(record("R-1"))
    scheduler.watch(record("R-2"))
    await until_async(lambda: service.count("R-1") == 4, 5, "the check to succeed after failures")
    assert "R-1" not in [r.tx_ref for r in scheduler.watched()]  # paid: no longer watched
    assert scheduler.stats["failures"] == 3 and scheduler.stats[type(failure).__name__] == 3
    gaps = [
        b[2] - a[2]
        for a, b in zip([c for c in service.calls if c[1] == "R-1"], [c for c in service.calls if c[1] == "R-1"][1:])
    ]
    assert gaps[1] > gaps[0] * 1.3, gaps  # backed off
    count = service.count("R-2")
    await until_async(lambda: service.count("R-2") > count, 2, "the others to go on being checked")


async def test_a_client_closed_mid_call_is_retried(running):
    service = Service()
    closed = asyncio.Event()

    async def check(rec):
        if not closed.is_set():
            closed.set()
            await asyncio.sleep(0.05)
            raise ServiceUnavailableError("the client was closed")  # as a closed client says
        return await service.check(rec)

    scheduler = Scheduler(check, service.settle, pacing=Pacing(first_every=0.05, slowest=0.3, retry_first=0.05))
    task = asyncio.create_task(scheduler.run())
    service.script["R"] = ["success"]
    scheduler.watch(record("R"))
    await until_async(lambda: service.count("R") == 1, 3, "a retry after the closed client")
    await until_async(lambda: scheduler.watched() == [], 1, "the final state to end the watch")
    task.cancel()


async def test_a_rate_limit_pauses_only_its_profile_and_mode(running):
    service = Service()
    service.script["LIMITED"] = [RateLimitedError("Too many requests", 0.5), "pending"]
    scheduler = running(service)
    scheduler.watch(record("LIMITED"))
    scheduler.watch(record("SAME-GROUP"))
    scheduler.watch(record("OTHER", mode="live"))
    await until_async(lambda: scheduler.stats["RateLimitedError"] == 1, 2, "the 429")
    paused_at = time.monotonic()
    await asyncio.sleep(0.3)
    same = [t for k, r, t in service.calls if r == "SAME-GROUP" and t > paused_at + 0.01]
    other = [t for k, r, t in service.calls if r == "OTHER" and t > paused_at + 0.01]
    assert not same and other


async def test_an_enormous_retry_after_is_capped(running):
    """A 429 asking for a day never silences the checks for a day."""
    service = Service()
    service.script["R"] = [RateLimitedError("Too many requests", 99999), "success"]
    scheduler = running(service, longest_pause=0.3)
    scheduler.watch(record("R"))
    await until_async(lambda: service.count("R") == 2, 2, "the check after a capped pause")


async def test_a_lost_create_is_settled_in_the_background(running):
    service = Service()
    service.script["NEW"] = [AnswerLostError("cut"), AnswerLostError("cut"), "pending", "success"]
    scheduler = running(service)
    scheduler.watch(record("NEW", state="creating"))
    await until_async(lambda: service.count("NEW", "settle") == 3, 3, "settling with backoff")
    await until_async(lambda: service.count("NEW", "check") >= 1, 2, "then checking like any link")
    assert scheduler.stats["settles"] == 3


async def test_a_deleted_profile_is_never_checked_again(running):
    service = Service()
    service.script["GONE"] = [StopWatching("its profile was deleted")]
    scheduler = running(service)
    scheduler.watch(record("GONE", profile="p-deleted"))
    scheduler.watch(record("KEPT", profile="p2"))
    await until_async(lambda: service.count("GONE") == 1, 2, "one attempt")
    await asyncio.sleep(0.3)
    assert service.count("GONE") == 1 and [r.tx_ref for r in scheduler.watched()] == ["KEPT"]
    scheduler.forget("p2")
    assert scheduler.watched() == []


async def test_final_states_end_the_watch(running):
    service = Service()
    service.script["PAID"] = ["pending", "success"]
    service.script["FAILED"] = ["failed"]
    scheduler = running(service)
    scheduler.watch(record("PAID"))
    scheduler.watch(record("FAILED"))
    scheduler.watch(record("DONE", state="success"))  # already final: not watched
    await until_async(lambda: scheduler.watched() == [], 3, "both to settle")
    assert service.count("DONE") == 0 and service.count("FAILED") == 1


async def test_a_create_under_way_here_is_not_settled_behind_its_back(running):
    """Regression: a "creating" record was settled (sent again) while its own create was
    still waiting for the service's answer."""
    service = Service()
    service.script["NEW"] = ["pending"]
    under_way = {("p1", "NEW")}
    scheduler = running(service, busy=lambda r: r.key in under_way)
    scheduler.watch(record("NEW", state="creating"))
    await asyncio.sleep(0.4)
    assert service.count("NEW") == 0
    under_way.clear()  # the create ended without an answer: now it is settled
    await until_async(lambda: service.count("NEW", "settle") == 1, 2, "the settle")


async def test_check_now_moves_a_waiting_check_to_the_on_screen_lane(running):
    """Regression: a record already waiting in the background lane stayed behind slow
    checks when it came on screen."""
    service = Service()
    scheduler = running(service, parallel=1, first_every=30, slowest=60)
    service.script["HANG"] = [60.0]
    scheduler.watch(record("HANG"))
    scheduler.check_now(record("HANG"))
    await until_async(lambda: service.count("HANG") == 1, 1, "the lane taken")
    scheduler.watch(record("QUEUED"))
    scheduler.check_now(record("QUEUED"))  # due now, waiting behind HANG
    await asyncio.sleep(0.2)
    assert service.count("QUEUED") == 0
    scheduler.focus("panel", record("QUEUED"))
    await until_async(lambda: service.count("QUEUED") == 1, 1, "the on-screen check")


async def test_a_link_long_on_screen_is_checked_less_often(running):
    service = Service()
    scheduler = running(service, focused_every=0.05, focused_slowest=0.5, focused_for=0.3, first_every=0.05)
    scheduler.focus("counter", record("SHOWN"))
    await asyncio.sleep(0.3)
    early = service.count("SHOWN")
    await asyncio.sleep(1.0)
    later = service.count("SHOWN") - early
    assert early >= 3 and later <= 3  # every 0.05 s at first, then every 0.5 s


async def test_later_checks_a_batch_link_seldom_unless_on_screen(running):
    """A link of a batch of bulk links (``later``): first checked after its time and no more
    often after, while the others go on at their pace; shown on screen, it is checked at
    once. A create is settled at the usual pace."""
    service = Service()
    scheduler = running(service)
    for ref in ("BATCH-1", "OTHER"):
        scheduler.watch(record(ref))
    scheduler.watch(record("MAKING", state="creating"))
    scheduler.later(("p1", "BATCH-1"), 0.6)
    scheduler.later(("p1", "MAKING"), 0.6)
    scheduler.later(("p1", "NOT-WATCHED"), 0.6)  # nothing to slow: nothing happens
    await until_async(lambda: service.count("OTHER") >= 3, 3, "the other link checked often")
    assert service.count("BATCH-1") == 0 and service.count("MAKING", "settle") >= 1
    await until_async(lambda: service.count("BATCH-1") >= 2, 5, "the batch's link checked")
    first, second = [t for _, ref, t in service.calls if ref == "BATCH-1"][:2]
    assert second - first >= 0.5
    scheduler.focus("panel", record("BATCH-1"))
    await until_async(lambda: service.count("BATCH-1") >= 3, 1, "the link on screen checked")


async def test_a_record_watched_while_the_loop_sleeps_long_is_checked_when_due(running):
    """Watching no longer wakes the loop for a pass over every record: a timer wakes it when
    the new record is due (here: a create to settle, watched while the loop sleeps for a
    link due in 30 s)."""
    service = Service()
    scheduler = running(service, first_every=30, slowest=60)
    scheduler.watch(record("LATER"))
    await asyncio.sleep(0.1)  # the loop asleep until LATER is due
    watched = time.monotonic()
    scheduler.watch(record("MAKING", state="creating"))
    await until_async(lambda: service.count("MAKING", "settle") == 1, 2, "the create settled")
    assert service.calls[-1][2] - watched < 0.5
    assert service.count("LATER") == 0


async def test_thousands_watched_cost_few_passes_over_the_records(running):
    """A batch of bulk links: thousands of records watched one after another (each create)
    do not each wake the loop for a pass over all the others."""
    service = Service()
    scheduler = running(service, first_every=30, slowest=60)
    passes = []
    dispatch = scheduler._dispatch

    def counted():
        passes.append(len(scheduler._entries))
        dispatch()

    scheduler._dispatch = counted
    await asyncio.sleep(0.05)
    for i in range(2000):
        scheduler.watch(record(f"ROW-{i}"))
        await asyncio.sleep(0)  # the loop runs between creates
    await asyncio.sleep(0.3)
    assert len(passes) <= 20, len(passes)
