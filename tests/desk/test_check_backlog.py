"""The scheduler against a slow service: however many never-paid links are watched, no more
checks are under way or waiting at once than its lanes let run (a soak watched the tasks
named ``check PAY-…`` grow from 5 to 81 while the service answered slowly), and every link
is still checked in its turn, the longest due first."""

import asyncio
import time
from decimal import Decimal

from paydesk.desk.links import LinksController
from paydesk.desk.pacing import Pacing
from paydesk.desk.scheduler import Scheduler
from paydesk.service.models import PaymentRequest

LINKS = 16
PARALLEL = 4  # the background lane's checks at once (nothing is on screen here)
LATENCY_MS = 800


def request(ref):
    return PaymentRequest(
        amount=Decimal(7),
        currency="GBP",
        email="kim@example.com",
        first_name="Kim",
        last_name="Lee",
        tx_ref=ref,
        title="Tea",
    )


def checks_under_way() -> int:
    """The scheduler's check tasks alive now (running or waiting for a place in a lane)."""
    return sum(1 for task in asyncio.all_tasks() if task.get_name().startswith("check "))


async def test_a_slow_service_piles_up_no_checks(session, add_profile, service):
    profile = await add_profile()
    controller = LinksController(session, session.ledger)
    made = [await controller.create(request(f"SLOW-{n}")) for n in range(LINKS)]  # never paid
    service.faults(latency_ms=LATENCY_MS)  # every answer of the service takes 0.8 s
    scheduler = Scheduler(
        controller.check,
        controller.settle,
        pacing=Pacing(first_every=0.05, slowest=0.2),
        parallel=PARALLEL,
        focus_parallel=2,
    )
    running = asyncio.ensure_future(scheduler.run())
    most = 0
    try:
        for record in made:
            scheduler.watch(record)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # samples what no event announces
            most = max(most, checks_under_way())
            records = [await session.ledger.get(profile.id, r.tx_ref) for r in made]
            if all(r.checked_at for r in records):
                break
            await asyncio.sleep(0.05)
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    unchecked = [r.tx_ref for r in records if not r.checked_at]
    assert unchecked == [], f"not checked in 30 s: {unchecked}"
    assert most <= PARALLEL, f"{most} checks under way or waiting at once for {PARALLEL} places"
    assert scheduler.stats["scheduler errors"] == 0
