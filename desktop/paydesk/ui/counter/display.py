"""What the customer sees: the merchant's name and logo, the amount, the code and the state
in large words, one sale at a time. Nothing else: never an error meant for the staff, the
customer's details, the note, nor anything to type into.

When the sale is paid the view turns green and says "Paid" (the code is gone), then "Thank
you", then goes blank for the next customer. ``CustomerView`` is that view (embedded beside
the staff's amount box on a one-screen counter); ``CustomerDisplay`` holds it full screen on
the customer's monitor, and is closed from the staff's screen only."""

from __future__ import annotations

import asyncio
import logging

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QImage, QKeyEvent, QPixmap, QResizeEvent, QScreen
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from ...desk.formats import money_in
from ...desk.states import state_words
from ...desk.tasks import TaskSet
from ...i18n import ENGLISH, N_, Words, _, customer
from ...ledger import LinkRecord
from ...ledger.counter import PAID, Sale
from ..links.qr import QrWidget
from ..links.watermark import Watermark

log = logging.getLogger("paydesk.counter.display")

# in the customer's language (the profile's "Customer language"): paydesk/i18n.py's customer()
PAID_WORDS = N_("Paid")
THANKS_WORDS = N_("Thank you")
WAIT_WORDS = N_("One moment…")
GREEN = "#1b7f3b"
LOGO_HEIGHT = 120  # pixels: the logo above the amount


def _big(name: str, point_size: int, bold: bool = True) -> QLabel:
    label = QLabel("")
    label.setObjectName(name)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    font = label.font()
    font.setPointSize(point_size)
    font.setBold(bold)
    label.setFont(font)
    return label


def _read_logo(path: str) -> QImage | None:
    """The logo's image, read and scaled off the GUI thread (a QImage may be)."""
    image = QImage(path)
    if image.isNull():
        return None
    return image.scaledToHeight(LOGO_HEIGHT, Qt.TransformationMode.SmoothTransformation)


