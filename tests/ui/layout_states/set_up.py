"""The layout audit's states of the set-up dialogs (issue 29 item 9): Settings → Shared
ledger… empty, with an address, after Test connection with each answer a real PostgreSQL
gives (tests/postgres.py) and with the desk name's messages; the start dialog for a shared
ledger that cannot be opened, for each reason; the profile editor after Check keys with
each kind of answer beside each key, under long names; and the main window at its least
width with a link's code and a counter sale on screen."""

from __future__ import annotations

from paydesk.ui.field_message import ERROR_STYLE, OK_STYLE, WARN_STYLE
from tests.ui import press
from tests.ui.layout_states.reach import (
    LONG_DESK,
    LONG_PROFILE,
    LONG_TITLE,
    answers,
    counter_tab,
    create_link,
    least_size,
    least_width,
    messages_of,
    open_editor,
    open_shared_ledger,
    press_test_connection,
    problem_answers,
    quit_problem,
    start_problem,
    wait_over,
)

# the answers also looked at with the dialog made as small as it goes
LEAST_SIZE_TOO = ("connected to an empty database", "a wrong password", "not let in", "the password in the address")


def test_shared_ledger_dialog(app, loop, seen, ledgers):
    dialog = open_shared_ledger(app, loop)
    seen.look(dialog, "Shared ledger, empty")
    said = [*messages_of(dialog), dialog.status]
    for state, url, password, field in answers(ledgers):
        press.type_into(dialog.url, url)
        press.type_into(dialog.password.edit, password)
        seen.look(dialog, f"Shared ledger, {state}: the address typed")
        seen.steady(
            dialog, lambda: press_test_connection(loop, dialog), said, f"Test connection's answer appears: {state}"
        )
        shown = dialog.password_message if field == "password" else dialog.url_message
        assert shown.isVisible() and shown.text(), f"{state}: nothing said"
        seen.look(dialog, f"Shared ledger after Test connection, {state}")
        if state in LEAST_SIZE_TOO:
            opened = dialog.size()
            least_size(dialog)
            seen.look(dialog, f"Shared ledger at its least size, {state}")
            dialog.resize(opened)
    # the desk's name: each of its messages
    for state, typed in (("a name too long", "N" * 41), ("renamed", LONG_DESK)):
        press.type_into(dialog.desk_name, typed)
        seen.steady(
            dialog,
            lambda: loop.run(press.click_starting(dialog.rename_button, "rename desk")),
            said,
            f"Rename desk's message appears: {state}",
        )
        assert dialog.desk_name_message.isVisible()
        seen.look(dialog, f"Shared ledger, the desk's name {state}")
    press.click(dialog.cancel_button)
    # the counter goes by the desk's long name
    counter = counter_tab(app, loop)
    seen.look(app.window, "the Counter tab, the desk's long name")
    # an open counter shift with sales keeps the desk's name
    counter.sell("25")
    dialog = open_shared_ledger(app, loop)
    press.type_into(dialog.desk_name, "Till by the door")
    loop.run(press.click_starting(dialog.rename_button, "rename desk"))
    refusal = dialog.desk_name_message  # said in red beside the name
    assert refusal.isVisible() and refusal.text() and refusal.styleSheet() == ERROR_STYLE, refusal.text()
    seen.look(dialog, "Shared ledger, the desk's name refused while a shift has sales")
    press.click(dialog.cancel_button)


def test_the_start_dialog_for_each_reason(loop, qapp, paths, keys, seen, ledgers):
    for state, url, typed in problem_answers(ledgers):
        task, dialog = start_problem(loop, qapp, paths, keys, url)
        seen.look(dialog, f"the start dialog, {state}")
        opened = dialog.size()
        least_size(dialog)
        seen.look(dialog, f"the start dialog at its least size, {state}")
        dialog.resize(opened)
        if typed is not None:  # the password asked for: a wrong one typed, refused beside it
            assert dialog.password.isVisible() and dialog.connect_button.isVisible()
            press.type_into(dialog.password, typed)
            seen.steady(
                dialog,
                lambda dialog=dialog: (
                    press.click(dialog.connect_button),
                    loop.until(dialog.password_message.isVisible, 15, message="the refusal"),
                ),
                messages_of(dialog),
                f"the start dialog's refusal appears: {state}",
            )
            seen.look(dialog, f"the start dialog, {state}, a wrong password typed")
        quit_problem(loop, task, dialog)


def test_profile_editor_after_check_keys_with_each_answer(app, loop, seen):
    from tests.helpers import set_faults

    editor = open_editor(app, loop)
    press.type_into(editor.name, LONG_PROFILE)
    press.type_into(editor.merchant, LONG_PROFILE)
    keys = {key: field.text() for key, field in editor.key_fields.items()}
    fields = editor.key_fields
    said = messages_of(editor) + [editor.status]

    def check_keys():
        press.click(editor.check_button)
        wait_over(loop, editor)

    seen.steady(editor, check_keys, said, "Check keys: every key works, long names")
    assert all(m.styleSheet() == OK_STYLE for m in editor.key_messages.values())  # each said in green
    seen.look(editor, "the profile editor after Check keys, every key works, long names")
    # refused: a secret key as the public one, a key the service does not know, a test key
    # as a live one
    press.type_into(fields[("test", "public")].edit, keys[("test", "secret")])
    press.type_into(fields[("live", "secret")].edit, "sec-live-" + "Z" * 32)
    press.type_into(fields[("live", "public")].edit, keys[("test", "public")])
    seen.steady(editor, check_keys, said, "Check keys: keys refused")
    seen.look(editor, "the profile editor after Check keys, keys refused")
    opened = editor.size()
    least_size(editor)
    seen.look(editor, "the profile editor at its least size, keys refused")
    editor.resize(opened)
    # could not check: the service fails every live call
    for key in (("test", "public"), ("live", "secret"), ("live", "public")):
        press.type_into(fields[key].edit, keys[key])
    set_faults(app.session.profile.base_url, keys[("live", "secret")], error_rate=1.0)
    try:
        seen.steady(editor, check_keys, said, "Check keys: live keys could not be checked")
    finally:
        set_faults(app.session.profile.base_url, keys[("live", "secret")])
    for key in (("live", "secret"), ("live", "public")):  # not checked: said, not "Works"
        said_now = editor.key_messages[key]
        assert said_now.isVisible() and said_now.styleSheet() == WARN_STYLE, said_now.text()
    seen.look(editor, "the profile editor after Check keys, live keys not checked")
    press.click(editor.cancel_button)


def test_main_window_at_its_least_width(app, loop, seen):
    window = app.window
    least_width(window)
    seen.look(window, "the main window at its least width")
    create_link(app, loop, title=LONG_TITLE)
    loop.until(lambda: window.links_tab.panel.record is not None, message="the link shown")
    seen.look(window, "the main window at its least width, a link's code")
    counter = counter_tab(app, loop)
    seen.look(window, "the main window at its least width, the Counter tab")
    press.type_into(counter.tab.note, LONG_TITLE)
    counter.sell("25")
    seen.look(window, "the main window at its least width, a counter sale")
    press.click(counter.tab.place.toggle)
    seen.look(window, "the main window at its least width, the customer's view beside")
