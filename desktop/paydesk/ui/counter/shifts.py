"""Finance's Counter shifts window (View → Counter shifts…, Ctrl+Shift+H): every counter's
shifts of the active profile and mode, newest first, with their figures (Enter, a double
click or Show report opens a shift's report), and every counter's open sales and payments
after void nobody has settled yet, with Refund… and Keep. On a shop's shared ledger that is
every counter of the shop; on a desk's own ledger, this computer's. Live: a shift opened or
closed and a sale made, paid, voided or decided anywhere show within a second."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...desk.formats import money_in
from ...desk.session import Session
from ...desk.texts import mode_word
from ...i18n import N_, _, ngettext, staff
from ...ledger import LedgerError
from ...ledger.counter import KEEP, REFUND, Figures, Sale, SaleQuery, Shift
from .. import widgets
from ..as_of import AsOf
from ..dialogs import confirm, run_dialog
from ..fixed_text import fixed_font
from ..passing import Passing
from ..signals import signals_of
from ..table import AMOUNT_SAMPLE, REFERENCE_SAMPLE, TIME_SAMPLE, HeadersGiveWay, fit_columns
from .report import ShiftReportDialog, profile_name
from .shift_lists import SalesModel, ShiftsModel, sale_states

log = logging.getLogger("paydesk.ui.counter.shifts")
TITLE = N_("Counter shifts")
NAME_SAMPLE = "counter 12"  # a counter's name (the computer's, or as renamed): data, its width
BANNER_MOST = 100  # undecided payments after void counted one by one; more: "More than"


class CounterShiftsWindow(widgets.OwnWindow):
    """A window of its own (closing it hides it; it ends with the main window). ``controller``
    is the desk's CounterController: its book, and its decide() for Refund…/Keep."""

    def __init__(self, session: Session, controller: Any, parent: QWidget | None = None):
        super().__init__(parent, "counter-shifts-window", _(TITLE), (1100, 680))
        self.session, self.controller = session, controller
        self.tasks = session.tasks.child(self)
        book = controller.book
        column = QVBoxLayout(self)
        self.heading = QLabel("")
        self.heading.setObjectName("counter-shifts-heading")
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        column.addWidget(self.heading)

        split = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        top_column = QVBoxLayout(top)
        top_column.setContentsMargins(0, 0, 0, 0)
        caption = QLabel(_("&Shifts:"))
        self.shifts_model = ShiftsModel(book, self.tasks)
        self.shifts = widgets.record_table("counter-shifts", self.shifts_model)
        self.shifts.setAccessibleName(_("Shifts"))
        # the paid amounts take what the others leave: the list never scrolls sideways
        cells = fit_columns(
            self.shifts,
            (NAME_SAMPLE, "9999", TIME_SAMPLE, "accounts", TIME_SAMPLE, "accounts", *["9,999"] * 5, ""),
            11,
            {1: fixed_font()},
        )
        # on a narrow screen (or in a longer language) the headers wider than their counts
        # give way: the paid amounts keep room for one amount
        HeadersGiveWay(self.shifts, cells, self.shifts.fontMetrics().horizontalAdvance(AMOUNT_SAMPLE))
        caption.setBuddy(self.shifts)
        top_column.addWidget(caption)
        top_column.addWidget(self.shifts, 1)
        row = QHBoxLayout()
        self.report_button = widgets.button(_("Show report"), "show-shift-report")
        row.addWidget(self.report_button)
        row.addStretch(1)
        top_column.addLayout(row)
        split.addWidget(top)

        below = QWidget()
        below_column = QVBoxLayout(below)
        below_column.setContentsMargins(0, 0, 0, 0)
        caption = QLabel(_("&Open sales and payments after void:"))
        self.banner = QLabel("")
        self.banner.setObjectName("counter-shifts-undecided")
        self.banner.setStyleSheet("background: #b3261e; color: white; font-weight: 700; padding: 6px;")
        self.banner.hide()
        below_column.addWidget(self.banner)
        self.sales_model = SalesModel(book, self.tasks)
        self.sales = widgets.record_table("counter-open-sales", self.sales_model)
        self.sales.setAccessibleName(_("Open sales and payments after void"))
        # the title takes what the others leave: the Reference is in view whole, never past
        # the list's edge
        fit_columns(
            self.sales,
            (
                TIME_SAMPLE,
                NAME_SAMPLE,
                _("Sale {number:04d}").format(number=0),
                "",
                AMOUNT_SAMPLE,
                sale_states(),
                REFERENCE_SAMPLE,
            ),
            3,
            {6: fixed_font()},
        )
        caption.setBuddy(self.sales)
        below_column.addWidget(caption)
        below_column.addWidget(self.sales, 1)
        row = QHBoxLayout()
        self.refund_button = widgets.button(_("Refund…"), "refund-after-void")
        self.keep_button = widgets.button(_("Keep"), "keep-after-void")
        row.addWidget(self.refund_button)
        row.addWidget(self.keep_button)
        self.message = QLabel("")
        self.message.setObjectName("counter-shifts-message")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        row.addWidget(self.message, 1)
        below_column.addLayout(row)
        split.addWidget(below)
        split.setSizes([380, 280])
        column.addWidget(split, 1)

        close = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)  # as a dialog closes
        close.activated.connect(self.close)
        self.shifts.activated.connect(self._activated)  # Enter, or a double click
        self.report_button.clicked.connect(self._report_chosen)
        self.refund_button.clicked.connect(lambda: self._decide(REFUND))
        self.keep_button.clicked.connect(lambda: self._decide(KEEP))
        self.shifts.selectionModel().selectionChanged.connect(self._enable)
        self.sales.selectionModel().selectionChanged.connect(self._enable)
        self.sales_model.rowsInserted.connect(self._count)
        self.sales_model.rowsRemoved.connect(self._count)
        self.sales_model.modelReset.connect(self._count)
        self.sales_model.dataChanged.connect(self._count)
        signals = signals_of(session.hub)
        signals.changed.connect(self.reload)
        signals.shiftChanged.connect(self.shift_changed)
        signals.saleChanged.connect(self.sale_changed)
        # a shared ledger out of reach: the lists as they were, marked as of when it went
        self.as_of = AsOf(session, self)
        self.as_of.changed.connect(self._reachable)
        self.passing = Passing(session, self)  # a refusal said goes when its cause goes
        self.loaded = False  # both lists have their first page
        self._unread = ""  # what was said when the book could not be read
        self._enable()
        self._count()
        self.reload()

    # -- the lists -------------------------------------------------------------------------

    def query(self) -> tuple[str, str] | None:
        profile = self.session.profile
        return (profile.id, self.session.mode) if profile is not None else None

    def reload(self, *_: object) -> None:
        self._show_heading()
        self.tasks.replace("lists", self._load(self.query()))

    def _show_heading(self) -> None:
        profile = self.session.profile
        name = profile.name if profile is not None else _("no profile")
        text = _("Every counter's shifts in {profile} · {mode}").format(profile=name, mode=mode_word(self.session.mode))
        text += self.as_of.suffix()
        self.heading.setText(text)
        self.heading.setAccessibleName(text)

    def _reachable(self, *_: object) -> None:
        self._show_heading()
        if not self.as_of.text and not self.loaded:  # opened while it was out of reach
            self.reload()

    async def _load(self, query: tuple[str, str] | None) -> None:
        self.loaded = False
        if query is None:
            return
        try:
            await self.shifts_model.load(query)
            await self.sales_model.load(query)
        except LedgerError as error:  # a shared ledger out of reach: the lists stay
            self._unread = _("Could not read the counters' book: {error}").format(error=error)
            self.say(self._unread)
            return
        if self._unread and self.message.text() == self._unread:
            self.say("")
        self._unread = ""
        self.loaded = True
        self._enable()

    def shift_changed(self, shift: Shift) -> None:
        self.shifts_model.changed(shift)

    def sale_changed(self, sale: Sale) -> None:
        self.sales_model.changed(sale)
        if sale.shift_id in self.shifts_model.open_shift_ids():  # its count moved
            self.tasks.replace(f"figures {sale.shift_id}", self._recount(sale.shift_id))

    async def _recount(self, shift_id: int) -> None:
        try:
            shift = await self.controller.book.shift(shift_id)
            figures = (
                None
                if shift is None or shift.closed
                else await self.controller.book.figures(SaleQuery(shift_id=shift_id))
            )
        except LedgerError as error:
            log.info("could not count shift %s again: %s", shift_id, error)
            return
        if shift is not None:
            self.shifts_model.changed(shift, figures)

    def _count(self, *_: object) -> None:
        """The banner counts the undecided payments after void in the ledger (one bounded
        page), not the rows of the list read so far (a list scrolled a page at a time)."""
        self._enable()
        query = self.query()
        if query is None:
            self._say_undecided(0)
            return
        self.tasks.replace("undecided", self._count_undecided(query))

    async def _count_undecided(self, query: tuple[str, str]) -> None:
        try:
            undecided = await self.controller.book.sales(
                SaleQuery(profile_id=query[0], mode=query[1], undecided=True), limit=BANNER_MOST + 1
            )
        except LedgerError as error:
            log.info("could not count the payments after void: %s", error)
            return
        if query == self.query():
            self._say_undecided(len(undecided))

    def _say_undecided(self, undecided: int) -> None:
        text = (
            ngettext(
                "More than {n} payment after void: refund or keep",
                "More than {n} payments after void: refund or keep",
                BANNER_MOST,
            ).format(n=BANNER_MOST)
            if undecided > BANNER_MOST
            else ngettext(
                "{n} payment after void: refund or keep", "{n} payments after void: refund or keep", undecided
            ).format(n=undecided)
        )
        self.banner.setText(text)
        self.banner.setAccessibleName(text)
        self.banner.setVisible(bool(undecided))

    def chosen_shift(self) -> tuple[Shift, Figures | None] | None:
        rows = self.shifts.selectionModel().selectedRows()
        return self.shifts_model.at(rows[0].row()) if len(rows) == 1 else None

    def chosen_sale(self) -> Sale | None:
        rows = self.sales.selectionModel().selectedRows()
        return self.sales_model.at(rows[0].row()) if len(rows) == 1 else None

    def _enable(self, *_: object) -> None:
        self.report_button.setEnabled(self.chosen_shift() is not None)
        sale = self.chosen_sale()
        deciding = sale is not None and sale.needs_decision
        self.refund_button.setEnabled(deciding)
        self.keep_button.setEnabled(deciding)

    def say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setAccessibleName(text)

    # -- actions ---------------------------------------------------------------------------

    def _activated(self, index: QModelIndex) -> None:
        chosen = self.shifts_model.at(index.row())
        if chosen is not None:
            self.tasks.replace("report", self.show_report(*chosen))

    def _report_chosen(self) -> None:
        chosen = self.chosen_shift()
        if chosen is not None:
            self.tasks.replace("report", self.show_report(*chosen))

    async def show_report(self, shift: Shift, figures: Figures | None) -> ShiftReportDialog:
        dialog = ShiftReportDialog(
            shift, figures, profile=profile_name(self.session, shift.profile_id), tasks=self.tasks, parent=self
        )
        self.report = dialog
        await run_dialog(dialog)
        return dialog

    def _decide(self, decision: str) -> None:
        sale = self.chosen_sale()
        if sale is not None and sale.needs_decision:
            self.tasks.replace("decide", self.decide(sale, decision))

    async def decide(self, sale: Sale, decision: str) -> Sale | None:
        amount = money_in(sale.record.amount, sale.record.currency, staff()) if sale.record else None
        what = (
            _("{amount} ({reference})").format(amount=amount, reference=sale.tx_ref)
            if amount
            else _("the payment ({reference})").format(reference=sale.tx_ref)
        )
        # a shared ledger out of reach: the decision could not be recorded, so none is asked
        if self.passing.refused_now(self.message, self.say, lambda: self.say("")):
            return None
        if decision == REFUND and not await confirm(
            self,
            _("Refund"),
            _("Refund {payment}?").format(payment=what),
            _(
                "PayDesk cannot give money back itself: refund it from the service's "
                "dashboard. PayDesk records that it is to be refunded, by you, now."
            ),
            _("Refund"),
            _("Cancel"),
            object_name="confirm-refund",
        ):
            return None
        try:
            decided = await self.controller.decide(sale, decision)
        except LedgerError as error:  # its one sentence; gone when the ledger answers again
            self.say(str(error))
            self.passing.said(self.message, str(error), error, lambda: self.say(""))
            return None
        self.sales_model.changed(decided)
        self.say(
            _("{payment}: to be refunded from the service's dashboard").format(payment=what)
            if decision == REFUND
            else _("{payment}: kept").format(payment=what)
        )
        return decided
