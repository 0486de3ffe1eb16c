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
