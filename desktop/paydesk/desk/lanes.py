"""The scheduler's two lanes of checks (``scheduler.py``; Qt-free): the background's and the
records on screen's, each with how many checks may run at once. A check is started only
when its lane has a place for it, so however many records come due while the service is
slow, no more checks are under way or waiting than run (a soak watching many never-paid
links against a slow service saw 81 tasks waiting); the others stay due, and the longest
due go first once a place is free. The paid sweep (``paid_rereads.py``) takes its place in
the background lane through the same gate."""

from __future__ import annotations

import asyncio


class Lanes:
    """``Lanes(parallel, focus_parallel)``: lane False is the background's, True the
    records on screen's."""

    def __init__(self, parallel: int, focus_parallel: int):
        self._places = {False: parallel, True: focus_parallel}
        # the gate a check passes to run (the paid sweep passes the background's too)
        self.gates = {False: asyncio.Semaphore(parallel), True: asyncio.Semaphore(focus_parallel)}
        self._started = {False: 0, True: 0}  # checks started and not ended, waiting or not

    def room(self, focused: bool) -> int:
        """How many more checks may start in this lane now."""
        return max(0, self._places[focused] - self._started[focused])

    def full(self) -> set[bool]:
        """The lanes with no place for another check."""
        return {lane for lane in (False, True) if not self.room(lane)}

    def started(self, focused: bool) -> None:
        self._started[focused] += 1

    def ended(self, focused: bool) -> bool:
        """A check of this lane ended; whether its lane was full (a record may wait for it)."""
        was_full = not self.room(focused)
        self._started[focused] -= 1
        return was_full
