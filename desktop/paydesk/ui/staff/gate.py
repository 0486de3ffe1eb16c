"""The main window's door when staff are set up: the sign-in screen over its content while
nobody is signed in, "Ana · Counter" and *Lock* in the status bar while someone is, the
idle lock, and what the person may see (rights.py), refreshed on every change of person.

Locking hides the content (amounts, references): the window's page is the sign-in screen,
its toolbar, menus and keys are out of reach, and PayDesk's other windows (Notifications,
Counter shifts, Bulk links, a dialog open) are hidden until someone signs in again: shown
again to the same person, closed when another signs in. The customer display is not one of
them: it keeps showing what it showed. The shift stays open whoever signs in.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication, QBoxLayout, QDialog, QStackedWidget, QWidget

from ...desk.staff import Person
from ...i18n import _
from ..elided import ElidedLabel
from ..widgets import button
from . import StaffWindow
from .idle import IdleWatch
from .rights import apply_rights
from .screen import SignInScreen


class StaffGate(QObject):
    def __init__(self, window: StaffWindow) -> None:
        super().__init__(window)
        self.window = window
        self.sign_in = window.desk.sign_in
        self.staff = window.session.staff
        self.tasks = window.tasks
        content = window.takeCentralWidget()
        assert content is not None  # the window's tabs and banners, made before the gate
        self.content: QWidget = content
        self.stack = QStackedWidget()
        self.stack.setObjectName("window-pages")
        self.stack.addWidget(self.content)
        self.screen = SignInScreen(self.sign_in, self.tasks)
        self.stack.addWidget(self.screen)
        window.setCentralWidget(self.stack)
        self.who = ElidedLabel("")  # a long name never widens the window
        self.who.setObjectName("status-person")
        self.lock_button = button(_("&Lock"), "lock-button")
        self.lock_button.setToolTip(_("Lock PayDesk until someone signs in (Ctrl+L)"))
        self.lock_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.lock_button.clicked.connect(self.lock)
        window.status.addPermanentWidget(self.who)
        window.status.addPermanentWidget(self.lock_button)
        self.idle = IdleWatch(self, self._idle_minutes, self._signed_in, self.lock)
        self._hidden: list[QWidget] = []  # PayDesk's windows hidden by the lock
        self._last: Person | None = None  # who was signed in last at this desk
        self._locked: bool | None = None
        self._customer: tuple[QWidget, QBoxLayout, int, int] | None = None  # a view lent to the screen
        self.staff.on_change(self._heard)
        self.refresh()

    # -- state to screen -------------------------------------------------------------------

    def _heard(self, person: Person | None) -> None:
        """The desk's word on a change of person (a listener it keeps: harmless once the
        window has gone)."""
        if shiboken6.isValid(self) and shiboken6.isValid(self.window):
            self.refresh()

    @property
    def locked(self) -> bool:
        return self.staff.set_up and self.staff.person is None

    def refresh(self) -> None:
        person, locked = self.staff.person, self.locked
        changed = locked != self._locked
        if changed and locked:  # what is on screen now, before the rights hide the tabs
            self._hide_windows()
            self._lend_customer_view()
        if person is not None and self._last is not None and person.id != self._last.id:
            self._drop_hidden()  # another person: what the last one had open goes
        if person is not None:
            self._last = person
            self._show_hidden()
        shown = person is not None and self.staff.set_up
        self.idle.watch(shown)
        self.who.setText(person.label if person is not None else "")
        self.who.setAccessibleName(person.label if person is not None else "")
        self.who.setVisible(shown)
        self.lock_button.setVisible(shown)
        apply_rights(self.window, self.staff)  # before the focus: a tab hidden moves it
        if changed:
            self._show_locked(locked)
        if not locked and self._locked is not None and person is not None:
            self.window.focus_tab()
        self._locked = locked

    def _show_locked(self, locked: bool) -> None:
        window = self.window
        if locked:
            self.screen.set_locked(self._last is not None)
            self.screen.act = self.sign_in.switch if self._last is not None else self.sign_in.sign_in
            self.stack.setCurrentWidget(self.screen)
            self.screen.focus()  # the keyboard leaves the content at once, before the list
            self.tasks.replace("sign-in people", self._show_screen())
        else:
            self._take_back_customer_view()
            self.stack.setCurrentWidget(self.content)
        window.menuBar().setVisible(not locked)
        toolbar = window.findChild(QWidget, "toolbar")
        if toolbar is not None:
            toolbar.setVisible(not locked)
        window.status.setVisible(not locked)
        # the window's keys: nobody signed in may do nothing (rights.py hides every tab and
        # action then); Quit stays

    async def _show_screen(self) -> None:
        await self.screen.reload()
        if self.locked:
            self.screen.focus()

    # -- locking ---------------------------------------------------------------------------

    def lock(self) -> None:
        """Lock now (Lock, Ctrl+L, the idle minutes); nothing when nobody is signed in."""
        if self.staff.set_up and self.staff.person is not None:
            self.sign_in.lock()

    def _signed_in(self) -> bool:
        return self.staff.set_up and self.staff.person is not None

    def _idle_minutes(self) -> float:
        return float(self.sign_in.idle_lock_minutes or 0)

    def _lend_customer_view(self) -> None:
        """A one-screen counter's customer view (beside the amount box, on show) goes to the
        sign-in screen while locked: what the customer sees does not change."""
        if "counter" not in self.window.built_tabs:
            return
        view = self.window.counter_tab.place.beside
        if not view.isVisible():
            return
        for layout in self.content.findChildren(QBoxLayout):
            index = layout.indexOf(view)
            if index >= 0:
                self._customer = (view, layout, index, layout.stretch(index))
                self.screen.hold(view)
                return

    def _take_back_customer_view(self) -> None:
        if self._customer is None:
            return
        view, layout, index, stretch = self._customer
        self._customer = None
        self.screen.released()
        if shiboken6.isValid(view) and shiboken6.isValid(layout):
            layout.insertWidget(index, view, stretch)
            view.show()

    def _hide_windows(self) -> None:
        """PayDesk's other windows out of sight, the customer display left as it is."""
        from ..counter.display import CustomerDisplay

        for widget in QApplication.topLevelWidgets():
            if widget is self.window or isinstance(widget, CustomerDisplay) or not widget.isVisible():
                continue
            if widget.windowType() in (Qt.WindowType.Popup, Qt.WindowType.ToolTip):
                widget.close()  # a menu or a list left open: gone, not given back
                continue
            widget.hide()
            self._hidden.append(widget)

    def _show_hidden(self) -> None:
        hidden, self._hidden = self._hidden, []
        for widget in hidden:
            if shiboken6.isValid(widget):
                widget.show()

    def _drop_hidden(self) -> None:
        """Another person signed in: the windows the last one had open are closed (a dialog
        answers Cancel), never shown to the next person."""
        hidden, self._hidden = self._hidden, []
        for widget in hidden:
            if not shiboken6.isValid(widget):
                continue
            if isinstance(widget, QDialog):
                widget.reject()
            else:
                widget.close()

    def close(self) -> None:
        self.idle.stop()
