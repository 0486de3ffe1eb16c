"""GUI tests: real widgets (offscreen), qasync's loop, a real sandbox, an in-memory keyring."""

import argparse
import asyncio

import pytest

from paydesk.config.secrets import KeyStore
from tests.helpers import set_faults
from tests.waiting import until_async


class Loop:
    """Drives qasync's loop from a synchronous test: run a coroutine, or wait for a condition."""

    def __init__(self, loop):
        self.loop = loop

    def run(self, coro, timeout=20.0):
        return self.loop.run_until_complete(asyncio.wait_for(coro, timeout))

    def until(self, predicate, timeout=15.0, message="condition"):
        """Run the loop (Qt's events with it) until ``predicate()`` is true: tests/waiting.py."""
        return self.loop.run_until_complete(until_async(predicate, timeout, message, every=0.02))

    def spawn(self, coro):
        return self.loop.create_task(coro)


@pytest.fixture(scope="session")
def _qasync_loop(qapp):
    """One qasync loop for the whole run, as in the app (one loop for its lifetime)."""
    from paydesk.ui.loop import EventLoop

    # as paydesk.app does: a dialog closed last (a test's editor alone on screen) quits nothing
    qapp.setQuitOnLastWindowClosed(False)
    qloop = EventLoop(qapp, already_running=False)
    asyncio.set_event_loop(qloop)
    yield qloop
    qloop.run_until_complete(qloop.shutdown_asyncgens())
    qloop.close()  # joins qasync's executor threads
    asyncio.set_event_loop(None)


@pytest.fixture(autouse=True)
def _fresh_save_folder(monkeypatch):
    """Each test is a fresh session of PayDesk: its save dialogs open in Documents until it
    saves somewhere (paydesk.ui.files keeps the last folder for the session only); without
    this a test's dialog opened in an earlier test's tmp folder."""
    from paydesk.ui import files

    monkeypatch.setattr(files, "_last", None)


@pytest.fixture(autouse=True)
def _english_after(qapp):
    """Each test begins in English, whatever language the test before chose (a French test
    that failed halfway left its words and Qt's for the next window built in this worker)."""
    yield
    from paydesk.i18n import ENGLISH, set_language, staff
    from paydesk.ui.language import install_qt_words

    if staff().language != ENGLISH:
        set_language(ENGLISH)
        install_qt_words(qapp, ENGLISH)


@pytest.fixture
def loop(_qasync_loop, qapp):
    asyncio.set_event_loop(_qasync_loop)
    # pytest-qt processes Qt events between a test and its fixtures' teardown; coroutines
    # woken then must find their loop, as they would in the app (where the loop always runs)
    asyncio.events._set_running_loop(_qasync_loop)
    yield Loop(_qasync_loop)
    # Qt events are only processed inside the running loop, so every coroutine they wake
    # finds its loop running.
    for widget in qapp.topLevelWidgets():
        widget.close()
        widget.deleteLater()
    pending = [t for t in asyncio.all_tasks(_qasync_loop) if not t.done()]
    for task in pending:
        task.cancel()
    _qasync_loop.run_until_complete(asyncio.wait(pending, timeout=5) if pending else asyncio.sleep(0))
    _qasync_loop.run_until_complete(asyncio.sleep(0.01))
    asyncio.events._set_running_loop(None)  # pytest-asyncio's tests run their own loops


@pytest.fixture
def keys(memory_keyring):
    from paydesk.logs import REDACTOR

    return KeyStore(memory_keyring, on_secret=REDACTOR.add)


def args(**over):
    base = dict(sandbox=False, profile=None, mode=None, data_dir=None, sandbox_dir=None, no_keyring=False)
    base.update(over)
    return argparse.Namespace(**base)


class Running:
    """The real app.run() as a task on the loop, with its window and session once shown."""

    def __init__(self, loop, qapp, paths, keys, **arg_over):
        from paydesk import app

        self.window = self.session = None

        def ready(window, session):
            self.window, self.session = window, session

        self.task = loop.spawn(app.run(qapp, args(**arg_over), paths, keys, window_ready=ready))
        loop.until(lambda: self.window is not None or self.task.done(), message="the window")
        if self.task.done():
            self.task.result()
        self.loop = loop

    def wait_started(self, timeout=30.0):
        """Until start-up is over (the embedded sandbox running and its profile pointing at it)."""
        self.loop.until(lambda: self.window.started or self.task.done(), timeout, "start-up")
        if self.task.done():
            self.task.result()

    def on_links_tab(self, size=(1200, 900)):
        """Once started, the window at ``size`` (None: as it opened) showing the Payment links
        tab, loaded: where a user starts."""
        self.wait_started()
        if size is not None:
            self.window.resize(*size)
        self.loop.until(lambda: self.window.links_tab.loaded, message="the links tab")
        return self

    def faults(self, **body):
        """The fault injection of the sandbox the active profile is on (tests/helpers.py's
        ``set_faults``, with its test key): ``body`` set, or (none given) cleared."""
        set_faults(self.session.profile.base_url, self.loop.run(self.session.key()), **body)

    def close(self, timeout=15.0):
        self.window.close()
        return self.loop.run(asyncio.wait_for(asyncio.shield(self.task), timeout), timeout + 1)


@pytest.fixture
def built_desk(paths, keys, loop, transports):
    """A desk as the app builds it (``build_desk``), its profiles read, no window; closed
    after the test. It reaches the test's sandboxes in process (the root conftest's
    ``transports``) unless the test is marked ``sockets``."""
    from paydesk.desk.build import build_desk

    desk = build_desk(paths, keys, transports=transports)
    loop.run(desk.open())
    yield desk
    loop.run(desk.close())


@pytest.fixture
def session(built_desk):
    """The session of ``built_desk``."""
    return built_desk.session


@pytest.fixture
def start_app(loop, qapp, paths, keys):
    started = []

    def start(**arg_over):
        running = Running(loop, qapp, paths, keys, **arg_over)
        started.append(running)
        return running

    yield start
    for running in started:
        if not running.task.done():
            running.close()
