"""The wallet: every card of this profile and mode, as a table model over the ledger's cache
(pages of SQL, fetched as the list scrolls), with search, a state filter, Refresh and the
time the list is "as of"."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QItemSelectionModel, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...config.profiles import Profile
from ...desk.cards import words
from ...desk.tasks import TaskSet
from ...i18n import N_, _
from ...ledger.cards import CardLedger, CardQuery, CardRecord
from .. import widgets
from ..fixed_text import fixed_font
from ..paging import PagedModel
from ..table import RIGHT, Column, bold_font

COLUMNS = (N_("Card"), N_("Name on card"), N_("Balance"), N_("State"), N_("Expires"), N_("Created"))
BALANCE, STATE, EXPIRES = 2, 3, 4
PAGE = 100


class WalletModel(PagedModel):
    """Cards newest first; the next page is read from the ledger when the view needs it."""

    PAGE_TASK = "cards-next-page"  # a task's name, never shown

    def __init__(self, ledger: CardLedger, tasks: TaskSet):
        super().__init__(tasks)
        self.ledger = ledger
        self.profile: Profile | None = None
        self.query: CardQuery | None = None
        self.records: list[CardRecord] = []
        self.today = date.today()
        self.columns = (
            Column(_(COLUMNS[0]), lambda r: r.masked, font=fixed_font()),  # the masked number
            Column(_(COLUMNS[1]), lambda r: r.name_on_card),
            Column(
                _(COLUMNS[BALANCE]),
                lambda r: words.card_money(self.profile, r, r.balance),
                align=RIGHT,
                tip=self._balance_tip,
            ),
            Column(
                _(COLUMNS[STATE]),
                lambda r: words.badge(r.state).words,
                font=bold_font(),
                colour=lambda r: words.badge(r.state).colour,
            ),
            Column(
                _(COLUMNS[EXPIRES]),
                lambda r: words.expiry(r, self.today)[0],
                colour=lambda r: "#b3261e" if words.expiry(r, self.today)[1] else None,
            ),
            Column(_(COLUMNS[5]), lambda r: words.when(r.created_at)),
        )

    def _balance_tip(self, record: CardRecord) -> str | None:
        if words.currency_of(self.profile, record.currency_code) is None:
            return words.unknown_code_hint(record.currency_code)
        return None

    # -- Qt's model ---------------------------------------------------------------------

    def listed(self) -> list:
        return self.records

    # -- loading ------------------------------------------------------------------------

    async def load(self, profile: Profile, query: CardQuery) -> None:
        """The first page of ``query`` in place of what is shown."""
        page = await self.ledger.card_page(query, limit=PAGE)
        self.beginResetModel()
        self.profile, self.today = profile, date.today()
        self.records = page.records
        self.first_page(query, page.records, page.end, page.more)
        self.endResetModel()
        self.loaded.emit()

    async def read_page(
        self, query: CardQuery, after: tuple[str, str] | None
    ) -> tuple[list[CardRecord], tuple[str, str] | None, bool]:
        page = await self.ledger.card_page(query, after=after, limit=PAGE)
        return page.records, page.end, page.more

    def row_of(self, card_hash: str) -> int | None:
        return next((i for i, r in enumerate(self.records) if r.card_hash == card_hash), None)

    def update(self, record: CardRecord) -> bool:
        """A card changed: its row shows it now. False when it is not on the list."""
        row = self.row_of(record.card_hash)
        if row is None or self.query is None or record.key[:2] != (self.query.profile_id, self.query.mode):
            return False
        self.records[row] = record
        self.rows_changed(row)
        return True


class WalletList(QWidget):
    chosen = Signal(object)  # the CardRecord the user selected (or None)
    refreshRequested = Signal()
    createRequested = Signal()

    def __init__(self, ledger: CardLedger, tasks: TaskSet):
        super().__init__()
        self.tasks = tasks
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        # two rows, the buttons above what finds a card: the list stays as narrow as its pane
        # in a language of longer words
        tools, find = QHBoxLayout(), QHBoxLayout()
        self.create_button = QPushButton(_("Create card…"))
        self.create_button.setObjectName("create-card")
        self.create_button.setAccessibleName(self.create_button.text().rstrip("…"))
        self.create_button.clicked.connect(self.createRequested)
        tools.addWidget(self.create_button)
        tools.addStretch(1)
        search_caption = QLabel(_("&Search cards:"))
        self.search = QLineEdit()
        search_caption.setBuddy(self.search)
        self.search.setObjectName("card-search")
        self.search.setAccessibleName(_("Search cards"))
        self.search.setPlaceholderText(_("masked number, name or last four"))
        self.search.setClearButtonEnabled(True)
        find.addWidget(search_caption)
        find.addWidget(self.search, 1)
        state_caption = QLabel(_("Card s&tate:"))
        self.state_filter = QComboBox()
        state_caption.setBuddy(self.state_filter)
        find.addWidget(state_caption)
        self.state_filter.setObjectName("card-state-filter")
        self.state_filter.setAccessibleName(_("Card state"))
        for label, states in words.STATE_FILTERS:  # chosen by its states, never by its words
            self.state_filter.addItem(_(label), states)
        find.addWidget(self.state_filter)
        self.refresh_button = QPushButton(_("Refresh"))
        self.refresh_button.setObjectName("refresh-cards")
        self.refresh_button.setAccessibleName(self.refresh_button.text())
        self.refresh_button.setToolTip(_("Read every card from the service again (F5)"))
        self.refresh_button.clicked.connect(self.refreshRequested)
        tools.addWidget(self.refresh_button)
        column.addLayout(tools)
        column.addLayout(find)
        self.as_of = QLabel("")
        self.as_of.setObjectName("cards-as-of")
        self.as_of.setWordWrap(True)  # a refusal's sentence, as long as it is
        column.addWidget(self.as_of)
        self.model = WalletModel(ledger, tasks)
        self.table = widgets.record_table("card-list", self.model, _("Cards"), (170, 150, 120, 100, 110))
        column.addWidget(self.table, 1)
        self.count = QLabel("")
        self.count.setObjectName("cards-count")
        column.addWidget(self.count)
        self._following = False
        self.table.selectionModel().selectionChanged.connect(self._selected)

    def say_as_of(self, text: str) -> None:
        self.as_of.setText(text)
        self.as_of.setAccessibleName(text)

    def selected(self) -> CardRecord | None:
        rows = {i.row() for i in self.table.selectionModel().selectedRows()}
        return self.model.records[rows.pop()] if len(rows) == 1 else None

    def select(self, card_hash: str | None) -> bool:
        """Select the card's row (without choosing it again); False if it is not listed."""
        row = self.model.row_of(card_hash) if card_hash else None
        self._following = True
        try:
            if row is None:
                self.table.clearSelection()
                return False
            self.table.selectionModel().select(
                self.model.index(row, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
            )
            self.table.scrollTo(self.model.index(row, 0))
            return True
        finally:
            self._following = False

    def state_of(self, card_hash: str) -> str | None:
        row = self.model.row_of(card_hash)
        return None if row is None else self.model.text(self.model.records[row], STATE)

    def _selected(self, *_args: object) -> None:
        if not self._following:
            self.chosen.emit(self.selected())
