"""The Counter tab (Ctrl+4): a sale a minute. The staff types the amount (and optionally a
note and the customer's e-mail) on their own screen and presses Enter; the customer's screen
shows the amount, the code and the state; Escape (*New sale*) clears for the next customer,
voiding a sale that can still be paid once the staff has said so. Below: today's sales of
this counter, the day's totals, and in red a payment that came after a void."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import date, datetime, timedelta

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...desk.budget_words import waiting_text
from ...desk.counter import CounterController, CounterSetupMissing, SaleUnderWay, with_record
from ...desk.day import local_midnight
from ...desk.session import Session
from ...desk.texts import ledger_words
from ...i18n import N_, _, pgettext
from ...ledger import LedgerError, LinkRecord
from ...ledger.counter import KEEP, REFUND, Sale
from ...service.call_class import waits_shown_by
from ...service.errors import ServiceError, ValidationError
from ..passing import Passing
from ..screen_fit import keep_wrapped_height
from ..signals import signals_of
from .after_void import AfterVoidBanner
from .entry import SaleEntry
from .mirror import StaffMirror
from .sales import SalesList, SalesModel, totals_text
from .setup import ShopEmailBox
from .tools import CounterTools
from .voids import Voids

log = logging.getLogger("paydesk.counter.tab")

CODE_SHOWN = N_("This customer's code is on screen: Escape starts a new sale")
REFRESH_MS = 150  # the totals and the red banner, read again once a burst of changes is over
FIELDS = {"amount": "amount", "currency": "amount", "note": "note", "email": "email"}


MIDNIGHT_SLACK_MS = 500  # the new day's list is read just after local midnight


def _midnight() -> datetime:
    """Today's first moment, local time (on a daylight-saving day too)."""
    return local_midnight(date.today())


def _ms_to_next_midnight() -> int:
    left = local_midnight(date.today() + timedelta(days=1)) - datetime.now().astimezone()
    return max(0, int(left.total_seconds() * 1000)) + MIDNIGHT_SLACK_MS


