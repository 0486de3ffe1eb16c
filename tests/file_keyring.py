"""A keyring in a JSON file, for a PayDesk run as a subprocess: the test names the backend
(``PYTHON_KEYRING_BACKEND=tests.file_keyring.FileKeyring``, keyring's own way of choosing
one) and the file (``PAYDESK_TEST_KEYRING``), puts keys there, and the run finds them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import keyring.backend
from keyring.errors import PasswordDeleteError

VARIABLE = "PAYDESK_TEST_KEYRING"


def write(path: Path, entries: dict[tuple[str, str], str]) -> None:
    path.write_text(json.dumps([[service, user, secret] for (service, user), secret in entries.items()]))


def read(path: Path) -> dict[tuple[str, str], str]:
    if not path.exists():
        return {}
    return {(service, user): secret for service, user, secret in json.loads(path.read_text())}


class FileKeyring(keyring.backend.KeyringBackend):
    priority = 1  # type: ignore[assignment]

    @property
    def path(self) -> Path:
        return Path(os.environ[VARIABLE])

    def get_password(self, service: str, username: str) -> str | None:
        return read(self.path).get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        entries = read(self.path)
        entries[(service, username)] = password
        write(self.path, entries)

    def delete_password(self, service: str, username: str) -> None:
        entries = read(self.path)
        if entries.pop((service, username), None) is None:
            raise PasswordDeleteError(username)
        write(self.path, entries)
