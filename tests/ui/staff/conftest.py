"""PayDesk on its embedded sandbox with staff set up as a shop sets them up: Settings →
Staff…, the first Admin (signed in at once), then a Counter; and the sign-in screen used
as a person uses it (a name clicked in the list, the PIN typed, Enter)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from paydesk.i18n import _
from paydesk.ui.widgets import shown_label
from tests.ui import press
from tests.ui.layout_states.reach import menu, shown_window

ADMIN, ADMIN_PIN = "Ana", "1234"
COUNTER, COUNTER_PIN = "Bo", "2468"
FINANCE, FINANCE_PIN = "Cy", "3579"


def open_staff(app, loop):
    """Settings → Staff…, clicked: the dialog, its list read."""
    window = app.window
    menu(app, loop, window.settings_menu, window.staff_action)
    dialog = shown_window(loop, "staff-dialog")
    loop.until(lambda: dialog.add_button.isEnabled() and dialog.people.count() >= 0, message="the staff")
    return dialog


def add_person(loop, dialog, name: str, role: str, pin: str, again: str | None = None):
    """Add person… (or Add the first Admin…) pressed, the form filled, Add person pressed:
    the person dialog, for the test to see what it says (closed when it was added)."""
    press.click(dialog.add_button)
    form = shown_window(loop, "person-dialog")
    press.type_into(form.name, name)
    role = _(role)  # as the form names it, in the staff's language (the audit's pseudo-language)
    if form.role.currentText() != role:
        press.choose(form.role, role)
    press.type_into(form.pin, pin)
    press.type_into(form.again, pin if again is None else again)
    press.click(form.action)
    return form


def added(loop, dialog, name: str, role: str, pin: str) -> None:
    count = dialog.people.count()
    form = add_person(loop, dialog, name, role, pin)
    loop.until(lambda: press.closed(form), message=f"{name} added")
    loop.until(lambda: dialog.people.count() == count + 1, message=f"{name} listed")


def sign_in(app, loop, name: str, pin: str) -> None:
    """On the sign-in screen: the person's name clicked in the list, the PIN typed, Enter."""
    screen = app.window.gate.screen
    loop.until(lambda: screen.isVisible() and screen.people.count() > 0, message="the sign-in screen's list")
    people = screen.people
    rows = [people.item(i).text() for i in range(people.count())]
    row = next((i for i, text in enumerate(rows) if text.startswith(f"{name} · ")), None)
    assert row is not None, f"{name} is not listed: {rows}"
    press.click(people.viewport(), pos=people.visualItemRect(people.item(row)).center())
    press.type_into(screen.pin, pin)
    press.enter(screen.pin)


def person_shown(app) -> str:
    """What the status bar says of who is signed in ("" when it says nothing)."""
    who = app.window.gate.who
    return who.text() if who.isVisible() else ""


def settings_entries(app) -> list[str]:
    """The entries the Settings menu shows (its title hidden: none)."""
    menu = app.window.settings_menu
    if not menu.menuAction().isVisible():
        return []
    return [shown_label(a.text()) for a in menu.actions() if a.isVisible() and not a.isSeparator()]


def tab_titles(app) -> list[str]:
    """The tabs a person sees (their titles in the tab bar)."""
    tabs = app.window.tabs
    return [tabs.tabText(i) for i in range(tabs.count()) if tabs.isTabVisible(i)]


@pytest.fixture
def staffed(start_app, loop):
    """PayDesk with Ana (Admin, signed in) and Bo (Counter) set up through Settings → Staff…,
    the dialog closed again."""
    app = start_app(sandbox=True)
    app.on_links_tab()
    dialog = open_staff(app, loop)
    added(loop, dialog, ADMIN, "Admin", ADMIN_PIN)
    loop.until(lambda: person_shown(app) == "Ana · Admin", message="Ana signed in")
    added(loop, dialog, COUNTER, "Counter", COUNTER_PIN)
    press.escape(dialog)
    loop.until(lambda: press.closed(dialog), message="the staff dialog closed")
    back_to(app.window, loop)
    return app


def back_to(window, loop) -> None:
    """The window active again once a dialog over it has closed: the window system does it;
    the offscreen platform has none (as press.choose says), and the test waits for it."""
    window.activateWindow()
    loop.until(lambda: QApplication.activeWindow() is window, message="the window active again")
