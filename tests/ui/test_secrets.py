"""The key store: system keyring when there is one, memory for the session when not, never frozen."""

import time

import keyring.backend
from keyring.errors import KeyringError

from paydesk.config.secrets import KeyStore
from paydesk.ui.main_window import KEYRING_NOTICE, MainWindow
from paydesk.ui.session import Session


class BrokenKeyring(keyring.backend.KeyringBackend):
    """A keyring that fails, as a locked or absent Secret Service does."""

    priority = 1

    def get_password(self, service, username):
        raise KeyringError("locked")

    def set_password(self, service, username, password):
        raise KeyringError("locked")

    def delete_password(self, service, username):
        raise KeyringError("locked")


class FrozenKeyring(BrokenKeyring):
    """A keyring that never answers (a prompt nobody sees)."""

    def get_password(self, service, username):
        time.sleep(3)

    def set_password(self, service, username, password):
        time.sleep(3)


def test_memory_backend_round_trip(loop, memory_keyring):
    store = KeyStore(memory_keyring)
    loop.run(store.set("p1", "test", "secret", " sec-test-abc "))
    assert loop.run(KeyStore(memory_keyring).get("p1", "test", "secret")) == "sec-test-abc"
    loop.run(store.delete_profile("p1"))
    assert loop.run(KeyStore(memory_keyring).get("p1", "test", "secret")) is None
    assert store.persistent


def test_broken_keyring_falls_back_to_this_session(loop):
    store = KeyStore(BrokenKeyring())
    loop.run(store.set("p1", "test", "secret", "sec-test-abc"))
    assert not store.persistent and store.problem == "KeyringError"
    assert loop.run(store.get("p1", "test", "secret")) == "sec-test-abc"


def test_frozen_keyring_never_freezes_the_window(loop):
    store = KeyStore(FrozenKeyring(), timeout=0.3)
    started = time.monotonic()
    assert loop.run(store.get("p1", "test", "secret")) is None
    assert time.monotonic() - started < 2
    assert not store.persistent


def test_no_keyring_notice_on_screen(loop, paths, qtbot):
    session = Session(paths, KeyStore(None))
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    assert window.keyring_notice.isVisible()
    assert window.keyring_notice.text() == KEYRING_NOTICE
    assert "this session only" in KEYRING_NOTICE
    loop.run(session.close())


def test_notice_hidden_with_a_keyring(loop, paths, memory_keyring, qtbot):
    session = Session(paths, KeyStore(memory_keyring))
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    assert not window.keyring_notice.isVisible()
    loop.run(session.close())
