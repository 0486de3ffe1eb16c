"""The audit log of card operations: newest first, filtered, paged from the ledger, exported
to CSV (written off the GUI thread, page by page)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from ...desk.cards import words
from ...desk.export import AUDIT_HEADER, audit_cells, export_audit
from ...desk.session import Session
from ...desk.staff import NotAllowed
from ...desk.tasks import TaskSet
from ...desk.texts import ledger_words
from ...i18n import N_, NP_, _, pgettext
from ...ledger import LedgerError
from ...ledger.cards import AuditEntry, AuditQuery, CardLedger
from .. import files, widgets
from ..dialogs import shown
from ..fixed_text import fixed_font
from ..paging import PagedModel
from ..passing import Passing
from ..table import Column, Index

# the log's headings on screen: the export's (AUDIT_HEADER), in the staff's language, the
# amount with its currency in one column (the export writes the currency in its own)
HEADINGS = (
    N_("When"),
    N_("User"),
    N_("Profile"),
    N_("Mode"),
    N_("Card"),
    N_("Action"),
    N_("Amount"),
    N_("Result"),
    N_("Detail"),
    N_("By"),
)
COLUMNS = HEADINGS  # the log's columns on screen, by their English names
ACTIONS = tuple(words.OPERATIONS)
RESULTS = words.RESULTS
MODES = {"test": NP_("mode", "test"), "live": NP_("mode", "live")}
MODE, ACTION, AMOUNT, RESULT = 3, 5, 6, 7
PAGE = 200
MASKED = 4  # the column of the masked card number
DETAIL = 8


def elide_card(masked: str, metrics: QFontMetrics, width: int) -> str:
    """``masked`` ("439364******1234") in ``width`` pixels: whole when it fits, else cut in
    its middle (the masked run first, then the first digits), the last four always kept."""
    if metrics.horizontalAdvance(masked) <= width:
        return masked
    head, tail = masked[:-4], masked[-4:]
    for keep in range(len(head) - 1, -1, -1):
        shorter = f"{head[:keep]}…{tail}"
        if metrics.horizontalAdvance(shorter) <= width:
            return shorter
    return f"…{tail}"


class CardNumberDelegate(QStyledItemDelegate):
    """The card column: a masked number elided in its middle when the column is narrow, so
    the last four digits (what staff read a card by) stay in sight."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: Index) -> None:
        super().initStyleOption(option, index)
        if option.rect.width() <= 0 or not option.text:  # measuring (sizeHint): all of it
            return
        view = option.widget
        style = view.style() if view is not None else QApplication.style()
        room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, view).width()
        # the room the style gives the text: its rectangle less a focus margin each side
        room -= 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1)
        option.text = elide_card(option.text, option.fontMetrics, room)
        option.textElideMode = Qt.TextElideMode.ElideLeft  # never the end, whatever is left


def _cell(column: int) -> Column:
    """Column ``column`` of the log: what the CSV export writes in it, read in the staff's
    language (the time local, to the second; the action, amount, result and mode as the
    language says them; the export keeps the ledger's words); the masked card number in the
    fixed face, the whole of it in its tooltip however narrow the column."""
    if column == 0:
        return Column(_(HEADINGS[0]), lambda e: words.when(e.at, seconds=True))
    if column == MASKED:
        return Column(_(HEADINGS[MASKED]), lambda e: e.masked, font=fixed_font(), tip=lambda e: e.masked)
    if column == ACTION:  # the ledger's and the export's word, in the staff's language
        return Column(_(HEADINGS[ACTION]), lambda e: words.operation(e.action))
    if column == RESULT:
        return Column(_(HEADINGS[RESULT]), lambda e: words.result(e.result))
    if column == AMOUNT:  # as the staff's language writes it (the export: a plain decimal)
        return Column(
            _(HEADINGS[AMOUNT]), lambda e: "" if e.amount is None else words.money(None, e.currency, e.amount)
        )
    if column == MODE:
        return Column(_(HEADINGS[MODE]), lambda e: pgettext("mode", e.mode) if e.mode in MODES else e.mode)
    if column == DETAIL:  # the ledger's English, in the staff's language where it is PayDesk's
        return Column(_(HEADINGS[DETAIL]), lambda e: ledger_words(e.detail))
    cell = AUDIT_HEADER.index(HEADINGS[column])  # the export's column of the same name
    return Column(_(HEADINGS[column]), lambda e: audit_cells(e)[cell])


class AuditModel(PagedModel):
    """Entries newest first; the next page is read from the ledger when the view needs it."""

    PAGE_TASK = "audit-next-page"  # a task's name, never shown

    def __init__(self, ledger: CardLedger, tasks: TaskSet):
        super().__init__(tasks)
        self.ledger = ledger
        self.query: AuditQuery | None = None
        self.entries: list[AuditEntry] = []
        self.columns = tuple(_cell(c) for c in range(len(HEADINGS)))

    def listed(self) -> list:
        return self.entries

    async def load(self, query: AuditQuery) -> None:
        entries, more = await self.ledger.audit_page(query, limit=PAGE)
        self.beginResetModel()
        self.entries = entries
        self.first_page(query, entries, entries[-1].id if entries else None, more)
        self.endResetModel()
        self.loaded.emit()

    async def read_page(self, query: AuditQuery, before: int) -> tuple[list, int | None, bool]:
        entries, more = await self.ledger.audit_page(query, before=before, limit=PAGE)
        return entries, entries[-1].id if entries else before, more


