"""The reconciler on its own: bounded, pauses on 429, never loses a record, reports."""

import asyncio
import time
from dataclasses import replace
from decimal import Decimal

from paydesk.desk.reconcile import STILL_OPEN, Reconciler
from paydesk.service.errors import RateLimitedError, ServiceUnavailableError
from tests.records import link_record


def record(ref, state="pending"):
    return link_record(ref, state, profile_id="p", amount=Decimal(1), email="a@b.c")


async def test_counts_pauses_and_reports():
    answers = {"R-0": "success", "R-1": "failed", "R-2": "pending", "R-3": "cancelled"}
    limited = {"R-5": 1}
    running, most, notes, calls = 0, 0, [], []

    async def check(rec):
        nonlocal running, most
        running += 1
        most = max(most, running)
        calls.append((rec.tx_ref, time.monotonic()))
        try:
            await asyncio.sleep(0.01)
            if rec.tx_ref == "R-4":
                raise ServiceUnavailableError("cannot be reached")
            if limited.get(rec.tx_ref):
                limited[rec.tx_ref] -= 1
                raise RateLimitedError("slow down", 0.3)
            return replace(rec, state=answers.get(rec.tx_ref, "success"))
        finally:
            running -= 1

    async def settle(rec):
        return replace(rec, state="pending")

    async def note(rec, message):
        notes.append((rec.tx_ref, message))

    seen = []
    records = [record(f"R-{i}") for i in range(12)] + [record("NEW", "creating")]
    progress = await Reconciler(check, settle, note, parallel=3, on_progress=lambda p: seen.append(p.done)).run(records)
    assert most <= 3 and progress.total == 13 and progress.done == 13
    assert progress.failed == 1 and notes == [("R-4", "cannot be reached")]
    assert progress.endings["paid"] == 8 and progress.endings[STILL_OPEN] == 2
    assert progress.report() == ("8 paid, 1 failed, 1 cancelled, 2 still open, 1 could not be checked")
    assert progress.changed_refs == {f"R-{i}" for i in range(12) if i != 2} | {"NEW"}
    limited_at = [t for ref, t in calls if ref == "R-5"]
    assert len(limited_at) == 2 and limited_at[1] - limited_at[0] >= 0.29  # paused, then again
    assert seen[-1] == 13


async def test_cancel_stops_at_once():
    async def slow(rec):
        await asyncio.sleep(30)

    task = asyncio.ensure_future(Reconciler(slow, slow, slow).run([record(f"S-{i}") for i in range(9)]))
    await asyncio.sleep(0.1)
    started = time.monotonic()
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    assert time.monotonic() - started < 0.5
