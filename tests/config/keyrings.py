"""Stand-in keyrings (Qt-free): locked, absent, slow, silent. Stand-ins because a real unlock
prompt needs a person at the desktop (tests/ui/test_keyring_real.py uses the real one)."""

import threading
import time

import keyring.backend
from keyring.errors import InitError, KeyringLocked


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


class SilentKeyring(keyring.backend.KeyringBackend):
    """A keyring that never answers until ``answer()``: the call stays on its thread (a
    test answers it at its end, so that the thread ends with the test rather than after a
    sleep of its own)."""

    priority = 1

    def __init__(self):
        super().__init__()
        self.answered = threading.Event()

    def get_password(self, service, username):
        self.answered.wait()
        return None

    def set_password(self, service, username, password):
        self.answered.wait()

    def delete_password(self, service, username):
        self.answered.wait()

    def answer(self) -> None:
        self.answered.set()