class AuditView(QWidget):
    """``session``: what refuses an export while a shared ledger is out of reach (said in
    the line under the log, and gone when it answers again)."""

    exported = Signal(str)  # the path of a CSV written

    def __init__(self, ledger: CardLedger, tasks: TaskSet, session: Session):
        super().__init__()
        self.setObjectName("card-audit")
        self.ledger, self.tasks, self.session = ledger, tasks, session
        self.passing = Passing(session, self)  # a refusal said goes when its cause goes
        self.scope: tuple[str, str] | None = None
        column = QVBoxLayout(self)
        tools = QHBoxLayout()
        self.action = QComboBox()
        self.action.setObjectName("audit-action")
        self.action.setAccessibleName(_("Action"))
        self.action.addItem(_("All actions"), None)
        for action in ACTIONS:
            self.action.addItem(words.operation(action).capitalize(), action)
        tools.addWidget(self.action)
        self.result = QComboBox()
        self.result.setObjectName("audit-result")
        self.result.setAccessibleName(_("Result"))
        self.result.addItem(_("All results"), None)
        for result in RESULTS:
            self.result.addItem(words.result(result).capitalize(), result)
        tools.addWidget(self.result)
        self.search = QLineEdit()
        self.search.setObjectName("audit-search")
        self.search.setAccessibleName(_("Search the audit log"))
        self.search.setPlaceholderText(_("Search: card, last four, user or detail"))
        self.search.setClearButtonEnabled(True)
        tools.addWidget(self.search, 1)
        self.export_button = QPushButton(_("Export CSV…"))
        self.export_button.setObjectName("audit-export")
        self.export_button.setAccessibleName(self.export_button.text().rstrip("…"))
        self.export_button.clicked.connect(lambda: self.tasks.spawn(self.choose_and_export(), "export audit"))
        tools.addWidget(self.export_button)
        column.addLayout(tools)
        self.model = AuditModel(ledger, tasks)
        # more than one entry may be selected (Ctrl, Shift) in the log
        self.table = widgets.record_table(
            "audit-log",
            self.model,
            _("Audit log"),
            selection=QAbstractItemView.SelectionMode.ExtendedSelection,
        )
        self.table.setItemDelegateForColumn(MASKED, CardNumberDelegate(self.table))
        # room for a whole masked number (19 digits at most) in the fixed face, with the
        # cell's margins
        digits = QFontMetrics(fixed_font()).horizontalAdvance("0" * 19)
        self.table.setColumnWidth(
            MASKED,
            digits + 4 * self.table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self.table) + 12,
        )
        column.addWidget(self.table, 1)
        below = QHBoxLayout()
        self.note = QLabel(_("Entries are never changed or removed; the ledger refuses to."))
        self.note.setObjectName("audit-note")
        below.addWidget(self.note)
        # what Export CSV… did, or why it did not; always in place (empty), so nothing moves
        self.message = QLabel("")
        self.message.setObjectName("audit-message")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        below.addWidget(self.message, 1)
        column.addLayout(below)
        self.action.currentIndexChanged.connect(self.reload)
        self.result.currentIndexChanged.connect(self.reload)
        self.search.textChanged.connect(self.reload)

    def query(self) -> AuditQuery | None:
        if self.scope is None:
            return None
        return AuditQuery(
            *self.scope, action=self.action.currentData(), result=self.result.currentData(), text=self.search.text()
        )

    def set_scope(self, profile_id: str | None, mode: str) -> None:
        self.scope = (profile_id, mode) if profile_id else None
        self.reload()

    def reload(self, *_args: object) -> None:
        query = self.query()
        if query is not None:
            self.tasks.replace("audit", self._load(query))

    async def _load(self, query: AuditQuery) -> None:
        try:
            await self.model.load(query)
        except LedgerError as error:  # a shared ledger out of reach: the lines stay as they
            self.say(str(error))  # were; read again once the ledger answers
            self.passing.said(self.message, str(error), error, self._read_again)

    def _read_again(self) -> None:
        self.say("")
        self.reload()

    def added(self, profile_id: str, mode: str) -> None:
        if self.scope == (profile_id, mode):
            self.reload()

    def say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setAccessibleName(text)

    async def choose_and_export(self) -> Path | None:
        """Export CSV…: refused before the save dialog while a shared ledger is out of
        reach; one that finds it gone on the way leaves the chosen file as it was."""
        if self.passing.refused_now(self.message, self.say, lambda: self.say("")):
            return None
        self.say("")
        dialog = QFileDialog(self, _("Export the card audit log"))
        dialog.setObjectName("audit-export-dialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(_("CSV files (*.csv)"))
        dialog.setDefaultSuffix("csv")
        await files.open_in_start_folder(dialog, "card-audit.csv")  # Documents, not the cwd
        self.export_dialog = dialog
        async with shown(dialog) as code:
            if not code or not dialog.selectedFiles():
                return None
            files.remember(dialog.selectedFiles()[0])
            path = Path(dialog.selectedFiles()[0])
        try:
            await self.export_csv(path)
        except LedgerError as error:  # its one sentence; gone when the ledger answers again
            self.say(str(error))
            self.passing.said(self.message, str(error), error, lambda: self.say(""))
            return None
        except NotAllowed as refused:  # the person signed in may not
            self.say(refused.message)
            return None
        self.say(_("Exported the audit log to {file}").format(file=path.name))
        return path

    async def export_csv(self, path: Path) -> Path:
        """Every entry the filters show, newest first, read page by page and written off the
        GUI thread."""
        query = self.query()
        if query is None:
            raise ValueError(_("No profile is chosen"))
        await export_audit(self.ledger, query, path, self.session)
        self.exported.emit(str(path))
        return path
