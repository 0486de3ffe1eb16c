"""Stand-in keyrings (Qt-free): locked, absent, slow. Stand-ins because a real unlock
prompt needs a person at the desktop (tests/ui/test_keyring_real.py uses the real one)."""

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
