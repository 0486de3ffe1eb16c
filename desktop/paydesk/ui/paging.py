"""A table read from the ledger a page at a time, as the view scrolls (Qt's fetchMore): the
wallet's cards, the audit log's entries, a counter's sales of today, the notifications. A page
that cannot be read (a shared ledger out of reach) is left unread, asked for again when the
view next asks for more."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Signal

from ..ledger import LedgerError
from .table import HeadedModel, Index

if TYPE_CHECKING:
    from ..desk.tasks import TaskSet

log = logging.getLogger("paydesk.ui.paging")


class PagedModel(HeadedModel):
    """Rows newest first, in pages that each end where the next one starts (``end``).

    A subclass reads one page in ``read_page`` and lists its rows in ``listed()``; it shows a
    first page with ``first_page`` (inside its own model reset). The next page is read in a
    task of the model's TaskSet when the view asks for more; a page read for a list that was
    reloaded meanwhile is dropped."""

    loaded = Signal()  # a page (the first, or a further one) is in
    PAGE_TASK = "next-page"  # the name of the task that reads the next page (not shown)

    def __init__(self, tasks: TaskSet) -> None:
        super().__init__()
        self.tasks = tasks
        self.query: Any = None
        self._end: Any = None  # where the next page starts
        self._more = False
        self._fetching = False

    async def read_page(self, query: Any, after: Any) -> tuple[list, Any, bool]:
        """The page of ``query`` after ``after`` (None: the first): its rows, where it ends,
        and whether more follow."""
        raise NotImplementedError

    def first_page(self, query: Any, rows: list, end: Any, more: bool) -> None:
        """What is shown is now this first page of ``query`` (call between begin and end of
        a model reset, after putting ``rows`` where ``listed()`` reads)."""
        self.query, self._end, self._more, self._fetching = query, end, more, False

    def keep_newest(self, most: int, end: Any) -> None:
        """After a row put on top: the rows past the first ``most`` are let go, ``end`` being
        where the next page then starts (the last kept row's place); they are read again,
        a page at a time, when the view scrolls to them. A list that grows on top all day
        (a counter's sales) stays the same size in memory."""
        listed = self.listed()
        if len(listed) <= most:
            return
        self.beginRemoveRows(QModelIndex(), most, len(listed) - 1)
        del listed[most:]
        self._end, self._more = end, True
        self.endRemoveRows()

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:
        return not parent.isValid() and self._more and not self._fetching

    def fetchMore(self, parent: Index = QModelIndex()) -> None:
        if self.canFetchMore(parent) and self.listed():
            self._fetching = True
            self.tasks.spawn(self._next_page(self.query, self._end), self.PAGE_TASK)

    async def _next_page(self, query: Any, after: Any) -> None:
        try:
            rows, end, more = await self.read_page(query, after)
        except LedgerError as error:  # the rows read so far stay; asked again on the next scroll
            log.info("could not read the next page: %s", error)
            return
        finally:
            self._fetching = False
        if query != self.query or after != self._end:
            return  # the list was reloaded meanwhile
        listed = self.listed()
        first = len(listed)
        if not rows:  # an empty page: nothing to insert (Qt refuses an empty range)
            self._end, self._more = end, more
            self.loaded.emit()
            return
        self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
        listed += rows
        self._end, self._more = end, more
        self.endInsertRows()
        self.loaded.emit()
