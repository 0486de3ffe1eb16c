"""Where paydesk-receiver takes its keys from when not from the system keyring: a key FILE
(JSON, readable by its user alone) or the ENVIRONMENT (a service manager's). Both are
read-only keyring backends, so ``KeyStore`` reads them exactly as it reads the keyring.

The file's shape (the same JSON may be given in the variable ``PAYDESK_KEYS``)::

    {
      "profiles": {
        "<profile id>": {"test": "<test secret key>", "live": "<live secret key>",
                         "webhook": "<webhook secret>"}
      },
      "ledger_password": "<the shared ledger's password>"
    }

Every part is optional. A profile's id is in the desk's ``profiles.json`` (on a shared
ledger, the merchant's id); ``paydesk-receiver --ledger ... --list-profiles`` lists them. The variable
``PAYDESK_LEDGER_PASSWORD`` gives the shared ledger's password on its own.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import keyring.backend
from keyring.errors import PasswordDeleteError, PasswordSetError

from ..config.secrets import SERVICE_NAME, entry

KEYS_FILE = "PAYDESK_KEYS_FILE"  # the key file's path, when --keys-file is not given
KEYS = "PAYDESK_KEYS"  # the key file's JSON itself
LEDGER_PASSWORD = "PAYDESK_LEDGER_PASSWORD"
PASSWORD_PREFIX = "shared-ledger/"  # config/shared_ledger.py password_entry
KINDS = {"test": ("test", "secret"), "live": ("live", "secret"), "webhook": ("test", "webhook")}


class KeySourceError(ValueError):
    """The keys cannot be used (the message says why, for the person starting the receiver)."""


def entries(document: Any, where: str) -> dict[str, str]:
    """The keyring entries (``config/secrets.py`` names) of a key document."""
    if not isinstance(document, dict):
        raise KeySourceError(f'{where}: expected a JSON object with "profiles"')
    found: dict[str, str] = {}
    profiles = document.get("profiles", {})
    if not isinstance(profiles, dict):
        raise KeySourceError(f'{where}: "profiles" must map profile ids to their keys')
    for profile_id, keys in profiles.items():
        if not isinstance(keys, dict):
            raise KeySourceError(f"{where}: the keys of profile {profile_id!r} must be an object")
        for name, value in keys.items():
            if name not in KINDS:
                raise KeySourceError(
                    f"{where}: profile {profile_id!r}: unknown key {name!r} (expected {', '.join(KINDS)})"
                )
            if not isinstance(value, str):
                raise KeySourceError(f"{where}: profile {profile_id!r}: {name} must be a string")
            if value.strip():
                found[entry(profile_id, *KINDS[name])] = value.strip()
    password = document.get("ledger_password")
    if password is not None and not isinstance(password, str):
        raise KeySourceError(f'{where}: "ledger_password" must be a string')
    if password:
        found[PASSWORD_PREFIX] = password
    return found


class ReadOnlyKeys(keyring.backend.KeyringBackend):
    """Keys given once, read by ``KeyStore`` as a keyring; nothing is ever written."""

    priority = 0  # never chosen by keyring itself

    def __init__(self, found: Mapping[str, str], name: str):
        super().__init__()
        self._found = dict(found)
        self._name = name

    @property
    def name(self) -> str:  # KeyStore.backend_name shows it
        return self._name

    def get_password(self, service: str, username: str) -> str | None:
        if service != SERVICE_NAME:
            return None
        if username.startswith(PASSWORD_PREFIX):
            return self._found.get(PASSWORD_PREFIX)
        return self._found.get(username)

    def set_password(self, service: str, username: str, password: str) -> None:
        raise PasswordSetError(f"{self._name} is read-only")

    def delete_password(self, service: str, username: str) -> None:
        raise PasswordDeleteError(f"{self._name} is read-only")


def from_file(path: str | Path) -> ReadOnlyKeys:
    """The keys of a key file, refused when its group or others may read or write it. The
    one exception is systemd's credential (``LoadCredential=``, in ``$CREDENTIALS_DIRECTORY``):
    written 0400 and opened to the service's user by a POSIX ACL, whose mask shows as the
    group's bits (0440); accepted when that ACL grants nothing to any group, nor to any
    user but this process's (``_credential_acl``)."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO: no wait
    except OSError as error:
        raise KeySourceError(f"key file {path}: {error.strerror or error}") from None
    with os.fdopen(fd, "rb") as file:  # judged and read through one descriptor: no race
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise KeySourceError(f"key file {path}: not a regular file")
        if os.name == "posix" and status.st_mode & 0o077 and not _credential_acl(path, fd, status.st_mode):
            raise KeySourceError(
                f"key file {path} may be read by others "
                f"(mode {stat.S_IMODE(status.st_mode):04o}): refused. Make it readable by its "
                f"owner alone: chmod 600 {path}"
            )
        try:
            text = file.read().decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise KeySourceError(f"key file {path}: cannot be read ({error})") from None
    try:
        document = json.loads(text)
    except ValueError as error:  # the message names a place, never the text
        raise KeySourceError(
            f"key file {path}: not JSON ({type(error).__name__} at line {getattr(error, 'lineno', '?')})"
        ) from None
    return ReadOnlyKeys(entries(document, f"key file {path}"), f"key file {path}")


