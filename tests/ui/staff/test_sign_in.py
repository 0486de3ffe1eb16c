"""Signing in, locking and switching person at PayDesk's window, as staff do it."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from tests.ui import press
from tests.ui.layout_states.reach import menu, shown_window
from tests.ui.staff.conftest import (
    ADMIN,
    ADMIN_PIN,
    COUNTER,
    COUNTER_PIN,
    back_to,
    person_shown,
    settings_entries,
    sign_in,
    tab_titles,
)


def locked(app) -> bool:
    """What a person sees of a locked window: the sign-in screen, no tabs, no menus."""
    window = app.window
    return window.gate.screen.isVisible() and not window.tabs.isVisible() and not window.menuBar().isVisible()


def locked_screen(app, loop):
    """Lock pressed: the sign-in screen, once the window shows it."""
    press.click(app.window.gate.lock_button)
    loop.until(lambda: locked(app), message="the window locked")
    return app.window.gate.screen


def wrong_pin(app, loop, screen) -> None:
    """The Counter's PIN typed wrong, until the screen has said so (the field emptied)."""
    sign_in(app, loop, COUNTER, "0000")
    loop.until(lambda: screen.message.isVisible() and screen.pin.text() == "", message="said wrong")


def test_ctrl_l_locks_and_a_counter_signs_in_to_the_counter_tab_only(staffed, loop):
    app = staffed
    window = app.window
    assert tab_titles(app) == ["Payment links", "Transactions", "Cards", "Counter"]
    assert window.gate.lock_button.isVisible() and window.gate.lock_button.text().replace("&", "") == "Lock"
    press.key(window.focusWidget(), Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    loop.until(lambda: locked(app), message="the window locked")
    assert not window.links_tab.isVisible() and not window.statusBar().isVisible()
    assert window.gate.screen.title.text() == "PayDesk is locked"
    # the window's keys reach nothing behind the sign-in screen
    for key, modifiers in (
        (Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier),  # Transactions
        (Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier),  # Notifications
        (Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier),  # live mode
        (Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier),  # Edit profile
    ):
        press.key(QApplication.focusWidget(), key, modifiers)
        loop.run(asyncio.sleep(0.2))
        assert locked(app) and press.modal() is None
        assert press.shown("notifications-window") is None and not window.transactions_tab.isVisible()
    sign_in(app, loop, COUNTER, COUNTER_PIN)
    loop.until(lambda: person_shown(app) == "Bo · Counter", message="Bo signed in")
    assert not locked(app)
    assert tab_titles(app) == ["Counter"]
    assert window.tabs.currentWidget() is window.counter_tab and window.counter_tab.isVisible()
    assert not window.edit_profile.isVisible() and not window.mode_button.isVisible()
    assert not window.counter_tab.rename_button.isVisible() and window.counter_tab.close_shift_button.isVisible()
    assert settings_entries(app) == ["Language"]  # no Staff…, no Shared ledger…
    # Ctrl+3, the Cards tab's key, does not show it to a Counter
    press.key(window.focusWidget(), Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is window.counter_tab


def test_the_lock_button_locks_and_the_admin_gets_everything_back(staffed, loop):
    app = staffed
    locked_screen(app, loop)
    sign_in(app, loop, ADMIN, ADMIN_PIN)
    loop.until(lambda: person_shown(app) == "Ana · Admin", message="Ana signed in")
    assert tab_titles(app) == ["Payment links", "Transactions", "Cards", "Counter"]
    assert app.window.edit_profile.isVisible() and app.window.mode_button.isVisible()


def test_wrong_pins_bring_a_wait_counted_down_beside_the_pin(staffed, loop):
    app = staffed
    screen = locked_screen(app, loop)
    for _ in range(3):
        wrong_pin(app, loop, screen)
        assert screen.message.text() == "Wrong PIN. Try again."
        assert screen.pin.isEnabled()
    sign_in(app, loop, COUNTER, "0000")
    loop.until(lambda: not screen.pin.isEnabled(), message="the PIN field waits")
    assert screen.message.text() == "Wrong PIN. Try again in 2 seconds."
    loop.until(lambda: screen.pin.isEnabled(), timeout=6, message="the wait over")
    assert screen.message.text() == "Wrong PIN. Try again."
    sign_in(app, loop, COUNTER, COUNTER_PIN)
    loop.until(lambda: person_shown(app) == "Bo · Counter", message="Bo signed in")


def test_the_pin_field_comes_back_when_the_wait_ends_between_two_looks_at_the_clock(staffed, loop, monkeypatch):
    """On a loaded machine time moves on between any two looks at the clock, and a wait may
    end between the look that keeps the PIN field waiting and the one that decides whether
    to go on counting down (a fresh clone's run saw the field stay disabled, the wait over,
    "Try again in 1 second" under it). The field comes back all the same. The sign-in
    screen's clock is the one part replaced, by one that moves a second at every look: a
    real clock cannot be made to end a wait at that moment."""
    from paydesk.ui.staff import screen as screen_module

    app = staffed
    screen = locked_screen(app, loop)
    for _ in range(4):
        wrong_pin(app, loop, screen)
    loop.until(lambda: not screen.pin.isEnabled(), message="the PIN field waits")
    real, moved = time.monotonic, [0.0]

    def slow_clock() -> float:
        moved[0] += 1.0
        return real() + moved[0]

    monkeypatch.setattr(screen_module, "time", SimpleNamespace(monotonic=slow_clock))
    loop.until(lambda: screen.pin.isEnabled(), timeout=6, message="the wait over")
    assert screen.message.text() == "Wrong PIN. Try again."


def test_with_staff_set_up_paydesk_opens_on_the_sign_in_screen(staffed, start_app, loop):
    staffed.close()
    app = start_app(sandbox=True)
    app.wait_started()
    window = app.window
    assert locked(app) and window.gate.screen.title.text() == "Sign in"
    assert not window.findChild(QWidget, "toolbar").isVisible() and not window.statusBar().isVisible()
    sign_in(app, loop, COUNTER, COUNTER_PIN)
    loop.until(lambda: person_shown(app) == "Bo · Counter", message="Bo signed in")
    assert tab_titles(app) == ["Counter"] and window.counter_tab.isVisible()


def test_the_lock_hides_paydesks_other_windows_and_another_person_does_not_get_them(staffed, loop):
    app = staffed
    window = app.window
    menu(app, loop, window.view_menu, window.notifications_action)
    notifications = shown_window(loop, "notifications-window")
    back_to(window, loop)
    press.click(window.gate.lock_button)
    loop.until(lambda: locked(app), message="locked")
    assert not notifications.isVisible()  # its notifications' amounts and references too
    sign_in(app, loop, ADMIN, ADMIN_PIN)
    loop.until(lambda: person_shown(app) == "Ana · Admin", message="Ana back")
    assert notifications.isVisible()  # as she left it
    back_to(window, loop)
    press.click(window.gate.lock_button)
    loop.until(lambda: locked(app), message="locked again")
    sign_in(app, loop, COUNTER, COUNTER_PIN)
    loop.until(lambda: person_shown(app) == "Bo · Counter", message="Bo signed in")
    loop.run(asyncio.sleep(0.2))
    assert press.shown("notifications-window") is None
