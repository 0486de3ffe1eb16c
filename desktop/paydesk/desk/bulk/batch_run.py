"""What the runner (``runner.py``) keeps of one batch's run, and why a batch cannot run."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from ...i18n import NP_, _, pgettext
from ...ledger.batch import Batch, BatchFigures
from ..session import Session

# a mode as a sentence names it ("test", "live": the ledger's words, in the staff's language)
MODES = {"test": NP_("mode", "test"), "live": NP_("mode", "live")}


class BatchRefused(Exception):
    """The batch cannot run (all or nothing with a row with problems, another profile...):
    ``message`` says why, in the user's words. Nothing was sent."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass
class Run:
    batch: Batch
    before: BatchFigures = field(default_factory=BatchFigures)  # the batch when it started
    go: asyncio.Event = field(default_factory=asyncio.Event)  # set: running, clear: paused
    cancelled: bool = False
    why_paused: str = ""  # "" while running or paused by the user
    resume_at: float = 0.0  # monotonic: the service asked to wait until then
    sent: int = 0  # rows sent by this run
    refused: int = 0
    unreachable: int = 0  # rows in a row the service could not be reached for
    under_way: int = 0  # rows being sent now
    task: asyncio.Task | None = None
    last_said: float = 0.0
    saying: asyncio.TimerHandle | None = None
    report: str = ""
    actor: str | None = None  # the person who started (or last resumed) it: its rows' maker


def check_active(session: Session, batch: Batch) -> None:
    """BatchRefused unless the batch's profile and mode are the active ones (a create sends
    with the active profile's key)."""
    profile, mode = session.active()
    if (profile.id, mode) != (batch.profile_id, batch.mode):
        raise BatchRefused(
            _("This batch is for another profile or mode ({mode}): switch to it to create its links").format(
                mode=pgettext("mode", MODES.get(batch.mode, batch.mode))
            )
        )
