"""Every dialog of PayDesk (besides the card dialogs: tests/ui/cards/test_dialogs.py) as a
user meets it: a window with a title, its buttons on screen and named by their verb, Enter
pressing the default action, Escape cancelling."""

import sys

from PySide6.QtWidgets import QPushButton

from paydesk.ui.crash import ExceptionHook
from paydesk.ui.profile_editor import ProfileEditor
from tests.ui import press
from tests.ui.test_modes import _confirm_box


def buttons_on_screen(dialog):
    return [b.text() for b in dialog.findChildren(QPushButton) if b.isVisible()]


def test_the_profile_editor_saves_with_enter_and_cancels_with_escape(session, loop, sandbox, qtbot):
    editor = ProfileEditor(session)
    qtbot.addWidget(editor)
    editor.show()
    assert editor.isWindow() and editor.windowTitle() == "Connect to your service"
    assert {"Check keys", "Save", "Cancel"} <= set(buttons_on_screen(editor))
    press.type_into(editor.name, "Corner")
    press.type_into(editor.url, sandbox.base_url)
    press.type_into(editor.key_fields[("test", "secret")].edit, sandbox.key("test"))
    press.enter(editor.key_fields[("test", "secret")].edit)  # Enter in the field typed last: Save
    loop.until(lambda: press.closed(editor), timeout=30, message="saved with Enter")
    assert session.profile is not None and session.profile.name == "Corner"

    again = ProfileEditor(session, session.profile)
    qtbot.addWidget(again)
    again.show()
    press.type_into(again.name, "Renamed")
    press.escape(again.name)
    loop.until(lambda: press.closed(again), message="cancelled with Escape")
    assert session.profile.name == "Corner"


def test_going_live_asks_and_escape_stays_in_test(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    task = press.click_starting(app.window.mode_button, "mode")
    loop.until(lambda: _confirm_box() is not None, message="the confirmation")
    box = _confirm_box()
    assert box.windowTitle() == "Switch to live mode?"
    assert set(buttons_on_screen(box)) == {"Switch to live", "Stay in test"}
    press.escape(box)
    assert loop.run(task) is False and app.session.mode == "test"
    task = press.click_starting(app.window.mode_button, "mode")
    loop.until(lambda: _confirm_box() is not None, message="the confirmation again")
    press.enter(_confirm_box())  # Enter takes the safe answer, the default
    assert loop.run(task) is False and app.session.mode == "test"
    app.close()


def test_first_run_enter_tries_the_sandbox(start_app, loop):
    app = start_app()
    loop.until(lambda: press.shown("first-run") is not None, message="first run")
    dialog = press.shown("first-run")
    assert dialog.windowTitle() == "Welcome to PayDesk"
    assert buttons_on_screen(dialog) == ["Try the sandbox", "Connect to your service"]
    press.enter(dialog)
    app.wait_started()
    assert app.session.profile is not None and app.session.profile.embedded_sandbox
    app.close()


def test_end_of_day_closes_with_escape(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    press.tab(app.window.tabs, "Transactions")
    press.click(app.window.transactions_tab.end_of_day)
    loop.until(lambda: press.shown("end-of-day") is not None, message="End of day")
    dialog = press.shown("end-of-day")
    assert dialog.windowTitle() == "End of day"
    assert buttons_on_screen(dialog) == ["Export CSV…", "Print…", "Close"]
    press.escape(dialog)
    loop.until(lambda: press.closed(dialog), message="closed with Escape")
    app.close()


def test_the_crash_dialog_closes_with_enter(qapp, qtbot, tmp_path):
    hook = ExceptionHook(tmp_path / "paydesk.log")
    try:
        raise ValueError("something unexpected")
    except ValueError:
        hook(*sys.exc_info())
    dialog = hook.dialogs[-1]
    qtbot.addWidget(dialog)
    assert dialog.windowTitle() == "PayDesk hit an unexpected problem"
    assert buttons_on_screen(dialog) == ["Copy report", "Close"]
    press.enter(dialog)  # the keyboard is the dialog's (the report is read, not typed into)
    assert press.closed(dialog)
