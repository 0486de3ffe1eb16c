"""Start-up: --sandbox, the first-run choices, command-line options, clean quit."""

import asyncio
import subprocess
import sys

import httpx

from paydesk.ui.first_run import FirstRunDialog
from paydesk.ui.main_window import TEST_BANNER
from tests.helpers import set_faults
from tests.ui import press


def test_sandbox_start_opens_in_test_mode(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    window, session = app.window, app.session
    assert session.profile.name == "Sandbox" and session.profile.embedded_sandbox
    assert session.mode == "test"
    assert window.banner.isVisible() and window.banner.text() == TEST_BANNER
    assert "TEST" in window.windowTitle() and "Sandbox" in window.windowTitle()
    loop.until(lambda: "Sandbox running at http://127.0.0.1:" in window.last_call.text(), message="the status bar")
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == [
        "Payment links",
        "Transactions",
        "Cards",
        "Counter",
    ]
    base = session.profile.base_url
    secret = loop.run(session.key("test"))
    assert httpx.get(base + "/api/transaction/none", headers={"Authorization": f"Bearer {secret}"}).status_code == 404
    assert app.close() == 0
    assert session.sandbox is None
    try:
        httpx.get(base + "/api/transaction/none", timeout=1)
        raise AssertionError("the sandbox still answers after quit")
    except httpx.TransportError:
        pass


def test_first_run_try_the_sandbox(start_app, loop, qapp):
    app = start_app()
    loop.until(
        lambda: getattr(app.window, "first_run", None) is not None and app.window.first_run.isVisible(),
        message="the first-run dialog",
    )
    dialog: FirstRunDialog = app.window.first_run
    assert dialog.try_sandbox.text() == "Try the sandbox"
    assert dialog.connect_service.text() == "Connect to your service"
    press.click(dialog.try_sandbox)
    app.wait_started()
    assert app.session.mode == "test" and app.window.banner.isVisible()
    assert app.close() == 0


def test_first_run_connect_opens_the_editor(start_app, loop):
    app = start_app()
    loop.until(
        lambda: getattr(app.window, "first_run", None) is not None and app.window.first_run.isVisible(),
        message="the first-run dialog",
    )
    press.click(app.window.first_run.connect_service)
    loop.until(
        lambda: getattr(app.window, "editor", None) is not None and app.window.editor.isVisible(),
        message="the profile editor",
    )
    assert app.window.editor.windowTitle() == "Connect to your service"
    editor = app.window.editor
    press.click(editor.cancel_button)
    loop.until(lambda: press.closed(editor), message="the editor to close")
    assert app.session.profile is None
    assert not app.window.mode_button.isEnabled()
    assert app.close() == 0


def test_restart_reopens_the_sandbox_profile(start_app, loop, paths):
    first = start_app(sandbox=True)
    first.wait_started()
    profile_id = first.session.profile.id
    first.close()
    second = start_app()
    second.wait_started()
    assert second.session.profile.id == profile_id
    assert second.session.profile.base_url == second.session.sandbox.base_url
    second.close()


def test_quit_with_tasks_in_flight(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    session = app.session
    secret = loop.run(session.key("test"))
    set_faults(session.profile.base_url, secret, latency_ms=30_000)

    async def slow_lookup():
        async with session.lease(session.profile, "test") as client:
            await client.validate("SLOW-1")

    in_flight = session.tasks.spawn(slow_lookup(), "slow lookup")
    sleeper = session.tasks.spawn(asyncio.sleep(3600), "sleeper")
    loop.run(asyncio.sleep(0.3))
    assert not in_flight.done() and not sleeper.done()
    started = loop.loop.time()
    assert app.close(timeout=15) == 0
    assert loop.loop.time() - started < 10
    assert in_flight.cancelled() and sleeper.cancelled()
    assert session.clients.slots == {}


def test_command_line_help_and_version():
    version = subprocess.run([sys.executable, "-m", "paydesk", "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.strip() == "PayDesk 0.1.0"
    helptext = subprocess.run([sys.executable, "-m", "paydesk", "--help"], capture_output=True, text=True, timeout=60)
    assert helptext.returncode == 0
    for option in ("--sandbox", "--profile", "--mode", "--data-dir", "--no-keyring"):
        assert option in helptext.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "paydesk", "--mode", "sideways"], capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_unknown_profile_on_command_line(start_app, loop, qapp, paths, keys):
    from paydesk import app as app_module
    from tests.ui.conftest import args

    code = loop.run(app_module.run(qapp, args(profile="Nope"), paths, keys))
    assert code == 2
