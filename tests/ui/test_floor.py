"""The window on a floor that holds: a busy ledger, a vanished key, the service going away,
a dialog closed mid-save, impatient clicks. Each was a defect found by review; none of them
may open the crash dialog, freeze the window, lose a record or pay twice."""

import asyncio
import sqlite3
import time

import httpx
import pytest
from PySide6.QtWidgets import QApplication

from paydesk.ui.crash import CrashDialog, ExceptionHook
from paydesk.ui.status import SAVING_DELAYED
from tests.ui import press
from tests.ui.test_links import choose_row, control, create, fill, service_rows


@pytest.fixture
def hook(paths):
    installed = ExceptionHook(paths.logs / "paydesk.log").install()
    yield installed
    installed.uninstall()
    for dialog in list(installed.dialogs):
        dialog.close()


def no_crash(hook):
    shown = [d.findChild(type(d.report)).toPlainText()[-600:] for d in hook.dialogs]
    assert shown == [], "the crash dialog opened"
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, CrashDialog) and w.isVisible()]


@pytest.fixture
def desk(start_app, loop, hook):
    return start_app(sandbox=True).on_links_tab()


def test_saving_is_delayed_while_another_program_holds_the_ledger(desk, loop, hook):
    tab, status = desk.window.links_tab, desk.window.status
    fill(tab)
    other = sqlite3.connect(desk.session.paths.data / "ledger.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # a second PayDesk window, or a backup tool
    try:
        before = service_rows(desk)
        press.click(tab.form.create_button)
        loop.until(lambda: status.saving.isVisible(), message="the delayed-saving notice")
        assert status.saving.text() == SAVING_DELAYED
        loop.run(asyncio.sleep(1.0))  # the window keeps running meanwhile
        assert service_rows(desk) == before  # nothing is sent before its record is saved
        assert not tab.form.create_button.isEnabled()
    finally:
        other.execute("COMMIT")
        other.close()
    loop.until(lambda: tab.panel.state.text() == "WAITING FOR PAYMENT", message="the link")
    loop.until(lambda: not status.saving.isVisible(), message="the notice to go")
    assert service_rows(desk) == before + 1
    no_crash(hook)


def test_the_scheduler_survives_a_vanished_key(desk, loop, hook):
    """Regression: NoKeyError ended the link scheduler and opened the crash dialog; the
    link on screen then said WAITING FOR PAYMENT after the customer had paid."""
    session, tab = desk.session, desk.window.links_tab
    fill(tab)
    record = create(tab, loop)
    profile = session.profile
    secret = loop.run(session.key("test"))
    loop.run(session.keys.set(profile.id, "test", "secret", ""))  # gone from the keyring
    loop.run(session.save_profile(profile, {}))  # the session lets go of its client
    loop.until(
        lambda: desk.window.status.connection.text().startswith("No test secret key"),
        message="the missing key said in the status bar",
    )
    control_key = secret
    httpx.post(
        f"{profile.base_url}/_sandbox/pay/{record.reference}",
        json={"outcome": "success"},
        headers={"Authorization": f"Bearer {control_key}"},
    ).raise_for_status()
    time.sleep(0.5)
    loop.run(session.save_profile(profile, {("test", "secret"): secret}))  # the key is back
    loop.until(lambda: tab.panel.state.text() == "PAID", timeout=30, message="PAID on screen")
    assert desk.window.scheduler.stats["NoKeyError"] >= 1
    no_crash(hook)


def test_the_connections_state_is_on_screen(desk, loop, hook):
    tab, status = desk.window.links_tab, desk.window.status
    fill(tab)
    create(tab, loop)
    loop.until(lambda: status.connection.text().startswith("Checked"), message="Checked … ago")
    desk.faults(error_rate=1.0)
    loop.until(lambda: status.connection.text().startswith("Offline since"), timeout=30, message="Offline since …")
    assert status.connection.text().endswith(", retrying")
    desk.faults()
    loop.until(lambda: status.connection.text().startswith("Checked"), timeout=40, message="back online")
    no_crash(hook)


def test_cancel_while_the_profile_editor_saves(desk, loop, hook):
    """Regression: Cancel during a save let the save touch the deleted editor (crash dialog)."""
    window = desk.window
    desk.faults(latency_ms=1500)
    task = press.click_starting(window.edit_profile, "editor")
    loop.until(lambda: press.shown("profile-editor") is not None, message="the editor")
    editor = press.shown("profile-editor")
    press.type_into(editor.name, "Renamed while saving")
    press.click(editor.save_button)
    loop.until(lambda: editor.status.text().startswith("Checking keys"), message="the check")
    press.click(editor.cancel_button)
    loop.until(task.done, message="the editor to close")
    loop.run(asyncio.sleep(2.0))  # the check's answer arrives after the close
    assert desk.session.profile.name == "Sandbox"
    desk.faults()
    no_crash(hook)


def test_create_stays_disabled_for_the_whole_create(desk, loop, hook, qtbot):
    tab = desk.window.links_tab
    fill(tab)
    desk.faults(latency_ms=1200)
    before = service_rows(desk)
    press.click(tab.form.create_button)
    loop.until(lambda: tab.creating, message="the create to start")
    press.type_into(tab.form.title, " and cake", replace=False)  # typing meanwhile re-checks
    assert not tab.form.create_button.isEnabled()  # a second click cannot reach it
    assert tab.form.why_disabled.text() == "Creating the link…"
    loop.until(lambda: not tab.creating, timeout=20, message="the create to end")
    assert service_rows(desk) == before + 1  # one press, one link
    assert tab.form.create_button.isEnabled()
    desk.faults()
    no_crash(hook)


def test_the_status_bar_says_what_the_screen_says(desk, loop):
    tab = desk.window.links_tab
    fill(tab)
    record = create(tab, loop)
    control(desk, f"pay/{record.reference}", {"outcome": "success"})
    loop.until(lambda: tab.panel.state.text() == "PAID", message="PAID")
    loop.until(lambda: desk.window.status.last_call.text().endswith(": PAID"), message="status")
    assert desk.window.status.last_call.text() == f"Link {record.tx_ref}: PAID"
    assert "success" not in desk.window.status.last_call.text()


def test_the_selected_row_follows_the_link_on_screen(desk, loop):
    tab = desk.window.links_tab
    made = []
    for amount in ("5", "6", "7"):
        fill(tab, amount=amount)
        made.append(create(tab, loop))
        assert tab.recent.selected().tx_ref == made[-1].tx_ref == tab.panel.record.tx_ref
    choose_row(tab.recent, 2)
    assert tab.panel.record.tx_ref == made[0].tx_ref
    fill(tab, amount="8")
    newest = create(tab, loop)
    assert tab.recent.selected().tx_ref == newest.tx_ref


def test_create_says_why_nothing_was_sent(start_app, loop, hook):
    """Regression: for a profile whose address would send keys in the clear (saved before
    PayDesk refused them), Create did nothing visible."""
    from paydesk.config.profiles import Profile

    app = start_app(sandbox=True)
    app.wait_started()
    remote = Profile(id=Profile.new_id(), name="Old shop", base_url="http://pay.example.com/pay")
    loop.run(app.session.save_profile(remote, {("test", "secret"): "sec-test-" + "A" * 32}))
    tab = app.window.links_tab
    loop.until(lambda: tab.form.tx_ref.text().startswith("PAY-"), message="the new reference")
    fill(tab)
    assert create(tab, loop) is None
    assert "only over https" in tab.form.why_disabled.text()
    assert "only over https" in app.window.status.connection.text()
    no_crash(hook)
