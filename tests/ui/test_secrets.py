"""The key store: system keyring when there is one, memory for the session when not, never frozen."""

import asyncio
import time

import keyring.backend
import pytest
from keyring.errors import InitError, KeyringLocked

from paydesk.config.profiles import Profile
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.ui.main_window import KEYRING_NOTICE, MainWindow
from paydesk.ui.status import KEYRING_WAITING


class LockedKeyring(keyring.backend.KeyringBackend):
    """A keyring the user did not unlock (the prompt was dismissed). A stand-in: a real
    unlock prompt needs a person at the desktop."""

    priority = 1

    def get_password(self, service, username):
        raise KeyringLocked("Failed to unlock the collection!")

    def set_password(self, service, username, password):
        raise KeyringLocked("Failed to unlock the collection!")

    def delete_password(self, service, username):
        raise KeyringLocked("Failed to unlock the collection!")


class AbsentKeyring(LockedKeyring):
    """A keyring that turns out not to exist (no Secret Service on the bus)."""

    def get_password(self, service, username):
        raise InitError("Failed to create the collection")

    def set_password(self, service, username, password):
        raise InitError("Failed to create the collection")


class SlowKeyring(keyring.backend.KeyringBackend):
    """A keyring that takes human time: the desktop asks the user to unlock it first."""

    priority = 1

    def __init__(self, delay):
        super().__init__()
        self.delay = delay
        self.store = {}

    def get_password(self, service, username):
        time.sleep(self.delay)
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        time.sleep(self.delay)
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        self.store.pop((service, username), None)


def test_memory_backend_round_trip(loop, memory_keyring):
    store = KeyStore(memory_keyring)
    assert loop.run(store.set("p1", "test", "secret", " sec-test-abc ")) is True
    assert loop.run(KeyStore(memory_keyring).get("p1", "test", "secret")) == "sec-test-abc"
    loop.run(store.delete_profile("p1"))
    assert loop.run(KeyStore(memory_keyring).get("p1", "test", "secret")) is None
    assert store.persistent


def test_a_refused_call_fails_alone(loop):
    """Regression: one failing call switched the whole session to memory-only, and the
    editor said "saved" anyway."""
    store = KeyStore(LockedKeyring())
    assert loop.run(store.set("p1", "test", "secret", "sec-test-abc")) is False  # not saved
    assert store.persistent and store.problem == "the keyring stayed locked"
    assert loop.run(store.get("p1", "test", "secret")) == "sec-test-abc"  # kept this session


def test_an_absent_keyring_falls_back_to_this_session(loop):
    store = KeyStore(AbsentKeyring())
    assert loop.run(store.set("p1", "test", "secret", "sec-test-abc")) is False
    assert not store.persistent
    assert loop.run(store.get("p1", "test", "secret")) == "sec-test-abc"


def test_an_unlock_prompt_is_waited_for_without_freezing(loop):
    """Regression: a call slower than 5 s (a person typing the keyring's password) gave up
    and sent the whole session to memory."""
    backend = SlowKeyring(1.5)
    backend.store[("PayDesk", "p1/test/secret")] = "sec-test-abc"
    waiting = []
    store = KeyStore(backend, slow_after=0.3)
    store.on_waiting = waiting.append
    ticks = []

    async def get_while_ticking():
        async def tick():
            while True:
                ticks.append(time.monotonic())
                await asyncio.sleep(0.02)

        ticker = asyncio.ensure_future(tick())
        try:
            return await store.get("p1", "test", "secret")
        finally:
            ticker.cancel()

    assert loop.run(get_while_ticking()) == "sec-test-abc"
    assert waiting == [True, False] and store.persistent and store.problem is None
    assert len(ticks) > 30  # the loop went on ticking while the keyring was asked


def test_a_keyring_that_never_answers_fails_that_call_only(loop):
    store = KeyStore(SlowKeyring(3), slow_after=0.1, timeout=0.5)
    started = time.monotonic()
    assert loop.run(store.get("p1", "test", "secret")) is None
    assert time.monotonic() - started < 2
    assert store.persistent and store.problem == "the keyring did not answer"


def test_the_window_says_when_it_waits_for_the_keyring(loop, paths, qtbot):
    backend = SlowKeyring(1.0)
    desk = build_desk(paths, KeyStore(backend, slow_after=0.2))
    session = desk.session
    loop.run(desk.open())
    window = MainWindow(desk)
    qtbot.addWidget(window)
    window.show()
    task = loop.spawn(session.keys.get("p1", "test", "secret"))
    loop.until(lambda: window.status.keyring.isVisible(), message="the waiting notice")
    assert window.status.keyring.text() == KEYRING_WAITING
    loop.until(task.done, message="the keyring's answer")
    assert not window.status.keyring.isVisible()
    loop.run(session.close())


def test_saved_is_said_only_when_the_keyring_saved(loop, paths, sandbox, qtbot):
    from paydesk.ui.profile_editor import ProfileEditor
    from tests.ui import press
    from tests.ui.test_profiles import save

    desk = build_desk(paths, KeyStore(LockedKeyring()))
    session = desk.session
    loop.run(desk.open())
    said = []
    session.hub.call_finished.connect(said.append)
    editor = ProfileEditor(session)
    qtbot.addWidget(editor)
    editor.show()
    press.type_into(editor.name, "Shop")
    press.type_into(editor.url, sandbox.base_url)
    press.type_into(editor.key_fields[("test", "secret")].edit, sandbox.key("test"))
    assert save(loop, editor) is True
    assert said[-1] == ("Profile Shop saved, but its keys are kept for this session only "
                        "(the keyring stayed locked)")
    loop.run(session.close())


def test_no_keyring_notice_on_screen(loop, paths, qtbot):
    desk = build_desk(paths, KeyStore(None))
    session = desk.session
    loop.run(desk.open())
    window = MainWindow(desk)
    qtbot.addWidget(window)
    window.show()
    assert window.keyring_notice.isVisible()
    assert window.keyring_notice.text() == KEYRING_NOTICE
    assert "this session only" in KEYRING_NOTICE
    # it promises no question that never comes: it says where to enter them again
    assert "asked" not in KEYRING_NOTICE and "Edit profile" in KEYRING_NOTICE
    loop.run(session.close())


def test_notice_hidden_with_a_keyring(loop, paths, memory_keyring, qtbot):
    desk = build_desk(paths, KeyStore(memory_keyring))
    session = desk.session
    window = MainWindow(desk)
    qtbot.addWidget(window)
    window.show()
    assert not window.keyring_notice.isVisible()
    loop.run(session.close())


@pytest.mark.parametrize("exists", [True, False])
def test_keyring_notice_waits_for_the_lookup(loop, qapp, paths, memory_keyring, exists):
    """The keyring is looked for after the window's first paint: until it has answered the
    window says nothing about it and start-up is not over; then the notice shows only when
    there is no keyring."""
    from tests.ui.conftest import Running

    desk = build_desk(paths, KeyStore(memory_keyring))
    loop.run(desk.open())
    loop.run(desk.session.save_profile(
        Profile(id="p_shop", name="Shop", base_url="http://127.0.0.1:9/pay"), {}))
    loop.run(desk.close())
    answered = asyncio.Event()

    async def find():
        await answered.wait()
        return memory_keyring if exists else None

    running = Running(loop, qapp, paths, KeyStore(None, find=find))
    loop.run(asyncio.sleep(0.3))
    window = running.window
    assert window.isVisible() and not window.keyring_notice.isVisible() and not window.started
    answered.set()
    running.wait_started()
    assert window.keyring_notice.isVisible() is not exists
    running.close()
