"""What the scheduler (``scheduler.py``) keeps of each record it watches (Qt-free)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from ..ledger import CREATING, LinkRecord

Key = tuple[str, str]  # (profile_id, tx_ref)
Group = tuple[str, str]  # (profile_id, mode)


@dataclass
class Entry:
    record: LinkRecord
    due: float
    interval: float
    failures: int = 0
    running: bool = False
    again: bool = False  # asked for while running: go again as soon as it ends
    task: asyncio.Task | None = None  # the check under way
    waiting: bool = False  # ...still waiting for a place in its lane
    moved: bool = False  # ...cancelled to go to the on-screen lane at once
    focused_since: float | None = None  # monotonic: when a view began to show it
    least: float = 0.0  # s: checked no more often than this (later()), unless on screen
    asked: bool = False  # its next check was asked for now (a record opened): a person's

    @property
    def settling(self) -> bool:
        return self.record.state == CREATING

    @property
    def group(self) -> Group:
        return (self.record.profile_id, self.record.mode)
