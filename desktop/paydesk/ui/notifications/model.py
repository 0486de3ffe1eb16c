"""Every notification of the inbox as a table, newest first, read from the ledger a page at
a time as the view scrolls (``inbox.page(query, before=…)``: never all rows), and kept live:
an entry kept or decided (``notificationChanged``) is put on top or repainted in place,
without reading the list again."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex

from ...desk.formats import time_in
from ...desk.inbox_words import VERDICT_WORDS
from ...desk.tasks import TaskSet
from ...desk.texts import mode_word, utc_time
from ...i18n import N_, _, staff
from ...ledger.inbox import Inbox, InboxEntry, InboxQuery
from ..fixed_text import fixed_font
from ..paging import PagedModel
from ..table import Column

HEADERS = (
    N_("Time"),
    N_("Reference"),
    N_("Event"),
    N_("Verdict"),
    N_("Profile / mode"),
    N_("Detail"),
)  # shown with _()
TIME, REFERENCE, EVENT, VERDICT, PROFILE, DETAIL = range(6)
PAGE = 100
HELD = 2 * PAGE  # rows held: past them the oldest are let go, read again when scrolled to


def matches(query: InboxQuery, entry: InboxEntry) -> bool:
    """Would ``query`` list ``entry``? (as the ledger decides it: literally, case ignored)"""
    if query.verdict is not None and entry.verdict != query.verdict:
        return False
    if query.profile_id is not None and entry.profile_id != query.profile_id:
        return False
    if query.mode is not None and entry.mode != query.mode:
        return False
    if query.since is not None and entry.received_at < query.since:
        return False
    text = query.text.strip().lower()
    return not text or any(text in (part or "").lower() for part in (entry.tx_ref, entry.event))


def verdict_words(entry: InboxEntry) -> str:
    words = VERDICT_WORDS.get(entry.verdict)
    return _(words) if words else entry.verdict


def event_words(entry: InboxEntry) -> str:
    return entry.event or (_("transaction") if entry.verified and entry.tx_ref else "")


class InboxModel(PagedModel):
    PAGE_TASK = "notifications-page"

    def __init__(self, inbox: Inbox, tasks: TaskSet, profile_name: Callable[[str], str]):
        super().__init__(tasks)
        self.inbox = inbox
        self.profile_name = profile_name  # a profile's id -> the name shown
        self.entries: list[InboxEntry] = []
        words = staff()
        self.columns = (
            # to the second: notifications come close together
            Column(
                _(HEADERS[TIME]),
                lambda e: time_in(e.received_at, words, seconds=True),
                tip=lambda e: utc_time(e.received_at),
            ),
            # read back and typed: each character itself
            Column(_(HEADERS[REFERENCE]), lambda e: e.tx_ref or "", font=fixed_font()),
            Column(_(HEADERS[EVENT]), event_words),
            Column(_(HEADERS[VERDICT]), verdict_words),
            Column(_(HEADERS[PROFILE]), self._profile_words),
            Column(_(HEADERS[DETAIL]), lambda e: e.detail, tip=lambda e: e.detail or None),
        )

    def listed(self) -> list:
        return self.entries

    async def load(self, query: InboxQuery) -> None:
        """Show the first page of ``query``."""
        entries = await self.inbox.page(query, limit=PAGE)
        self.beginResetModel()
        self.entries = entries
        self.first_page(query, entries, entries[-1].id if entries else None, len(entries) == PAGE)
        self.endResetModel()
        self.loaded.emit()

    async def read_page(self, query: InboxQuery, before: int) -> tuple[list, int | None, bool]:
        entries = await self.inbox.page(query, before=before, limit=PAGE)
        return entries, entries[-1].id if entries else before, len(entries) == PAGE

    def entry_at(self, row: int) -> InboxEntry | None:
        return self.entries[row] if 0 <= row < len(self.entries) else None

    def row_of(self, entry_id: int) -> int | None:
        return next((row for row, e in enumerate(self.entries) if e.id == entry_id), None)

    def changed(self, entry: InboxEntry) -> bool:
        """An entry was kept or decided: repaint its row, or put it on top when the query
        lists it and it is newer than every row shown. True when the list shows it."""
        row = self.row_of(entry.id)
        if row is not None:
            if self.query is not None and not matches(self.query, entry):
                self.beginRemoveRows(QModelIndex(), row, row)  # decided out of a verdict's list
                del self.entries[row]
                self.endRemoveRows()
                return False
            self.entries[row] = entry
            self.rows_changed(row)
            return True
        if self.query is None or not matches(self.query, entry):
            return False
        if self.entries and entry.id < self.entries[0].id:
            return False  # older than the top: it is read with its page, when scrolled to
        self.beginInsertRows(QModelIndex(), 0, 0)
        self.entries.insert(0, entry)
        self.endInsertRows()
        if len(self.entries) > HELD:
            self.keep_newest(HELD, self.entries[HELD - 1].id)
        return True

    def _profile_words(self, entry: InboxEntry) -> str:
        if entry.profile_id is None:
            return _("not known")
        name = self.profile_name(entry.profile_id)
        if not entry.mode:
            return _("{profile} · mode not known yet").format(profile=name)
        mode = mode_word(entry.mode)
        return _("{profile} · {mode}").format(profile=name, mode=mode)
