"""A batch's open links checked with the service again (the Batches window's "Check all
open"), Qt-free: the Reconciler over the batch's creating and created rows, a page at a
time, 429s waited out."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from ...ledger import CREATING, LinkRecord
from ...ledger.batch import CREATED, BatchBook
from ...service.call_class import CallClass, calls_as
from ..links import LinksController
from ..reconcile import Progress, Reconciler


async def check_open(
    links: LinksController,
    batches: BatchBook,
    batch_id: int,
    page: int,
    on_progress: Callable[[Progress], None] | None = None,
) -> Progress:
    """Check every open link of the batch with the service now (a few at a time, a page of
    ``page`` rows at a time); an error is noted on its link unless it is still creating."""

    async def note(record: LinkRecord, message: str) -> None:
        if record.state != CREATING:
            await links.ledger.note_error(record.profile_id, record.tx_ref, message)

    states = (CREATING, CREATED)
    figures = await batches.figures(batch_id)
    total = figures.creating + figures.created

    async def pages() -> AsyncIterator[list[LinkRecord]]:
        after = None
        while rows := await batches.rows(batch_id, after, page, states):
            yield [r.record for r in rows if r.record is not None]
            after = rows[-1].number

    with calls_as(CallClass.BACKGROUND):  # Check all open: after people's calls
        return await Reconciler(links.check, links.settle, note, on_progress=on_progress).run(pages(), total)
