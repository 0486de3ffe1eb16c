"""Where the customer looks: *Customer display on:* (a monitor, by name, or this screen
beside the amount box) and the *Open/Close customer display* button. It owns both views:
the full-screen ``CustomerDisplay`` window (made on first use) and the ``CustomerView``
embedded beside the amount box, and gives each the sale on screen."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QGuiApplication, QScreen, QShowEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QWidget

from ...desk.tasks import TaskSet
from ...i18n import ENGLISH, N_, _
from ...ledger.counter import Sale
from .display import CustomerDisplay, CustomerView
from .monitors import labels, monitor_key

THIS_SCREEN = N_("This screen, beside the amount box")
OPEN, CLOSE = N_("Open customer display"), N_("Close customer display")


class ScreenChoice(QComboBox):
    """The screens to choose from: each name whole where the row has room; where it has not
    (a narrow screen, a longer language), the chosen one cut, whole in its tooltip."""

    SHORTEST = 16  # characters shown at the least

    def __init__(self) -> None:
        super().__init__()
        self.currentIndexChanged.connect(lambda _index: self.setToolTip(self.currentText()))

    def minimumSizeHint(self) -> QSize:
        whole = super().minimumSizeHint()  # as wide as the widest choice (AdjustToContents)
        metrics = self.fontMetrics()
        widest = max((metrics.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0)
        least = metrics.horizontalAdvance("x" * self.SHORTEST)
        return QSize(whole.width() - max(0, widest - least), whole.height())


class DisplayPlace(QWidget):
    chosen = Signal(str)  # the screen chosen by name ("": this screen), to remember
    besideShown = Signal(bool)  # the customer's view shown (or hidden) beside the amount box

    def __init__(self, tasks: TaskSet) -> None:
        super().__init__()
        self.tasks = tasks
        self.setObjectName("counter-display-place")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        caption = QLabel(_("Customer display on:"))
        row.addWidget(caption)
        self.screens = ScreenChoice()
        self.screens.setObjectName("customer-display-screen")
        self.screens.setAccessibleName(_("Customer display on"))
        caption.setBuddy(self.screens)
        self.screens.activated.connect(self._chosen)
        row.addWidget(self.screens)
        self.toggle = QPushButton(_(OPEN))
        self.toggle.setObjectName("customer-display-toggle")
        self.toggle.setAccessibleName(_(OPEN))
        self.toggle.clicked.connect(self._toggle)
        self._same_width()
        row.addWidget(self.toggle)
        row.addStretch(1)
        self.beside = CustomerView(tasks)  # placed by the tab, beside the amount box
        self.beside.hide()
        self.display: CustomerDisplay | None = None
        self.is_open = False
        self.sale: Sale | None = None
        self._merchant = ("", "", ENGLISH)
        self._test = True
        self.fill("")
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):  # a monitor plugged in or out: the choices follow
            app.screenAdded.connect(self._screens_changed)
            app.screenRemoved.connect(self._screen_removed)

    # -- the choice -------------------------------------------------------------------

    def fill(self, remembered: str, gone: QScreen | None = None) -> None:
        """The other screens there are now (never the staff's own: a full-screen display
        there would cover the till; nor ``gone``, a screen being unplugged), and
        ``remembered`` chosen (by name) when it is one of them; else this screen."""
        self.screens.clear()
        staff = self._staff_screen()
        screens = QGuiApplication.screens()
        for screen, label in zip(screens, labels(screens), strict=True):
            if screen is not staff and screen is not gone:
                self.screens.addItem(label, monitor_key(screen, screens))
        self.screens.addItem(_(THIS_SCREEN), "")
        index = self.screens.findData(remembered) if remembered else -1
        self.screens.setCurrentIndex(index if index >= 0 else self.screens.count() - 1)

    def _staff_screen(self) -> QScreen | None:
        """The screen the staff's window is on (the primary one before it is placed)."""
        window = self.window()
        return window.screen() if window is not self else QGuiApplication.primaryScreen()

    def _screens_changed(self, *_: object) -> None:
        self.fill(self.screens.currentData() or "")

    def _screen_removed(self, screen: QScreen) -> None:
        """A monitor unplugged. When the customer's display was on it, the customer's view
        comes beside the amount box: never a full-screen window left on the staff's screen
        (Qt moves a removed screen's windows to another one)."""
        chosen = self.screens.currentData() or ""
        on_it = self.display is not None and self.display.isVisible() and self.display.screen() is screen
        self.fill(chosen, gone=screen)
        if on_it and not self.here:  # (the chosen key now names another screen)
            self.screens.setCurrentIndex(self.screens.count() - 1)
        if self.display is not None and (on_it or self.here):
            self.display.shut()
        if self.is_open:
            self._show_views()

    def showEvent(self, event: QShowEvent) -> None:
        """Placed in the staff's window (or moved with it): the staff's screen is not offered."""
        self._screens_changed()
        super().showEvent(event)

    @property
    def here(self) -> bool:
        """The customer's view is beside the amount box (not a window of its own)."""
        return not self.screens.currentData()

    def _screen(self) -> QScreen | None:
        key = self.screens.currentData()
        screens = QGuiApplication.screens()
        return next((s for s in screens if monitor_key(s, screens) == key), None)

    def _chosen(self, _index: int) -> None:
        if self.is_open:  # moved to where it was asked for
            self._hide_views()
            self._show_views()
        self.chosen.emit(self.screens.currentData() or "")

    # -- open and close ---------------------------------------------------------------

    def _toggle(self) -> None:
        if self.is_open:
            self.close_display()
        else:
            self.open_display()

    def open_display(self) -> None:
        self.is_open = True
        self._show_views()
        self._say()

    def close_display(self) -> None:
        self.is_open = False
        self._hide_views()
        self._say()

    def _show_views(self) -> None:
        if self.here:
            self.beside.show()
            self.besideShown.emit(True)
            return
        if self.display is None:
            self.display = CustomerDisplay(self.tasks)
            self._dress(self.display.view)
            self.display.view.show_sale(self.sale, news=False)
        self.display.show_on(self._screen())
        staff = self.window()
        if staff is not self:  # the keyboard stays with the staff
            staff.activateWindow()

    def _hide_views(self) -> None:
        self.beside.hide()
        self.besideShown.emit(False)
        if self.display is not None:
            self.display.shut()

    def _say(self) -> None:
        text = _(CLOSE if self.is_open else OPEN)
        self.toggle.setText(text)
        self.toggle.setAccessibleName(text)
        self._same_width()

    def _same_width(self) -> None:
        """The toggle as wide saying Open as Close: the row, and the window, keep their
        width when the customer's view is shown."""
        metrics = self.toggle.fontMetrics()  # as QPushButton measures its text

        def width(text: str) -> int:
            return metrics.size(Qt.TextFlag.TextShowMnemonic, text).width()

        widest = max(width(_(OPEN)), width(_(CLOSE)))
        self.toggle.setMinimumWidth(self.toggle.sizeHint().width() + widest - width(self.toggle.text()))

    @property
    def views(self) -> list[CustomerView]:
        return [self.beside] + ([self.display.view] if self.display is not None else [])

    # -- what they show ---------------------------------------------------------------

    def show_sale(self, sale: Sale | None) -> None:
        self.sale = sale
        for view in self.views:
            view.show_sale(sale)

    def set_merchant(self, name: str, logo: str, language: str) -> None:
        """Who the customer pays, and the language they read (the profile's customer language)."""
        self._merchant = (name, logo, language)
        for view in self.views:
            view.set_merchant(name, logo, language)

    def set_test(self, test: bool) -> None:
        self._test = test
        for view in self.views:
            view.set_test(test)

    def _dress(self, view: CustomerView) -> None:
        view.set_merchant(*self._merchant)
        view.set_test(self._test)

    def shut(self) -> None:
        """The staff's window is going: the customer's goes with it."""
        if self.display is not None:
            self.display.shut()
            self.display.deleteLater()
            self.display = None
        self.is_open = False
