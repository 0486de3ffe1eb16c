"""Every record of a profile and mode as a table, fetched from the ledger a block at a time.

The model knows how many rows the query has (so the scroll bar is true to size) and holds
only the blocks that were looked at, at most ``KEEP_BLOCKS`` of them. A block is found by
seeking: after the block before it, before the block after it, from the end for the last
one, or after an anchor (the ledger's place of every block's last row, read once per query
in the background) for a jump into the middle. Nothing is ever loaded whole, and nothing
runs on the GUI thread but the painting.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import QModelIndex, Qt, Signal

from ...desk.formats import amount_in, time_in
from ...desk.states import state_words
from ...desk.tasks import TaskSet
from ...desk.texts import ledger_words, utc_time
from ...i18n import N_, NP_, _, pgettext, staff
from ...ledger import Cursor, Ledger, LedgerError, LinkQuery, LinkRecord, Page
from ..fixed_text import fixed_font
from ..table import RIGHT, Column, HeadedModel, Index, bold_font

log = logging.getLogger("paydesk.transactions.model")

COLUMNS = (  # (header: shown through _(), sort key)
    (N_("Reference"), "reference"),
    (N_("Customer"), "customer"),
    (N_("E-mail"), "email"),
    (N_("Amount"), "amount"),
    (N_("Currency"), "currency"),
    (N_("State"), "state"),
    (NP_("link", "Created"), "created"),  # a link's: "Créé le" (a card's is "Créée le")
    (N_("Last checked"), "checked"),
)
STATE, AMOUNT, CREATED, CHECKED = 5, 3, 6, 7
BLOCK = 200
KEEP_BLOCKS = 20  # 4,000 rows at most in memory


def _columns() -> tuple[Column, ...]:
    headers = [pgettext("link", header) if key == "created" else _(header) for header, key in COLUMNS]
    words = staff()  # amounts and times as the staff's language writes them
    return (
        # the reference: read back and typed
        Column(headers[0], lambda r: r.tx_ref, font=fixed_font()),
        Column(headers[1], lambda r: r.customer),
        Column(headers[2], lambda r: r.email),
        Column(headers[AMOUNT], lambda r: amount_in(r.amount, words) if r.currency else "", align=RIGHT),
        Column(headers[4], lambda r: r.currency),
        Column(
            headers[STATE],
            lambda r: state_words(r).words,
            font=bold_font(),
            colour=lambda r: state_words(r).colour,
            tip=lambda r: ledger_words(r.error) or None,
        ),
        Column(headers[CREATED], lambda r: time_in(r.created_at, words), tip=lambda r: utc_time(r.created_at)),
        Column(
            headers[CHECKED],
            lambda r: time_in(r.checked_at, words) if r.checked_at else _("never"),
            tip=lambda r: utc_time(r.checked_at) if r.checked_at else None,
        ),
    )


class LedgerModel(HeadedModel):
    queryLoaded = Signal()  # a new query's first rows are in
    countKnown = Signal()  # ... and now its count (the scroll bar's true size)
    blockLoaded = Signal(int)  # a block's rows are in (its number)

    def __init__(self, ledger: Ledger, tasks: TaskSet):
        super().__init__()
        self.ledger = ledger
        self.tasks = tasks
        self.query: LinkQuery | None = None  # what the user asked for
        self._snapshot: LinkQuery | None = None  # the same, up to when it was read
        self.total = 0  # rows the query had when it was read (its first page, until counted)
        self.counted = True
        self._fresh: list[LinkRecord] = []  # made since, shown on top (newest first)
        self._blocks: OrderedDict[int, Page] = OrderedDict()
        self._loading: set[int] = set()
        self._anchors: asyncio.Future | None = None
        self._generation = 0
        self._shown = 0  # the generation of the query whose rows are shown
        self.columns = _columns()

    # -- the query ----------------------------------------------------------------------

    async def set_query(self, query: LinkQuery) -> None:
        """Show ``query``: its first block at once, its count when the ledger has it (a broad
        search takes longer to count than to page), the rest as it is looked at. Cancelling
        this (a newer keystroke) cancels its reads in the ledger."""
        self._generation += 1
        generation = self._generation
        snapshot = query
        if query.sort == "created":
            # what exists now: rows made later are shown on top as they come (``update``),
            # never again in a block read later (bounded only on the created sort, where the
            # bound runs along the same index)
            now = datetime.now(UTC) + timedelta(milliseconds=1)
            snapshot = replace(query, created_to=min(query.created_to or now, now))
        counting = asyncio.ensure_future(self.ledger.count(snapshot))
        try:
            try:
                first = await self.ledger.page(snapshot, limit=BLOCK)
            except LedgerError as error:  # a shared ledger out of reach: what is shown stays
                log.info("could not read the list: %s", error)
                return
            if generation != self._generation:
                return
            self.beginResetModel()
            self._drop_anchors()
            self.query, self._snapshot, self._fresh = query, snapshot, []
            self.total = len(first.records)
            self.counted = not first.more
            self._blocks = OrderedDict({0: first})
            self._loading = set()
            self._shown = generation
            self.endResetModel()
            self.queryLoaded.emit()
            try:
                total = await counting
            except LedgerError as error:
                log.info("could not count the list: %s", error)
                self.counted = True
                self.countKnown.emit()
                return
        finally:
            counting.cancel()
        if generation != self._generation or total <= self.total:
            self.counted = True
            return
        self.beginInsertRows(QModelIndex(), self.rowCount(), self.rowCount() + total - self.total - 1)
        self.total = total
        self.counted = True
        self.endInsertRows()
        self.countKnown.emit()

    async def refresh(self) -> None:
        if self.query is not None:
            await self.set_query(self.query)

    def clear(self) -> None:
        self._generation += 1
        self.beginResetModel()
        self._drop_anchors()
        self.query, self.total, self._fresh = None, 0, []
        self._blocks = OrderedDict()
        self.endResetModel()

    def _drop_anchors(self) -> None:
        """The previous query's anchors are of no use: stop reading them (frees a reader)."""
        if self._anchors is not None and not self._anchors.done():
            self._anchors.cancel()
        self._anchors = None

    # -- blocks -------------------------------------------------------------------------

    def _record(self, row: int) -> LinkRecord | None:
        if row < len(self._fresh):
            return self._fresh[row]
        block, offset = divmod(row - len(self._fresh), BLOCK)
        page = self._blocks.get(block)
        if page is None:
            self._want(block)
            return None
        self._blocks.move_to_end(block)
        return page.records[offset] if offset < len(page.records) else None

    def _want(self, block: int) -> None:
        if block in self._loading or self.query is None:
            return
        self._loading.add(block)
        self.tasks.spawn(self._load(block, self._generation), f"block {block}")

    async def _seek_from(self, snapshot: LinkQuery, block: int) -> tuple[Cursor | None, Cursor | None]:
        """(after, before): where to seek block ``block`` from."""
        if block - 1 in self._blocks and self._blocks[block - 1].end:
            return self._blocks[block - 1].end, None
        if block + 1 in self._blocks and self._blocks[block + 1].start:
            return None, self._blocks[block + 1].start
        if (
            self._anchors is not None
            and self._anchors.done()
            and not self._anchors.cancelled()
            and self._anchors.exception() is not None
        ):  # not read (a shared ledger out
            self._anchors = None  # of reach): asked again, never kept as the answer
        if self._anchors is None:  # read once per query, shared by every block that needs it
            self._anchors = asyncio.ensure_future(self.ledger.anchors(snapshot, BLOCK))
            self._anchors.add_done_callback(lambda f: f.cancelled() or f.exception())
        anchors = await asyncio.shield(self._anchors)
        return (anchors[block - 1] if 0 < block <= len(anchors) else None), None

    async def _load(self, block: int, generation: int) -> None:
        snapshot = self._snapshot
        try:
            if snapshot is None:  # the list was emptied meanwhile
                return
            last = (self.total - 1) // BLOCK
            if block == last and block > 0:
                page = await self.ledger.last_page(snapshot, limit=self.total - block * BLOCK)
            else:
                after, before = await self._seek_from(snapshot, block)
                page = await self.ledger.page(snapshot, after=after, before=before, limit=BLOCK)
        except LedgerError as error:  # a shared ledger out of reach: the rows stay unread,
            log.info("could not read block %s of the list: %s", block, error)  # asked again
            return  # when next looked at
        finally:
            if generation == self._generation:
                self._loading.discard(block)
        if generation != self._generation:
            return
        self._blocks[block] = page
        while len(self._blocks) > KEEP_BLOCKS:
            self._blocks.popitem(last=False)
        first = len(self._fresh) + block * BLOCK
        last_row = min(self.rowCount(), first + BLOCK) - 1
        if last_row >= first:
            self.rows_changed(first, last_row)
        self.blockLoaded.emit(block)

    # -- what the view asks ----------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self.total + len(self._fresh)

    def record_at(self, row: int) -> LinkRecord | None:
        return self._record(row) if 0 <= row < self.rowCount() else None

    def row_at(self, row: int) -> LinkRecord | None:
        return self._record(row)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if self.query is None:
            return
        query = self.query.sorted_by(COLUMNS[column][1], order == Qt.SortOrder.DescendingOrder)
        self.tasks.replace("query", self.set_query(query))

    # -- live updates ---------------------------------------------------------------------

    def shown(self) -> list[LinkRecord]:
        """The records held (on top, and in the blocks that were looked at)."""
        return self._fresh + [r for page in self._blocks.values() for r in page.records]

    def row_of(self, key: tuple[str, str]) -> int | None:
        for row, record in enumerate(self._fresh):
            if record.key == key:
                return row
        for block, page in self._blocks.items():
            for offset, record in enumerate(page.records):
                if record.key == key:
                    return len(self._fresh) + block * BLOCK + offset
        return None

    def update(self, record: LinkRecord) -> bool:
        """A record changed (the scheduler learned its state): repaint its row in place,
        keeping the selection and the scroll position. A new one of this profile and mode
        goes on top when the list shows everything newest first. False when it is a word
        older than its row's (heard late: a shared ledger's reads), which is dropped."""
        if self.query is None or (record.profile_id, record.mode) != (self.query.profile_id, self.query.mode):
            return True
        row = self.row_of(record.key)
        if row is not None:
            if row < len(self._fresh):
                records, at = self._fresh, row
            else:
                block, at = divmod(row - len(self._fresh), BLOCK)
                records = self._blocks[block].records
            if record.older_than(records[at]):
                return False
            records[at] = record
            self.rows_changed(row)
        elif self._newest_first_unfiltered(self.query):
            self.beginInsertRows(QModelIndex(), 0, 0)
            self._fresh.insert(0, record)
            self.endInsertRows()
            if len(self._fresh) >= BLOCK and self._shown == self._generation:
                # a long day at the counter: read the list again rather than hold every new
                # row in memory (unless a newer query is on its way, which does the same)
                self.tasks.replace("query", self.set_query(self.query))
        return True

    @staticmethod
    def _newest_first_unfiltered(q: LinkQuery) -> bool:
        return (
            q.sort == "created"
            and q.descending
            and not q.text
            and not q.states
            and not q.currencies
            and q.created_from is None
            and q.created_to is None
            and q.origin is None
            and not q.tx_refs
            and q.voided is None
        )