class CustomerView(QWidget):
    """One sale as its customer sees it (``show_sale``), or blank.

    ``phase`` says what is on screen: "blank", "sale" (the amount, the code while it can be
    paid, the state), "paid" (green, "Paid"), "thanks" ("Thank you"). A paid sale runs
    paid -> thanks -> blank once; the same sale given again afterwards stays blank."""

    PAID_MS = 3000
    THANKS_MS = 3000

    def __init__(self, tasks: TaskSet, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tasks = tasks.child(self)
        self.setObjectName("customer-view")
        self.setAccessibleName(_("Customer display"))
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)  # green when paid
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.sale: Sale | None = None
        self.phase = "blank"
        self._done_key: tuple[str, str] | None = None  # the paid sale already thanked
        self._logo_path: str | None = None
        self.customer: Words = customer(ENGLISH)  # the customer's words (set_merchant)
        column = QVBoxLayout(self)
        column.setContentsMargins(24, 24, 24, 24)
        self.merchant = _big("customer-merchant", 22, bold=False)
        column.addWidget(self.merchant)
        self.logo = QLabel("")
        self.logo.setObjectName("customer-logo")
        self.logo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.logo.hide()
        column.addWidget(self.logo)
        self.top_filler = QWidget()  # with the filler below: the words centred, no code
        self.top_filler.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        column.addWidget(self.top_filler, 1)
        self.amount = _big("customer-amount", 40)
        column.addWidget(self.amount)
        self.qr = QrWidget(minimum=200)
        self.qr.setObjectName("customer-qr")
        column.addWidget(self.qr, 1)
        self.words = _big("customer-state", 34)
        column.addWidget(self.words)
        self.filler = QWidget()  # keeps the words centred once the code is gone
        self.filler.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        column.addWidget(self.filler, 1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._next_phase)
        self.watermark = Watermark(self)
        self.set_test(True)
        self._show_blank()

    # -- who the merchant is ------------------------------------------------------------

    def _money(self, record: LinkRecord) -> str:
        """The amount as the customer's language writes it ("7,00 GBP" in French)."""
        return money_in(record.amount, record.currency, self.customer)

    def set_merchant(self, name: str, logo_path: str = "", language: str = ENGLISH) -> None:
        """The merchant's name, and its logo (a file, read off the GUI thread); the language
        the customer reads (the profile's customer language)."""
        if customer(language) is not self.customer:
            self.customer = customer(language)
            if self.phase == "sale":
                self.show_sale(self.sale)  # the sale on screen, said again in the new words
        self.merchant.setText(name)
        self.merchant.setAccessibleName(name)
        if logo_path != self._logo_path:
            self._logo_path = logo_path
            self.logo.clear()
            self.logo.hide()
            if logo_path:
                self.tasks.replace("logo", self._load_logo(logo_path))

    async def _load_logo(self, path: str) -> None:
        try:
            image = await asyncio.to_thread(_read_logo, path)
        except Exception:
            log.exception("the counter logo %s could not be read", path)
            image = None
        if path != self._logo_path:
            return
        if image is None:
            log.info("the counter logo %s is not an image PayDesk can read", path)
            return
        self.logo.setPixmap(QPixmap.fromImage(image))
        self.logo.setAccessibleName(_("Logo"))
        self.logo.show()

    def set_test(self, test: bool) -> None:
        self.watermark.setVisible(test)
        self.watermark.lower()

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.watermark.setGeometry(self.rect())
        self._scale()
        super().resizeEvent(event)

    def _scale(self) -> None:
        """Words as large as the view allows: read from across the counter, on a tablet's
        half screen as on a monitor."""
        width, height = max(1, self.width()), max(1, self.height())
        loud = self.phase in ("paid", "thanks")  # the words fill the screen
        for label, share_w, share_h in (
            (self.merchant, 22, 22),
            (self.amount, 9, 11),
            (self.words, 6 if loud else 15, 6 if loud else 13),
        ):
            font = label.font()
            font.setPixelSize(max(12, min(width // share_w, height // share_h)))
            label.setFont(font)
        side = max(120, min(width, height) // 2)
        self.qr.setMinimumSize(min(side, 200), min(side, 200))
        self._fit(width, height)

    def _fit(self, width: int, height: int) -> None:
        """Smaller words where, wrapped, they would not all fit the view's height (beside
        the amount box it is short): never drawn over each other, nor over the code."""
        layout = self.layout()
        for _attempt in range(12):
            if layout is None or layout.totalHeightForWidth(width) <= height:
                return
            smaller = False
            for label in (self.merchant, self.amount, self.words):
                font = label.font()
                if font.pixelSize() > 12:
                    font.setPixelSize(max(12, font.pixelSize() * 9 // 10))
                    label.setFont(font)
                    smaller = True
            if not smaller:
                return

    # -- the sale ---------------------------------------------------------------------

    def show_sale(self, sale: Sale | None, *, news: bool = True) -> None:
        """Show ``sale`` (None: blank for the next customer). Only what a customer may see
        is taken from it: the amount, the code, the state. ``news=False``: a view opened
        now, on a sale paid before (its customer was thanked then): blank."""
        if not news and sale is not None and sale.kind == PAID:
            self._done_key = sale.key
        if sale is None:
            self.sale = None
            self._timer.stop()
            self._show_blank()
            return
        if self.phase in ("paid", "thanks") and self.sale is not None and self.sale.key == sale.key:
            self.sale = sale  # thanking already: the sequence runs on
            return
        self.sale = sale
        record = sale.record
        if sale.kind == PAID:
            if sale.key == self._done_key:
                self._show_blank()  # thanked already: blank for the next customer
            else:
                self._start_paid()
            return
        self._timer.stop()
        if sale.voided or record is None:
            self._show_blank()  # a voided sale is no longer shown; an unsent one never was
            return
        self.phase = "sale"
        self._paint("")
        self.amount.setText(self._money(record))
        self.amount.setAccessibleName(self.customer.gettext("Amount {amount}").format(amount=self._money(record)))
        shown = state_words(record, self.customer)
        payable = not record.final and bool(record.checkout_url)
        self.qr.set_text(record.checkout_url if payable else None)
        self._code_shown(payable)
        words = self.customer.gettext(WAIT_WORDS) if record.state == "creating" else shown.words
        self._say(words, shown.colour)

    def _start_paid(self) -> None:
        self.phase = "paid"
        self._done_key = self.sale.key if self.sale is not None else None
        self._paint(GREEN)
        self.qr.set_text(None)  # the code is gone: nobody scans a paid code
        self._code_shown(False)
        record = self.sale.record if self.sale is not None else None
        self.amount.setText(self._money(record) if record is not None else "")
        amount = (
            self.customer.gettext("Amount {amount}").format(amount=self._money(record)) if record is not None else ""
        )
        self.amount.setAccessibleName(amount)
        self._say(self.customer.gettext(PAID_WORDS), "white", plain=True)
        self._timer.start(self.PAID_MS)

    def _next_phase(self) -> None:
        if self.phase == "paid":
            self.phase = "thanks"
            self.amount.setText("")
            self.amount.setAccessibleName("")
            self._say(self.customer.gettext(THANKS_WORDS), "white", plain=True)
            self._timer.start(self.THANKS_MS)
        elif self.phase == "thanks":
            self._show_blank()

    def _show_blank(self) -> None:
        self.phase = "blank"
        self._paint("")
        self.amount.setText("")
        self.amount.setAccessibleName("")
        self.qr.set_text(None)
        self._code_shown(False)
        self._say("", "")

    def _code_shown(self, shown: bool) -> None:
        self.qr.setVisible(shown)
        self.filler.setVisible(not shown)
        self.top_filler.setVisible(not shown)
        self._scale()

    def _paint(self, colour: str) -> None:
        """The whole view's background (green when paid), its text white on it."""
        text = "color: white;" if colour else ""
        self.setStyleSheet(
            f"#customer-view {{ background: {colour}; }} #customer-view QLabel {{ {text} }}" if colour else ""
        )

    def _say(self, words: str, colour: str, *, plain: bool = False) -> None:
        self.words.setText(words)
        self.words.setAccessibleName(self.customer.gettext("State: {state}").format(state=words) if words else "")
        if not words:
            self.words.setStyleSheet("")
        elif plain:
            self.words.setStyleSheet(f"color: {colour};")
        else:
            self.words.setStyleSheet(f"color: white; background: {colour}; border-radius: 8px; padding: 8px 16px;")


class CustomerDisplay(QWidget):
    """The customer's own window: full screen on the chosen monitor, holding a
    ``CustomerView``. It does not close by itself (not by Escape nor by the window's close
    button); the staff's screen closes it (``shut``). It never takes the keyboard: shown
    without being activated and refusing the focus, so the staff's keys keep going to the
    Counter tab."""

    TITLE = N_("PayDesk customer display")

    def __init__(self, tasks: TaskSet) -> None:
        super().__init__(None, Qt.WindowType.Window)
        self.setObjectName("customer-display")
        self.setWindowTitle(_(self.TITLE))
        self.setAccessibleName(_(self.TITLE))
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.setWindowFlag(Qt.WindowType.WindowDoesNotAcceptFocus)
        # above the other windows: the staff's, raised by a click, never covers the customer's
        self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.view = CustomerView(tasks, self)
        column.addWidget(self.view)
        self._shutting = False

    def show_on(self, screen: QScreen | None) -> None:
        """Full screen on ``screen`` (a QScreen; None: where it is). The window is put on
        that screen, at its whole geometry, before it is shown: a window manager makes a
        window full screen on the monitor the window is on when it is mapped."""
        if screen is not None:
            if self.isVisible() and self.screen() is not screen:
                self.hide()  # moved: shown again on the other monitor
            self.create()
            handle = self.windowHandle()
            if handle is not None:
                handle.setScreen(screen)
            self.setScreen(screen)
            self.setGeometry(screen.geometry())
        self.showFullScreen()

    def shut(self) -> None:
        """Closed from the staff's screen."""
        self._shutting = True
        try:
            self.close()
        finally:
            self._shutting = False

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._shutting or not self.isVisible():
            super().closeEvent(event)
        else:
            event.ignore()  # the customer cannot close it: the staff's screen does

    def keyPressEvent(self, event: QKeyEvent) -> None:
        event.accept()  # nothing typed here does anything (Escape included)
