"""Settings → Staff…, as a shop sets its staff up: the first person an Admin, signed in at
once; PINs typed twice; a role changed; a person removed; this computer's idle lock."""

from __future__ import annotations

import time

import pytest
from PySide6.QtWidgets import QApplication

from tests.ui import press
from tests.ui.layout_states.reach import shown_window
from tests.ui.staff.conftest import (
    ADMIN,
    ADMIN_PIN,
    COUNTER,
    COUNTER_PIN,
    add_person,
    added,
    back_to,
    open_staff,
    person_shown,
    settings_entries,
    sign_in,
    tab_titles,
)
from tests.ui.staff.test_sign_in import locked
from tests.ui.test_accessibility import _labels_named_otherwise, _unnamed_focusable


def listed(dialog) -> list[str]:
    return [dialog.people.item(i).text() for i in range(dialog.people.count())]


def choose_row(dialog, text: str) -> None:
    people = dialog.people
    row = listed(dialog).index(text)
    press.click(people.viewport(), pos=people.visualItemRect(people.item(row)).center())


def test_the_first_person_is_an_admin_signed_in_at_once(start_app, loop):
    app = start_app(sandbox=True)
    app.on_links_tab()
    window = app.window
    assert person_shown(app) == "" and not window.gate.lock_button.isVisible()  # no staff: as before
    dialog = open_staff(app, loop)
    assert dialog.windowTitle() == "Staff" and dialog.isWindow()
    assert "No staff are set up" in dialog.words.text() and listed(dialog) == []
    assert dialog.add_button.text() == "&Add the first Admin…"
    form = add_person(loop, dialog, ADMIN, "Admin", ADMIN_PIN, again="4321")
    assert form.windowTitle() == "Add the first Admin"
    assert [form.role.itemText(i) for i in range(form.role.count())] == ["Admin"]
    assert form.messages["again"].text() == "Not the same PIN: type it again" and form.messages["again"].isVisible()
    press.type_into(form.pin, "12")
    press.type_into(form.again, "12")
    press.click(form.action)
    assert form.messages["pin"].text() == "A PIN is 4 to 8 digits." and form.isVisible()
    assert _unnamed_focusable(form, at_least=3) == [] and _labels_named_otherwise(form) == []
    press.type_into(form.pin, ADMIN_PIN)
    press.type_into(form.again, ADMIN_PIN)
    press.click(form.action)
    loop.until(lambda: press.closed(form), message="Ana added")
    loop.until(lambda: listed(dialog) == ["Ana · Admin"], message="Ana listed")
    assert person_shown(app) == "Ana · Admin" and window.gate.lock_button.isVisible()
    assert dialog.message.text() == "Ana added."
    assert dialog.add_button.text() == "&Add person…"
    assert _unnamed_focusable(dialog, at_least=3) == [] and _labels_named_otherwise(dialog) == []
    names = [b.accessibleName() for b in (dialog.add_button, dialog.change_button, dialog.remove_button)]
    assert names == ["Add person", "Change", "Remove"]


def test_a_role_changed_and_a_person_removed(staffed, loop):
    app = staffed
    dialog = open_staff(app, loop)
    loop.until(lambda: listed(dialog) == ["Ana · Admin", "Bo · Counter"], message="the staff")
    choose_row(dialog, "Bo · Counter")
    press.click(dialog.change_button)
    form = shown_window(loop, "person-dialog")
    assert form.windowTitle() == "Change Bo" and form.name.text() == "Bo"
    press.choose(form.role, "Finance")
    press.click(form.action)  # an empty PIN keeps Bo's
    loop.until(lambda: press.closed(form), message="Bo changed")
    loop.until(lambda: "Bo · Finance" in listed(dialog), message="Bo a Finance")
    added(loop, dialog, "Cy", "Counter", "5555")
    choose_row(dialog, "Cy · Counter")
    press.click(dialog.remove_button)
    box = shown_window(loop, "confirm-remove-person")
    assert box.text() == "Remove Cy (Counter)?"
    press.click(press.button(box, "Remove"))
    loop.until(lambda: listed(dialog) == ["Ana · Admin", "Bo · Finance"], message="Cy removed")
    press.escape(dialog)
    back_to(app.window, loop)
    press.click(app.window.gate.lock_button)
    loop.until(lambda: locked(app), message="locked")
    screen = app.window.gate.screen
    loop.until(
        lambda: [screen.people.item(i).text() for i in range(screen.people.count())] == ["Ana · Admin", "Bo · Finance"],
        message="the sign-in screen's list",
    )
    sign_in(app, loop, COUNTER, COUNTER_PIN)
    loop.until(lambda: person_shown(app) == "Bo · Finance", message="Bo signed in")
    assert tab_titles(app) == ["Payment links", "Transactions"]
    assert settings_entries(app) == ["Language"]  # no Staff…, no Shared ledger…


def test_a_refusal_from_the_desk_is_one_sentence_in_the_dialog(staffed, loop):
    """Ana, an Admin, makes herself a Counter with the dialog open (another Admin, Dee, is
    kept), then asks to add a person: the desk refuses, said under the form's fields."""
    app = staffed
    dialog = open_staff(app, loop)
    added(loop, dialog, "Dee", "Admin", "7777")
    choose_row(dialog, "Ana · Admin")
    press.click(dialog.change_button)
    form = shown_window(loop, "person-dialog")
    press.choose(form.role, "Counter")
    press.click(form.action)
    loop.until(lambda: press.closed(form), message="Ana changed")
    loop.until(lambda: person_shown(app) == "Ana · Counter", message="the status bar says so")
    form = add_person(loop, dialog, "Eve", "Counter", "8888")
    loop.until(lambda: form.message.isVisible(), message="the refusal")
    assert form.message.text() == "Ana (Counter) may not use staff."
    assert "Traceback" not in form.message.text() and form.isVisible()


@pytest.mark.slow  # a minute's wait: the least idle lock there is
def test_the_idle_lock_set_in_the_dialog_locks_the_window(staffed, loop):
    app = staffed
    dialog = open_staff(app, loop)
    assert dialog.idle.value() == 5  # the default
    press.type_into(dialog.idle, "1")
    press.escape(dialog)
    back_to(app.window, loop)
    started = time.monotonic()
    loop.until(lambda: locked(app), timeout=75, message="locked after a minute without input")
    assert time.monotonic() - started >= 55
    assert QApplication.activeWindow() is app.window
