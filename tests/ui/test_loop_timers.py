"""The app's loop (ui/loop.py): a cancelled timer is stopped when it is cancelled. qasync kept
each one, with its handle, until it would have fired: the client's timeouts left tens of
thousands alive during a batch of bulk links (docs/BENCHMARKS.md)."""

import asyncio


def test_a_cancelled_timer_is_stopped_at_once_and_the_others_still_fire(loop):
    async def go():
        running = asyncio.get_running_loop()
        timers = running._timer._handles
        before = len(timers)
        fired = []
        for _ in range(1000):
            running.call_later(60, fired.append, "late").cancel()
        left = len(timers) - before
        running.call_later(0.02, fired.append, "soon")
        running.call_soon(fired.append, "now")
        cancelled = running.call_soon(fired.append, "cancelled")
        cancelled.cancel()
        try:
            await asyncio.wait_for(asyncio.sleep(5), 0.05)  # a timeout fires; its timer goes
        except TimeoutError:
            fired.append("timed out")
        await asyncio.sleep(0.05)
        return left, fired

    left, fired = loop.run(go())
    assert left == 0
    assert fired == ["now", "soon", "timed out"]


def test_a_callback_cancelled_after_it_ran_leaves_the_others_alone(loop):
    """Regression (found by the soak on Xvfb): asyncio cancels a handle after it has run
    (``asyncio.sleep`` always does, in its ``finally``; the scheduler cancels its wake-up
    timer at its next pass, long after it rang). Qt gives out a timer's id again once the
    7-bit serial in it has come round: the late cancel then stopped whichever timer had that
    id now, and its callback never ran (the scheduler's check of a sale never started, so
    the sale never showed PAID; any task's step could be lost)."""

    async def go():
        running = asyncio.get_running_loop()
        ran = running.create_future()
        old = running.call_soon(ran.set_result, None)
        await ran
        for n in range(5000):
            fired = running.create_future()
            new = running.call_soon(fired.set_result, n)
            if new._timer_id == old._timer_id:  # Qt's id has come round
                old.cancel()  # long after it ran
                try:
                    return await asyncio.wait_for(fired, 1.0)
                except TimeoutError:
                    return "lost"
            await fired
        return "the id never came round"

    assert loop.run(go(), timeout=60) not in ("lost", "the id never came round")
