"""The layout audit's states of staff: Settings → Staff… at the first set-up and with
people, the person form with its messages, the window with "Ana · Counter" and Lock, the
locked window (the sign-in screen) with a wrong PIN's wait, and a locked one-screen
counter with the customer's view beside the sign-in box."""

from __future__ import annotations

from dataclasses import replace

from paydesk.ledger.staff import Role
from tests.ui import press
from tests.ui.counter.conftest import SHOP_EMAIL, Counter
from tests.ui.layout_states.reach import LONG_FIRST, messages_of, shown_window
from tests.ui.staff.conftest import added, back_to, open_staff, person_shown, sign_in
from tests.ui.staff.test_sign_in import locked

LONG_NAME = f"{LONG_FIRST} Wolfeschlegelsteinhausen"[:40]


def test_staff(app, loop, seen):
    window = app.window
    dialog = open_staff(app, loop)
    seen.look(dialog, "Staff, the first set-up")
    press.click(dialog.add_button)
    form = shown_window(loop, "person-dialog")
    seen.look(form, "Add the first Admin, empty")
    seen.steady(form, lambda: press.click(form.action), messages_of(form), "Add person's messages appear")
    seen.look(form, "Add the first Admin with its messages")
    press.escape(form)
    loop.until(lambda: press.closed(form), message="the form closed")
    added(loop, dialog, LONG_NAME, "Admin", "1234")
    added(loop, dialog, "Bo", "Counter", "2468")
    seen.look(dialog, "Staff with people")
    press.escape(dialog)
    back_to(window, loop)
    seen.look(window, "the window, an Admin signed in")
    # the counter's shop e-mail, set while an Admin (who may change profiles) is signed in
    loop.run(app.session.save_profile(replace(app.session.profile, shop_email=SHOP_EMAIL), {}))

    press.click(window.gate.lock_button)
    loop.until(lambda: locked(app), message="locked")
    seen.look(window, "the locked window, the sign-in screen")
    screen = window.gate.screen
    for _ in range(4):
        sign_in(app, loop, "Bo", "0000")
        loop.until(lambda: screen.message.isVisible() and not screen.pin.text(), message="said wrong")
    loop.until(lambda: not screen.pin.isEnabled(), message="the wait")
    seen.look(window, "the sign-in screen, a wrong PIN's wait")
    loop.until(lambda: screen.pin.isEnabled(), timeout=10, message="the wait over")

    sign_in(app, loop, "Bo", "2468")
    loop.until(lambda: person_shown(app) == f"Bo · {Role.COUNTER.title}", message="Bo signed in")
    counter = Counter(app, loop)
    loop.until(lambda: counter.tab.isVisible() and counter.tab.loaded, message="the Counter tab")
    seen.look(window, "the Counter tab, a Counter signed in")
    press.click(counter.tab.place.toggle)
    counter.sell("12")
    press.click(window.gate.lock_button)
    loop.until(lambda: locked(app), message="locked")
    seen.look(window, "a locked one-screen counter, the customer's view beside the sign-in box")
