"""What an earlier batch of the same file did (Qt-free): the dry run of a corrected file
shows the rows it sent already, and takes its references as the file's own."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...config.profiles import Profile
from ...ledger.batch import SKIPPED, WAITING, Batch, BatchBook

PAGE = 500  # rows read at a time


@dataclass(frozen=True)
class Earlier:
    """``batch``: the earlier batch of the file (None: none); ``sent``: the file rows it sent
    already (a row waiting or skipped takes the corrected file's values); ``refs``: the
    references of all its rows."""

    batch: Batch | None = None
    sent: frozenset[int] = field(default_factory=frozenset)
    refs: frozenset[str] = field(default_factory=frozenset)


async def earlier_batch(book: BatchBook, profile: Profile, mode: str, file: str) -> Earlier:
    batch = await book.find(profile.id, mode, file)
    if batch is None:
        return Earlier()
    numbers: set[int] = set()
    refs: set[str] = set()
    after = None
    while True:
        page = await book.rows(batch.id, after=after, limit=PAGE)
        for row in page:
            if row.tx_ref:  # a skipped row holds none
                refs.add(row.tx_ref)
            if row.state not in (WAITING, SKIPPED):
                numbers.add(row.number)
        if len(page) < PAGE:
            return Earlier(batch, frozenset(numbers), frozenset(refs))
        after = page[-1].number
