"""The exception hook: a dialog with a redacted, copyable report; the app keeps running."""

import asyncio
import sys

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QLabel

from paydesk.ui.crash import CrashDialog, ExceptionHook
from tests.ui import press
from tests.ui.test_links import go_live


def _dialogs():
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, CrashDialog) and w.isVisible()]


def test_error_in_an_async_slot_shows_a_dialog_and_the_app_goes_on(start_app, loop, paths):
    from paydesk import logs

    logs.setup(paths.logs)
    hook = ExceptionHook(paths.logs / "paydesk.log").install()
    try:
        app = start_app(sandbox=True)
        app.wait_started()
        secret = loop.run(app.session.key("test"))

        async def broken_slot():
            await asyncio.sleep(0)
            raise RuntimeError(f"boom while using Authorization: Bearer {secret} and {secret}")

        app.session.tasks.spawn(broken_slot(), "broken")
        loop.until(lambda: _dialogs(), message="the crash dialog")
        dialog = _dialogs()[0]
        report = dialog.report.toPlainText()
        assert "RuntimeError: boom" in report and "broken_slot" in report
        assert secret not in report and "[redacted]" in report
        where = dialog.findChild(QLabel, "crash-log-path")
        assert where.text() == f"The log is at {paths.logs / 'paydesk.log'}"
        # the dialog is modal to the window (a user answers it first); once closed, the
        # window still works: switch mode, close cleanly
        assert app.window.isVisible()
        press.click(press.button(dialog, "Close"))
        assert press.closed(dialog)
        go_live(app.window, loop)
        assert "LIVE" in app.window.windowTitle()
        assert app.close() == 0
    finally:
        hook.uninstall()
    logs.flush()
    logged = (paths.logs / "paydesk.log").read_text()
    assert "RuntimeError: boom" in logged and secret not in logged


def test_copy_report_puts_it_on_the_clipboard(qapp, qtbot, tmp_path):
    hook = ExceptionHook(tmp_path / "paydesk.log")
    try:
        raise ValueError("with key sec-test-ABCDEFGHijklmnop0123456789abcdef")
    except ValueError:
        hook(*sys.exc_info())
    dialog = hook.dialogs[-1]
    qtbot.addWidget(dialog)
    assert dialog.isVisible()
    press.click(press.button(dialog, "Copy report"))
    copied = QGuiApplication.clipboard().text()
    assert "ValueError" in copied and "sec-test-ABCDEFGH" not in copied
    press.click(press.button(dialog, "Close"))
    assert not dialog.isVisible()


def test_a_crash_report_carries_no_card_number_nor_cvv(qapp, qtbot, tmp_path):
    """Card data in exception text (an answer echoed into an error) is redacted in the
    dialog, the copied report and the log, as keys are."""
    pan = "4242424242424242"  # passes Luhn, as every card number the sandbox issues
    hook = ExceptionHook(tmp_path / "paydesk.log")
    try:
        raise ValueError(
            f'unexpected answer {{"card_pan": "{pan}", "cvv": "737"}} '
            f"and the number again: {pan[:4]} {pan[4:8]} {pan[8:12]} {pan[12:]}"
        )
    except ValueError:
        hook(*sys.exc_info())
    dialog = hook.dialogs[-1]
    qtbot.addWidget(dialog)
    report = dialog.report.toPlainText()
    assert "ValueError" in report and pan not in report and "737" not in report
    assert f"{pan[8:12]} {pan[12:]}" not in report  # the spaced form too
    press.click(press.button(dialog, "Close"))
