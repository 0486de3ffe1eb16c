"""Test and live are one switch apart and never confused."""

from PySide6.QtWidgets import QApplication, QMessageBox

from paydesk.ui.main_window import TEST_BANNER
from tests.ui import press


def _confirm_box():
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, QMessageBox) and widget.objectName() == "confirm-live" and widget.isVisible():
            return widget
    return None


def _press(box, text):
    press.click(press.button(box, text))


def test_going_live_asks_and_says_what_live_means(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    window, session = app.window, app.session
    assert window.mode_button.text() == "Switch to live mode"

    task = press.click_starting(window.mode_button, "mode")
    loop.until(lambda: _confirm_box() is not None, message="the confirmation")
    box = _confirm_box()
    assert "real money" in box.informativeText() and "LIVE" in box.text()
    # the embedded sandbox's live mode is still the sandbox: the question says so
    assert "still the sandbox" in box.informativeText()
    _press(box, "Stay in test")
    loop.until(task.done, message="the answer")
    assert task.result() is False and session.mode == "test" and window.banner.isVisible()

    task = press.click_starting(window.mode_button, "mode")
    loop.until(lambda: _confirm_box() is not None, message="the confirmation")
    _press(_confirm_box(), "Switch to live")
    loop.until(task.done, message="the switch")
    assert session.mode == "live"
    assert not window.banner.isVisible()
    # live is unmistakable: a red strip where the test banner was
    assert window.live_banner.isVisible() and "LIVE MODE" in window.live_banner.text()
    assert "sandbox" in window.live_banner.text()
    assert "LIVE" in window.windowTitle() and "TEST" not in window.windowTitle()
    assert window.mode_button.text() == "Switch to test mode"
    assert window.where.text() == "Sandbox · LIVE"
    # each mode's keys are its own

    async def clients():
        async with session.lease(session.profile, "live") as live, session.lease(session.profile, "test") as test:
            return live, test

    live, test = loop.run(clients())
    assert live is not test

    task = press.click_starting(window.mode_button, "mode")  # back to test: no question
    loop.until(task.done, message="back to test")
    assert session.mode == "test" and window.banner.text() == TEST_BANNER and window.banner.isVisible()
    assert not window.live_banner.isVisible()
    assert "TEST" in window.windowTitle()
    app.close()


def test_mode_survives_restart_and_a_new_profile_starts_in_test(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    from tests.ui.test_links import go_live

    go_live(app.window, loop)
    app.close()
    again = start_app()
    again.wait_started()
    assert again.session.mode == "live" and not again.window.banner.isVisible()
    again.close()


def test_mode_from_the_command_line(start_app, loop):
    app = start_app(sandbox=True, mode="live")
    loop.until(lambda: app.session.mode == "live", message="live mode")
    # the title follows once the mode is saved and announced (session_changed)
    loop.until(lambda: "LIVE" in app.window.windowTitle(), message="LIVE in the title")
    app.close()
