"""Start-up on a shared ledger that cannot be opened (its server down, nothing listening):
a dialog says why and tries again by itself; "Use this computer's own ledger" opens the
window on the desk's own file for this session; a server that comes back opens the window
by itself; Quit ends PayDesk. A real PostgreSQL (tests/postgres.py), started late."""

import asyncio
import re

import pytest
from PySide6.QtWidgets import QApplication

from tests import postgres
from tests.helpers import free_port
from tests.ui import press
from tests.ui.conftest import args

UNREACHABLE = re.compile(r"Shared ledger unreachable since \d\d:\d\d, retrying")


def problem_dialog():
    return next(
        (w for w in QApplication.topLevelWidgets() if w.objectName() == "ledger-problem" and w.isVisible()), None
    )


def frame():
    """The main window while its ledger opens: its frame, or None when no such window shows."""
    return next((w for w in QApplication.topLevelWidgets() if w.objectName() == "main-window" and w.isVisible()), None)


def start(loop, qapp, paths, keys, url):
    from paydesk import app as app_module

    shown = {}
    task = loop.spawn(
        app_module.run(qapp, args(ledger=url), paths, keys, window_ready=lambda w, s: shown.update(window=w, session=s))
    )
    loop.until(lambda: problem_dialog() is not None or task.done(), message="the shared ledger's dialog")
    if task.done():
        task.result()
    return task, shown


def finish(loop, task, shown):
    """Start-up to its end (a desk with no profile asks the first-run question: Escape),
    then the window closed: PayDesk's exit code."""
    window = shown["window"]
    loop.until(
        lambda: window.started or (getattr(window, "first_run", None) is not None and window.first_run.isVisible()),
        30,
        "start-up",
    )
    if not window.started:
        press.escape(window.first_run)
        loop.until(lambda: window.started, 30, "start-up")
    window.close()
    return loop.run(asyncio.wait_for(asyncio.shield(task), 15), 16)


def test_unreachable_at_start_says_so_and_opens_on_the_own_ledger(loop, qapp, paths, keys):
    url = f"postgresql://paydesk@127.0.0.1:{free_port()}/shop"
    task, shown = start(loop, qapp, paths, keys, url)
    dialog = problem_dialog()
    assert dialog.windowTitle() == "Shared ledger"
    assert UNREACHABLE.fullmatch(dialog.why.text()), dialog.why.text()
    assert dialog.address.text() == url
    assert [b.accessibleName() for b in (dialog.try_again, dialog.use_own, dialog.quit)] == [
        "Try again",
        "Use this computer's own ledger",
        "Quit",
    ]
    assert "window" not in shown  # nothing is shown that the ledger has not given
    # the window's frame is there behind the dialog, saying what it waits for, nothing to press
    window = frame()
    assert window is not None and dialog.parent() is window
    assert window.windowTitle() == "PayDesk" and window.opening.text() == "Opening the ledger…"
    assert window.opening.isVisible()
    assert not any(c.isEnabled() for c in (window.profiles, window.edit_profile, window.add_profile))
    assert not window.mode_button.isVisible()  # no mode to switch before there is a desk
    press.click(dialog.try_again)  # tried again at once: still unreachable, still said
    loop.until(lambda: UNREACHABLE.fullmatch(problem_dialog().why.text()), message="the text")
    press.click(problem_dialog().use_own)
    loop.until(lambda: "window" in shown, message="the window on the own ledger")
    assert problem_dialog() is None
    assert not shown["session"].ledger_choice.shared
    assert (paths.data / "ledger.sqlite3").exists()
    assert finish(loop, task, shown) == 0


def test_quit_while_the_shared_ledger_is_unreachable(loop, qapp, paths, keys):
    task, _ = start(loop, qapp, paths, keys, f"postgresql://paydesk@127.0.0.1:{free_port()}/s")
    assert frame() is not None
    press.click(problem_dialog().quit)
    assert loop.run(asyncio.wait_for(asyncio.shield(task), 15), 16) == 0
    assert frame() is None  # the window's frame went with the dialog


def test_closing_the_window_while_the_ledger_opens_ends_paydesk(loop, qapp, paths, keys):
    """A server that takes the connection and never answers: the window's frame shows while
    PayDesk waits for it; closed then, PayDesk ends once the wait is over, asking nothing."""
    import socket

    from paydesk import app as app_module

    with socket.create_server(("127.0.0.1", 0)) as silent:  # listens, accepts, never speaks
        url = f"postgresql://paydesk@127.0.0.1:{silent.getsockname()[1]}/shop"
        task = loop.spawn(app_module.run(qapp, args(ledger=url), paths, keys))
        loop.until(lambda: frame() is not None, message="the window's frame")
        window = frame()
        assert window.opening.text() == "Opening the ledger…"
        window.close()  # as its title bar's close button does
        assert loop.run(asyncio.wait_for(asyncio.shield(task), 20), 21) == 0
        assert problem_dialog() is None and frame() is None


