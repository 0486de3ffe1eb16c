"""The scheduler reads paid records again for refunds and reversals (issue 15 §3.6): found a
page at a time in a real ledger, at a slow pace, and a failing sweep never ends it. The
check stands in for the service (a scripted answer), as in test_scheduler.py: the pace and
the failures are what is tested here; tests/ui/transactions/test_refunds.py runs it
against the sandbox."""

import asyncio
from decimal import Decimal

from paydesk.desk.pacing import PaidPacing
from paydesk.desk.scheduler import Scheduler
from paydesk.service.errors import RateLimitedError
from paydesk.service.models import PaymentLink, PaymentRequest, Transaction, TransactionState


def said(ref, word):
    return Transaction(
        tx_ref=ref, status=TransactionState.read(word), status_raw=word, amount=Decimal(5), currency="GBP"
    )


async def paid(ledger, ref):
    await ledger.begin_link(
        "p1",
        "test",
        PaymentRequest(
            amount=Decimal(5), currency="GBP", email="a@example.com", first_name="A", last_name="B", tx_ref=ref
        ),
    )
    await ledger.complete_link("p1", PaymentLink(ref, f"http://h/payment/PDK-{ref}"))
    await ledger.record_lookup("p1", "test", said(ref, "success"))


async def test_paid_records_are_read_again_page_by_page_and_failures_do_not_stop_it(ledger):
    for i in range(5):
        await paid(ledger, f"P-{i}")
    checked: list[str] = []
    limited = {"P-2": 1}

    async def check(record):
        checked.append(record.tx_ref)
        if limited.get(record.tx_ref):
            limited[record.tx_ref] -= 1
            raise RateLimitedError("slow down", 0.05)
        word = "refunded" if record.tx_ref == "P-4" else "success"
        after, _ = await ledger.record_lookup("p1", "test", said(record.tx_ref, word))
        return after

    failures = {"left": 1}

    async def pages(*args, **kw):  # the ledger, failing once (a bug, a closed file)
        if failures["left"]:
            failures["left"] -= 1
            raise RuntimeError("the ledger hiccuped")
        return await ledger.paid_since(*args, **kw)

    scheduler = Scheduler(check, check, paid=pages, paid_pacing=PaidPacing(sweep=0.05, fresh_every=0.2, page=2))
    task = asyncio.ensure_future(scheduler.run())
    try:
        for _ in range(200):
            if {f"P-{i}" for i in range(5)} <= set(checked) and not limited["P-2"] and checked.count("P-2") >= 2:
                break
            await asyncio.sleep(0.02)
        assert {f"P-{i}" for i in range(5)} <= set(checked)  # every page, after the failure
        assert scheduler.stats["scheduler errors"] == 1 and scheduler.stats["RateLimitedError"] == 1
        for _ in range(200):  # P-4 is listed as checked before its answer is written
            if (await ledger.get("p1", "P-4")).state == "refunded":
                break
            await asyncio.sleep(0.02)
        assert (await ledger.get("p1", "P-4")).state == "refunded"
        for _ in range(200):  # read again once due, the ones still paid
            if all(checked.count(f"P-{i}") >= 2 for i in (0, 1, 3)):
                break
            await asyncio.sleep(0.02)
        assert all(checked.count(f"P-{i}") >= 2 for i in (0, 1, 3))
        assert checked.count("P-4") == 1  # refunded: final, never read again
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_a_sweep_stops_asking_a_service_that_cannot_be_reached(ledger):
    """Offline: one failed read, not one per paid record (each could wait for a timeout)."""
    from paydesk.service.errors import ServiceUnavailableError

    for i in range(6):
        await paid(ledger, f"O-{i}")
    asked: list[str] = []

    async def offline(record):
        asked.append(record.tx_ref)
        raise ServiceUnavailableError("The service cannot be reached")

    scheduler = Scheduler(offline, offline, paid=ledger.paid_since, paid_pacing=PaidPacing(fresh_every=0.0, page=2))
    assert await scheduler.sweep_paid() == 0
    assert len(asked) == 1 and scheduler.stats["ServiceUnavailableError"] == 1
