"""The Batches window's two lists, read from the batch book a page at a time (never every row):

- ``BatchesModel``: a profile and mode's batches, newest first, each with its figures
  (created, refused, paid so far), counted again when the batch changes.
- ``BatchRowsModel``: one batch's rows by file row number, with the state derived from each
  row's link, the references and the checkout URL (in fixed text: they are copied; drawn on
  one line by ``fixed_text.OneLineDelegate``, the whole text in the cell's tooltip)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex

from ...desk.formats import number_in
from ...desk.tasks import TaskSet
from ...desk.texts import ledger_words, local_time, utc_time
from ...i18n import N_, NP_, _, pgettext, staff
from ...ledger.batch import Batch, BatchBook, BatchFigures, BatchRow
from ..fixed_text import fixed_font
from ..paging import PagedModel
from ..table import Column

PAGE = 100
NAME, POLICY = 0, 9  # the batches list's columns of the batch's name and its policy
ROWS_PAGE = 200
LOUD = "#b3261e"
POLICY_WORDS = {"skip": N_("valid rows, rest skipped"), "all": N_("all or nothing")}
# a row's state word ("Created": the row's link is), apart from a count's heading ("Created":
# how many were, the "batch figures" context): French says them differently
STATE_WORDS = {
    "waiting": NP_("batch row state", "Waiting"),
    "creating": NP_("batch row state", "Creating"),
    "created": NP_("batch row state", "Created"),
    "paid": NP_("batch row state", "Paid"),
    "refused": NP_("batch row state", "Refused"),
    "failed": NP_("batch row state", "Failed"),
    "skipped": NP_("batch row state", "Skipped"),
}


def state_word(state: str) -> str:
    word = STATE_WORDS.get(state.lower())
    return pgettext("batch row state", word) if word is not None else state


def policy_word(policy: str) -> str:
    return _(POLICY_WORDS[policy]) if policy in POLICY_WORDS else policy


Listed = tuple[Batch, BatchFigures | None]  # a batch and its figures (None: not counted)


def _figure(header: str, count: Callable[[BatchFigures], int], colour: str | None = None) -> Column:
    """A column of one of a batch's figures (``colour``: when it is not 0)."""
    return Column(
        header,
        lambda r: number_in(count(r[1]), staff()) if r[1] else "",
        colour=None if colour is None else lambda r: colour if r[1] and count(r[1]) else None,
    )


class BatchesModel(PagedModel):
    PAGE_TASK = "batches-page"

    def __init__(self, book: BatchBook, tasks: TaskSet):
        super().__init__(tasks)
        self.book = book
        self.rows: list[Listed] = []
        # words that may be elided (a name, a file, who, the policy): whole in the tooltip
        self.columns = (
            Column(_("Name"), lambda r: r[0].name, whole_tip=True),
            Column(_("File"), lambda r: r[0].file_name, whole_tip=True),
            Column(_("When"), lambda r: local_time(r[0].made_at), tip=lambda r: utc_time(r[0].made_at) or None),
            Column(_("By"), lambda r: r[0].made_by, whole_tip=True),
            Column(_("Rows"), lambda r: number_in(r[0].rows, staff())),
            _figure(pgettext("batch figures", "Created"), lambda f: f.created + f.paid),
            _figure(pgettext("batch figures", "Refused"), lambda f: f.refused, colour=LOUD),
            _figure(pgettext("batch figures", "Paid so far"), lambda f: f.paid),
            _figure(pgettext("batch figures", "Left"), lambda f: f.waiting + f.creating),
            Column(_("Policy"), lambda r: policy_word(r[0].policy), whole_tip=True),
        )

    def listed(self) -> list:
        return self.rows

    async def _with_figures(self, batches: list[Batch]) -> list[Listed]:
        return [(b, await self.book.figures(b.id)) for b in batches]

    async def load(self, query: tuple[str, str]) -> None:
        """The first page of ``query`` (profile id, mode)."""
        batches = await self.book.batches(query[0], query[1], limit=PAGE)
        rows = await self._with_figures(batches)
        self.beginResetModel()
        self.rows = rows
        self.first_page(query, rows, batches[-1].id if batches else None, len(batches) == PAGE)
        self.endResetModel()
        self.loaded.emit()

    async def read_page(self, query: tuple[str, str], before: int) -> tuple[list, Any, bool]:
        batches = await self.book.batches(query[0], query[1], before=before, limit=PAGE)
        return (await self._with_figures(batches), batches[-1].id if batches else before, len(batches) == PAGE)

    def at(self, row: int) -> Batch | None:
        return self.rows[row][0] if 0 <= row < len(self.rows) else None

    def row_of(self, batch_id: int) -> int | None:
        return next((row for row, (b, _figures) in enumerate(self.rows) if b.id == batch_id), None)

    def ids(self) -> list[int]:
        return [b.id for b, _figures in self.rows]

    def changed(self, batch: Batch, figures: BatchFigures) -> None:
        """A batch's figures counted again (or a new batch: on top)."""
        if self.query is None or (batch.profile_id, batch.mode) != self.query:
            return
        row = self.row_of(batch.id)
        if row is not None:
            self.rows[row] = (batch, figures)
            self.rows_changed(row)
            return
        if self.rows and batch.id < self.rows[-1][0].id:
            return  # older than every row shown: read with its page
        at = next((i for i, (b, _figures) in enumerate(self.rows) if b.id < batch.id), len(self.rows))
        self.beginInsertRows(QModelIndex(), at, at)
        self.rows.insert(at, (batch, figures))
        self.endInsertRows()