def test_a_server_that_comes_back_opens_the_window_by_itself(loop, qapp, paths, keys):
    why = postgres.missing()
    if why:
        pytest.skip(why)
    cluster = postgres.Cluster()
    try:
        cluster.port = free_port()  # the address is known before the server runs
        task, shown = start(loop, qapp, paths, keys, cluster.url("postgres"))
        assert UNREACHABLE.fullmatch(problem_dialog().why.text())
        cluster.start()
        loop.until(lambda: "window" in shown, 30, "the window, once the server answers")
        assert problem_dialog() is None
        assert shown["session"].ledger_choice.shared
        assert finish(loop, task, shown) == 0
    finally:
        cluster.remove()


PASSWORD = "correct-horse-battery-staple"


def _role_url(pg_server, pg_url, role):
    dbname = pg_url.rsplit("/", 1)[1]
    pg_server.login_role(role, PASSWORD, dbname)
    return f"postgresql://{role}@127.0.0.1:{pg_server.port}/{dbname}"


def test_a_missing_password_is_asked_for_in_the_dialog_and_kept(
    loop, qapp, paths, keys, memory_keyring, pg_server, pg_url
):
    from paydesk.config.secrets import SERVICE_NAME, KeyStore
    from paydesk.config.shared_ledger import password_entry
    from paydesk.logs import REDACTOR

    url = _role_url(pg_server, pg_url, f"asked_{pg_url.rsplit('/', 1)[1]}")
    role = url.split("//")[1].split("@")[0]
    task, shown = start(loop, qapp, paths, keys, url)
    dialog = problem_dialog()
    # not "unreachable": what the server said, and a place to type the password
    assert dialog.why.text() == f"The shared ledger asks for the password of {role}: enter it"
    assert dialog.password.isVisible() and dialog.connect_button.isVisible()
    assert dialog.password.accessibleName() == "Password"
    assert dialog.password.echoMode() == dialog.password.EchoMode.Password
    assert dialog.connect_button.accessibleName() == "Connect"
    # a wrong one: said beside the field, the dialog stays, nothing kept
    press.type_into(dialog.password, "not-" + PASSWORD)
    press.click(dialog.connect_button)
    loop.until(
        lambda: "refused this password" in dialog.password_message.text(), message="the refusal beside the password"
    )
    assert dialog.password_message.isVisible() and "window" not in shown
    assert (SERVICE_NAME, password_entry(url)) not in memory_keyring.store
    # the right one, with Enter in the field: the window opens, the password is kept
    press.type_into(dialog.password, PASSWORD)
    press.enter(dialog.password)
    loop.until(lambda: "window" in shown, 30, "the window on the shared ledger")
    assert problem_dialog() is None and shown["session"].ledger_choice.shared
    assert memory_keyring.store[(SERVICE_NAME, password_entry(url))] == PASSWORD
    assert PASSWORD not in REDACTOR.clean(f"typed {PASSWORD}")
    assert finish(loop, task, shown) == 0

    # the next start connects without asking
    again = KeyStore(memory_keyring, on_secret=REDACTOR.add)
    from paydesk import app as app_module

    shown = {}
    task = loop.spawn(
        app_module.run(
            qapp, args(ledger=url), paths, again, window_ready=lambda w, s: shown.update(window=w, session=s)
        )
    )
    loop.until(lambda: "window" in shown or problem_dialog() is not None or task.done(), 30, message="the window")
    assert problem_dialog() is None and "window" in shown
    assert finish(loop, task, shown) == 0


def test_no_such_database_is_said_and_asks_no_password(loop, qapp, paths, keys, pg_server):
    url = f"postgresql://postgres@127.0.0.1:{pg_server.port}/no_such_shop"
    task, _ = start(loop, qapp, paths, keys, url)
    dialog = problem_dialog()
    assert dialog.why.text() == (
        f'The server at 127.0.0.1:{pg_server.port} has no database "no_such_shop": check the end of the address'
    )
    assert not dialog.password.isVisible() and not dialog.connect_button.isVisible()
    press.click(dialog.quit)
    assert loop.run(asyncio.wait_for(asyncio.shield(task), 15), 16) == 0
