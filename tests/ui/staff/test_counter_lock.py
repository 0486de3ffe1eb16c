"""The lock at a counter: the customer keeps seeing their sale while the staff's screen is
locked, and another person signing in at the locked counter takes over its open shift."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from paydesk.ui.links.qr import QrWidget
from tests.ui import press
from tests.ui.counter.conftest import SHOP_EMAIL, Counter
from tests.ui.layout_states.reach import shown_window
from tests.ui.staff.conftest import ADMIN, ADMIN_PIN, COUNTER, COUNTER_PIN, person_shown, sign_in
from tests.ui.staff.test_sign_in import locked


def _counter_signed_in(app, loop) -> Counter:
    """Bo (Counter) signed in at the locked window: the Counter tab, the customer's view
    opened beside the amount box (one screen)."""
    loop.run(app.session.save_profile(replace(app.session.profile, shop_email=SHOP_EMAIL), {}))
    press.click(app.window.gate.lock_button)
    loop.until(lambda: locked(app), message="the window locked")
    sign_in(app, loop, COUNTER, COUNTER_PIN)
    loop.until(lambda: person_shown(app) == "Bo · Counter", message="Bo signed in")
    counter = Counter(app, loop)
    loop.until(lambda: counter.tab.isVisible() and counter.tab.loaded, message="the Counter tab")
    press.click(counter.tab.place.toggle)
    assert counter.view is counter.tab.place.beside and counter.view.isVisible()
    return counter


def _seen(view) -> list[str]:
    """What the customer's view shows: its words (as tests/ui/counter's texts_on_display)."""
    return [label.text() for label in view.findChildren(QLabel) if label.isVisibleTo(view) and label.text()]


def test_the_customers_view_is_untouched_by_the_lock(staffed, loop):
    app = staffed
    counter = _counter_signed_in(app, loop)
    counter.sell("4")
    loop.until(lambda: "WAITING FOR PAYMENT" in counter.texts_on_display(), message="the sale on the display")
    view = counter.view
    before, code = _seen(view), view.findChild(QrWidget)
    assert code is not None and code.isVisible()
    press.key(counter.tab.amount, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    loop.until(lambda: locked(app), message="the window locked")
    # the staff's side is gone (the amount box, the list of sales); the customer's is not
    assert not counter.tab.amount.isVisible() and not counter.tab.sales.isVisible()
    assert view.isVisible() and code.isVisible() and _seen(view) == before
    assert app.window.gate.screen.isAncestorOf(view)  # beside the sign-in box
    sign_in(app, loop, COUNTER, COUNTER_PIN)
    loop.until(lambda: not locked(app), message="Bo back")
    assert counter.view is view and view.isVisible() and _seen(view) == before
    assert counter.tab.amount.isVisible()


def test_another_person_at_a_locked_counter_keeps_its_shift_open(staffed, loop):
    app = staffed
    counter = _counter_signed_in(app, loop)
    counter.sell("6")
    press.click(app.window.gate.lock_button)
    loop.until(lambda: locked(app), message="the window locked")
    sign_in(app, loop, ADMIN, ADMIN_PIN)
    loop.until(lambda: person_shown(app) == "Ana · Admin", message="Ana signed in at the counter")
    press.tab(app.window.tabs, "Counter")
    press.click(counter.tab.close_shift_button)
    box = shown_window(loop, "confirm-close-shift")
    told = " ".join(box.informativeText().split())
    assert "Sales made: 1" in told, told  # Bo's sale: the same shift, still open
    press.click(press.button(box, "Cancel"))