def _name(row: BatchRow) -> str:
    values = row.values
    return " ".join(v for v in (values.get("first_name", ""), values.get("last_name", "")) if v)


def _email_sent(row: BatchRow) -> str:
    if row.email_state is None:
        return ""
    if row.email_state == "sent":
        return pgettext("e-mail", "sent")
    return _("failed: {error}").format(error=row.email_error or "")


class BatchRowsModel(PagedModel):
    PAGE_TASK = "batch-rows-page"
    FIXED = (2, 3, 9)  # references and the URL: one line, fixed face, whole in the tooltip
    REFERENCES = (2, 3)
    STATE = 1

    def __init__(self, book: BatchBook, tasks: TaskSet):
        super().__init__(tasks)
        self.book = book
        self.rows: list[BatchRow] = []
        fixed = fixed_font()
        # what may be elided (the references and the URL, in the fixed face; a name, a
        # title, an error, an e-mail's failure): the whole text in the tooltip
        self.columns = (
            Column(_("Row"), lambda r: str(r.number)),
            Column(
                _("State"),
                lambda r: state_word(r.state),
                colour=lambda r: LOUD if r.state.lower() in ("refused", "failed") else None,
            ),
            Column(_("Reference"), lambda r: r.tx_ref, font=fixed, whole_tip=True),
            Column(
                _("Service reference"),
                lambda r: (r.record.reference or "") if r.record else "",
                font=fixed,
                whole_tip=True,
            ),
            Column(_("Amount"), lambda r: r.values.get("amount", "")),
            Column(_("Currency"), lambda r: r.values.get("currency", "")),
            Column(_("E-mail"), lambda r: r.values.get("email", "")),
            Column(_("Name"), _name, whole_tip=True),
            Column(_("Title"), lambda r: r.values.get("title", ""), whole_tip=True),
            Column(
                _("Checkout URL"),
                lambda r: (r.record.checkout_url or "") if r.record else "",
                font=fixed,
                whole_tip=True,
            ),
            Column(_("Error"), lambda r: ledger_words(r.record.error) if r.record else "", whole_tip=True),
            Column(_("E-mail sent"), _email_sent, whole_tip=True),
        )

    def listed(self) -> list:
        return self.rows

    async def load(self, batch_id: int | None) -> None:
        rows = await self.book.rows(batch_id, limit=ROWS_PAGE) if batch_id is not None else []
        self.beginResetModel()
        self.rows = rows
        self.first_page(batch_id, rows, rows[-1].number if rows else None, len(rows) == ROWS_PAGE)
        self.endResetModel()
        self.loaded.emit()

    async def read_page(self, batch_id: int, after: int) -> tuple[list, Any, bool]:
        rows = await self.book.rows(batch_id, after=after, limit=ROWS_PAGE)
        return rows, rows[-1].number if rows else after, len(rows) == ROWS_PAGE

    async def refresh(self) -> None:
        """The rows shown read again (states change as links are created and paid), a page
        at a time, each repainted in place."""
        batch_id, after, done = self.query, None, 0
        while batch_id is not None and done < len(self.rows):
            page = await self.book.rows(batch_id, after=after, limit=ROWS_PAGE)
            if batch_id != self.query or not page:
                return
            for row in page:
                if done < len(self.rows) and self.rows[done].number == row.number:
                    self.rows[done] = row
                done += 1
            self.rows_changed(max(done - len(page), 0), min(done, len(self.rows)) - 1)
            after = page[-1].number

    def at(self, row: int) -> BatchRow | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None