# POSIX ACLs as Linux keeps them (system.posix_acl_access): a version, then entries of
# (tag, permissions, id), each of 8 bytes, little-endian
ACL_XATTR, ACL_VERSION = "system.posix_acl_access", 2
ACL_USER, ACL_GROUP_OBJ, ACL_GROUP = 0x02, 0x04, 0x08
READ, WRITE = 4, 2


def _credential_acl(path: Path, fd: int, mode: int) -> bool:
    """Whether a key file whose mode shows group bits is a systemd credential that only
    this process's user may read: in ``$CREDENTIALS_DIRECTORY``, no other bit nor any write
    bit but the owner's, and an ACL with no named group, no owning group's permission, and
    no named user but this process's (the group bits are then the ACL's mask)."""
    directory = os.environ.get("CREDENTIALS_DIRECTORY")
    if not directory or not hasattr(os, "getxattr") or path.absolute().parent != Path(directory).absolute():
        return False
    if stat.S_IMODE(mode) & 0o037:  # others' bits, any group write or run: never
        return False
    try:
        acl = os.getxattr(fd, ACL_XATTR)
    except OSError:  # no ACL (ENODATA), or none here: the group really may read it
        return False
    if len(acl) < 4 or (len(acl) - 4) % 8 or int.from_bytes(acl[:4], "little") != ACL_VERSION:
        return False
    for at in range(4, len(acl), 8):
        tag = int.from_bytes(acl[at : at + 2], "little")
        perm = int.from_bytes(acl[at + 2 : at + 4], "little")
        who = int.from_bytes(acl[at + 4 : at + 8], "little")
        if tag == ACL_GROUP or (tag == ACL_GROUP_OBJ and perm):
            return False  # a group may read it
        if tag == ACL_USER and (who != os.geteuid() or perm & WRITE):
            return False  # another user may read it (or this one change it)
    return True


def from_environment(environ: Mapping[str, str] | None = None) -> ReadOnlyKeys | None:
    """The keys of ``PAYDESK_KEYS`` (the file's JSON) and ``PAYDESK_LEDGER_PASSWORD``, or
    None when neither is set."""
    environ = os.environ if environ is None else environ
    text, password = environ.get(KEYS), environ.get(LEDGER_PASSWORD)
    if not text and not password:
        return None
    found: dict[str, str] = {}
    if text:
        try:
            document = json.loads(text)
        except ValueError:
            raise KeySourceError(f"${KEYS}: not JSON") from None
        found = entries(document, f"${KEYS}")
    if password:
        found[PASSWORD_PREFIX] = password
    return ReadOnlyKeys(found, "the environment")


def choose(keys_file: str | None, environ: Mapping[str, str] | None = None) -> ReadOnlyKeys | None:
    """The keys a receiver uses: ``--keys-file`` (or ``$PAYDESK_KEYS_FILE``), else the
    environment, else None (the system keyring, as the desk uses it)."""
    environ = os.environ if environ is None else environ
    path = keys_file or environ.get(KEYS_FILE)
    if path:
        return from_file(path)
    return from_environment(environ)
