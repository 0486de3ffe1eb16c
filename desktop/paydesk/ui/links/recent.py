"""Recent links of the current profile and mode, with their live states: a table model over
the ledger's newest links (the Transactions tab browses all of them)."""

from __future__ import annotations

from PySide6.QtCore import QDate, QDateTime, QItemSelectionModel, QLocale, QModelIndex, QTime, Signal
from PySide6.QtWidgets import QTableView

from ...desk.formats import day_time_in, money_in
from ...desk.states import PAID_AFTER_VOID, SHOWN, VOIDED_AT_COUNTER, state_words
from ...i18n import N_, NP_, _, pgettext, staff
from ...ledger import LinkRecord
from .. import widgets
from ..fixed_text import fixed_font
from ..table import (
    AMOUNT_SAMPLE,
    REFERENCE_SAMPLE,
    RIGHT,
    Column,
    HeadedModel,
    bold_font,
    fit_columns,
)

COLUMNS = (N_("Reference"), N_("Amount"), N_("Title"), N_("State"), NP_("link", "Created"))  # shown translated
REFERENCE, AMOUNT, TITLE, STATE, CREATED = range(len(COLUMNS))
STATE_SAMPLES = tuple(s.words for s in (*SHOWN.values(), VOIDED_AT_COUNTER, PAID_AFTER_VOID))  # N_ marked
MAX_ROWS = 100  # older links are in the ledger (the Transactions tab)


class RecentModel(HeadedModel):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[LinkRecord] = []
        words = staff()
        self.columns = (
            # the reference: read back and typed
            Column(_(COLUMNS[REFERENCE]), lambda r: r.tx_ref, font=fixed_font()),
            Column(_(COLUMNS[AMOUNT]), lambda r: money_in(r.amount, r.currency, words), align=RIGHT),
            Column(_(COLUMNS[TITLE]), lambda r: r.title),
            Column(
                _(COLUMNS[STATE]),
                lambda r: state_words(r).words,
                font=bold_font(),
                colour=lambda r: state_words(r).colour,
            ),
            Column(
                pgettext("link", COLUMNS[CREATED]),  # a link: "Créé le" (a card's is "Créée le")
                lambda r: day_time_in(r.created_at, words),
                tip=lambda r: r.created_at.strftime("%Y-%m-%d %H:%M:%S UTC"),
            ),
        )

    def listed(self) -> list:
        return self.records

    def load(self, records: list[LinkRecord]) -> None:
        self.beginResetModel()
        self.records = list(records[:MAX_ROWS])
        self.endResetModel()

    def row_of(self, key: tuple[str, str]) -> int | None:
        return next((i for i, r in enumerate(self.records) if r.key == key), None)

    def upsert(self, record: LinkRecord) -> int:
        row = self.row_of(record.key)
        if row is not None:
            if record.older_than(self.records[row]):
                return row  # heard late (a shared ledger's reads, out of order): the row's is newer
            self.records[row] = record
            self.rows_changed(row)
            return row
        self.beginInsertRows(QModelIndex(), 0, 0)
        self.records.insert(0, record)
        self.endInsertRows()
        if len(self.records) > MAX_ROWS:
            self.beginRemoveRows(QModelIndex(), MAX_ROWS, len(self.records) - 1)
            del self.records[MAX_ROWS:]
            self.endRemoveRows()
        return 0


def widest_day_time(language: str) -> str:
    """The widest moment ``day_time_in`` writes in a year's months ("28 déc. 23:58"), from
    Qt's locale data (CLDR's months, as Babel's): the list is sized at the first paint
    without loading Babel's tables, which wait for the first link shown."""
    locale = QLocale(language)
    moments = (QDateTime(QDate(2026, month, 28), QTime(23, 58)) for month in range(1, 13))
    return max((locale.toString(moment, "d MMM HH:mm") for moment in moments), key=len)


class RecentLinks(QTableView):
    chosen = Signal(object)  # a LinkRecord the user selected

    def __init__(self) -> None:
        super().__init__()
        self.recent = RecentModel()
        widgets.as_record_table(self, "recent-links", self.recent, _("Recent links"))
        # the title takes what the others leave: the list never scrolls sideways
        fit_columns(
            self,
            (REFERENCE_SAMPLE, AMOUNT_SAMPLE, "", tuple(_(s) for s in STATE_SAMPLES), widest_day_time(staff().locale)),
            2,
            {0: fixed_font(), STATE: bold_font()},
        )
        self._following = False
        self.selectionModel().selectionChanged.connect(self._selected)

    def load(self, records: list[LinkRecord]) -> None:
        self.recent.load(records)

    def upsert(self, record: LinkRecord) -> None:
        self.recent.upsert(record)

    def follow(self, record: LinkRecord | None) -> None:
        """Select the row of the link on screen (or none), without choosing it again."""
        row = self.recent.row_of(record.key) if record is not None else None
        self._following = True
        try:
            if row is None:
                self.clearSelection()
            else:
                self.selectionModel().select(
                    self.recent.index(row, 0),
                    QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
                )
                self.scrollTo(self.recent.index(row, 0))
        finally:
            self._following = False

    def selected(self) -> LinkRecord | None:
        rows = {i.row() for i in self.selectionModel().selectedRows()}
        return self.recent.records[rows.pop()] if len(rows) == 1 else None

    def state_of(self, tx_ref: str) -> str | None:
        for record in self.recent.records:
            if record.tx_ref == tx_ref:
                return self.recent.text(record, STATE)
        return None

    def _selected(self, *_: object) -> None:
        record = self.selected()
        if record is not None and not self._following:
            self.chosen.emit(record)