class CounterTab(Voids, QWidget):
    def __init__(self, session: Session, controller: CounterController):
        super().__init__()
        self.setObjectName("tab-counter")
        self.setAccessibleName(pgettext("tab", "Counter"))
        self.session, self.controller = session, controller
        self.tasks = session.tasks.child(self)
        self.selling: asyncio.Task | None = None  # the sale being made (one at a time)
        self.loaded = False  # the first reload has filled the list and the totals
        column = QVBoxLayout(self)

        self.tools = CounterTools(controller, self.tasks, lambda: self._quietly(self._refresh))
        self.tools.renamed.connect(self.reload)  # today's list is the renamed counter's
        self.place = self.tools.place
        self.place.toggle.clicked.connect(self._back_to_amount)  # the next sale is typed there
        # the tools by the names staff know them
        self.counter_name, self.rename_button = self.tools.counter_name, self.tools.rename_button
        self.close_shift_button = self.tools.close_shift_button
        column.addWidget(self.tools)
        self.shop_email = ShopEmailBox(controller, self.tasks)  # asked before the first sale
        self.shop_email.saved.connect(self._back_to_amount)
        column.addWidget(self.shop_email)

        top = QHBoxLayout()
        self.entry = SaleEntry()
        self.entry.enterPressed.connect(self.enter)
        self.entry.newSaleRequested.connect(lambda: self.escape(closing=False))
        # the boxes and buttons, by the names staff know them
        self.amount, self.currency = self.entry.amount, self.entry.currency
        self.note, self.email = self.entry.note, self.entry.email
        self.messages, self.message = self.entry.messages, self.entry.message
        self.sell_button, self.new_sale_button = self.entry.sell_button, self.entry.new_sale_button
        left = QWidget()  # the entry, and the mirror under it while the view is beside
        self.left = QVBoxLayout(left)
        self.left.setContentsMargins(0, 0, 0, 0)
        self.left.addWidget(self.entry)
        keep_wrapped_height(left)  # the mirror's wrapped words under the entry squash nothing
        top.addWidget(left, 3)
        self.mirror = StaffMirror()
        self.place.besideShown.connect(self.mirror.set_code_beside)  # one code on one screen
        self.place.besideShown.connect(self._place_mirror)
        top.addWidget(self.mirror, 2)
        top.addWidget(self.place.beside, 4)
        self.top = top
        upper = QWidget()
        upper.setLayout(top)

        lower = QWidget()
        below = QVBoxLayout(lower)
        below.setContentsMargins(0, 0, 0, 0)
        self.banner = AfterVoidBanner()
        self.banner.refundRequested.connect(lambda sale: self.tasks.spawn(self.decide(sale, REFUND), "decide"))
        self.banner.keepRequested.connect(lambda sale: self.tasks.spawn(self.decide(sale, KEEP), "decide"))
        below.addWidget(self.banner)
        self.totals = QLabel("")
        self.totals.setObjectName("counter-totals")
        self.totals.setWordWrap(True)
        below.addWidget(self.totals)
        self.model = SalesModel(controller, self.tasks)
        self.sales = SalesList(self.model)
        below.addWidget(self.sales, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(upper)
        split.addWidget(lower)
        split.setSizes([480, 260])
        column.addWidget(split, 1)

        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_MS)
        self._refresh_timer.timeout.connect(self._refresh_due)
        self._midnight_timer = QTimer(self)  # today's list and totals start again at midnight
        self._midnight_timer.setObjectName("counter-midnight")
        self._midnight_timer.setSingleShot(True)
        self._midnight_timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._midnight_timer.timeout.connect(self._new_day)
        self._midnight_timer.start(_ms_to_next_midnight())
        self.passing = Passing(session, self)  # a refusal said goes when its cause goes
        signals = signals_of(session.hub)
        signals.saleChanged.connect(self._sale_changed)
        signals.linkChanged.connect(self._link_changed)
        signals.changed.connect(self.reload)
        self.reload()

    # -- state ------------------------------------------------------------------------

    def reload(self) -> None:
        """The profile or mode changed (or a profile was edited): what the tab shows of it."""
        profile = self.session.profile
        self.setEnabled(profile is not None)
        self.place.set_test(self.session.is_test)
        self.tools.say_name()
        if self.mirror.sale is not None and not self._ours(self.mirror.sale):
            self.show_sale(None)  # another profile's or mode's sale: not this counter's now
        if profile is None:
            self.shop_email.hide()
            return
        self.shop_email.follow()
        self.place.set_merchant(profile.shown_name, profile.counter_logo, profile.customer_language)
        self.entry.set_currencies(profile.currencies)
        if not self.loaded:
            self.place.fill(self.controller.settings.screen)
        self.tasks.replace("reload", self._reload())

    async def _reload(self) -> None:
        try:
            await self._next_title()
            await self.model.load()
            await self._refresh()
        except (LedgerError, ServiceError) as error:  # a shared ledger out of reach (or the
            # profile gone meanwhile): the list stays as it was
            log.info("could not read the counter's sales: %s", error)
            return
        self.loaded = True

    async def _next_title(self) -> None:
        title = await self.controller.next_title()
        self.note.setPlaceholderText(title)

    async def _refresh(self) -> None:
        """The day's totals and the payments after void, read again."""
        figures = await self.controller.today_figures()
        text = totals_text(figures)
        self.totals.setText(text)
        self.totals.setAccessibleName(text)
        self.banner.show_sales(await self.controller.undecided())

    def _refresh_later(self) -> None:
        """Once the burst of changes of one sale is over (made, its link written, checked),
        and the sale being made is done: its code is painted first, the totals after."""
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def _refresh_due(self) -> None:
        if self.selling is not None:
            self._refresh_timer.start()  # after the sale under way
        else:
            self.tasks.replace("refresh", self._quietly(self._refresh))

    async def _quietly(self, work: Callable[[], Awaitable[object]]) -> None:
        """``work()`` (a read of the ledger); a ledger out of reach is logged, not raised."""
        try:
            await work()
        except (LedgerError, ServiceError) as error:
            log.info("could not read the counter's figures: %s", error)

    def _new_day(self) -> None:
        """Local midnight (or just after): today's list and totals start again, sale or not;
        armed again for the next one (a timer woken early is armed for what is left)."""
        self.reload()
        self._midnight_timer.start(_ms_to_next_midnight())

    def _ours(self, sale: Sale) -> bool:
        profile = self.session.profile
        return profile is not None and sale.profile_id == profile.id and sale.mode == self.session.mode

    def _sale_changed(self, sale: Sale) -> None:
        if not self._ours(sale):
            return
        midnight = _midnight()
        if self.model.sales and self.model.sales[-1].made_at < midnight:
            self.reload()  # a new day: today's list starts again
        elif sale.counter == self.controller.name and sale.made_at >= midnight:
            self.model.upsert(sale)
        shown = self.mirror.sale
        if shown is not None and shown.key == sale.key and not sale.older_than(shown):
            self.show_sale(sale)  # (a word heard late, older than the one shown, is not)
        self._refresh_later()

    def _link_changed(self, record: LinkRecord) -> None:
        """A link's state, ahead of the book's word on its sale: the screens follow at once
        (the customer's PAID does not wait for the book)."""
        shown = self.mirror.sale
        if (
            shown is not None
            and shown.key == record.key
            and not (heard := with_record(shown, record)).older_than(shown)
        ):
            self.show_sale(heard)
        row = self.model.row_of(record.key)
        if row is not None:
            self.model.upsert(with_record(self.model.sales[row], record))

    def _place_mirror(self, beside: bool) -> None:
        """The staff's mirror beside the entry; under it while the customer's view is beside
        the amount box (the code is the view's then): the three side by side would widen the
        window past what it was before the view was shown."""
        self.top.removeWidget(self.mirror)
        self.left.removeWidget(self.mirror)
        if beside:
            self.left.addWidget(self.mirror)
        else:
            self.top.insertWidget(1, self.mirror, 2)
        self.mirror.show()  # moved to another parent: shown there at once, not a turn later
        for layout in (self.left, self.top):
            layout.activate()  # and laid out in its new place

    def _back_to_amount(self) -> None:
        self.amount.setFocus(Qt.FocusReason.OtherFocusReason)

    def show_sale(self, sale: Sale | None) -> None:
        """``sale`` on both screens (None: blank for the next customer)."""
        self.mirror.show_sale(sale)
        self.place.show_sale(sale)

    # -- a sale -----------------------------------------------------------------------

    def enter(self) -> None:
        """Enter: sell what is typed. One sale at a time: nothing while one is being made
        or while its code can be paid."""
        if self.selling is not None or self.controller.selling:
            return
        if self.controller.payable():
            self.message.say(_(CODE_SHOWN), ok=True)
            return
        self.selling = self.tasks.spawn(self.sell(), "sell")

    async def sell(self) -> Sale | None:
        self.entry.say({}, "")
        try:
            with waits_shown_by(self._service_wait):  # a sale never fails on a 429: it waits
                sale = await self.controller.sell(
                    self.amount.text(), self.currency.currentText(), self.note.text(), self.email.text()
                )
        except SaleUnderWay:
            return None
        except CounterSetupMissing as missing:
            self.entry.say(
                {"email": missing.message} if missing.field == "shop_email" else {},
                "" if missing.field == "shop_email" else missing.message,
            )
            return None
        except ValidationError as refused:  # what was typed, or the service's refusal
            found: dict[str, str] = {}
            for key, texts in refused.errors.items():
                box = FIELDS.get(key.split(".")[-1])
                if box is not None and texts and box not in found:
                    found[box] = texts[0]
            self.entry.say(found, "" if found else refused.message)
            self.show_sale(self.controller.current)
            return None
        except (ServiceError, LedgerError) as failure:
            self.say_refused(failure)
            self.show_sale(self.controller.current)
            return None
        finally:
            self.selling = None
        self.entry.clear()
        self.show_sale(sale)
        record = sale.record
        if record is not None and record.state == "creating":
            self.message.say(
                _("{problem}: PayDesk keeps trying with the same reference; nothing will be paid twice").format(
                    problem=ledger_words(record.error) or _("No answer from the service")
                )
            )
        self._back_to_amount()
        await self._quietly(self._next_title)
        return sale

    def _service_wait(self, seconds: float | None) -> None:
        """ "Waiting for the service (3 s)" under the sale being made; gone when it goes."""
        if self.selling is not None:
            self.message.say(waiting_text(seconds) if seconds is not None else None, ok=True)

    # -- a new sale, and the display's Escape -----------------------------------------

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and not event.modifiers():
            self.escape(closing=True)
            event.accept()
            return
        super().keyPressEvent(event)

    def escape(self, closing: bool) -> None:
        """*New sale* (Escape): clear for the next customer, after asking when the sale can
        still be paid. Escape on a blank counter closes the customer display."""
        if self.selling is not None or self.controller.selling:
            return  # the sale being made will be shown; Escape then clears it
        if self.controller.current is None and self.mirror.sale is None:
            if self.entry.typed() or self.message.text():
                self.entry.clear()
                self._back_to_amount()
            elif closing and self.place.is_open:
                self.place.close_display()
            return
        self.tasks.replace("new sale", self.new_sale())

    def say_refused(self, failure: Exception) -> None:
        """What refused the staff's press, under the buttons; gone when its cause goes (the
        shared ledger back, the key added)."""
        text = getattr(failure, "message", None) or str(failure)
        self.entry.say({}, text)
        self.passing.said(self.message, text, failure)

    def shut(self) -> None:
        """The window is closing: the customer's display closes with it."""
        self.place.shut()
