"""Merchants, their keys, and finding who a key belongs to."""

from __future__ import annotations

import hmac
import json
import os
import secrets
import string
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

_ALPHABET = string.ascii_letters + string.digits
MODES = ("test", "live")
KINDS = ("secret", "public")
_PREFIX = {"secret": "sec", "public": "pub"}


def new_key(kind: str, mode: str) -> str:
    """A key in the family's format: ``sec-test-`` + 32 alphanumerics."""
    body = "".join(secrets.choice(_ALPHABET) for _ in range(32))
    return f"{_PREFIX[kind]}-{mode}-{body}"


def new_webhook_secret() -> str:
    """The business's webhook secret (signs ``--family``'s notifications; never an API
    key): ``whsec-`` + 32 alphanumerics."""
    return "whsec-" + "".join(secrets.choice(_ALPHABET) for _ in range(32))


def new_merchant(merchant_id: str, name: str) -> dict:
    return {
        "id": merchant_id,
        "name": name,
        "keys": {mode: {kind: new_key(kind, mode) for kind in KINDS} for mode in MODES},
        "webhook_secret": new_webhook_secret(),
    }


@dataclass(frozen=True)
class KeyOwner:
    merchant_id: str
    merchant_name: str
    mode: str  # "test" | "live"
    kind: str  # "secret" | "public"


class KeyRing:
    """Every merchant's keys; finds a key's owner in constant time."""

    def __init__(self, merchants: list[dict]):
        self.merchants = merchants
        self._entries: list[tuple[bytes, KeyOwner]] = []
        for m in merchants:
            for mode in MODES:
                for kind in KINDS:
                    key = m["keys"][mode][kind]
                    self._entries.append((key.encode(), KeyOwner(m["id"], m["name"], mode, kind)))

    def owner(self, presented: str | None) -> KeyOwner | None:
        """Compare against every key, never stopping early, so timing tells nothing."""
        if not presented:
            return None
        candidate = presented.encode("utf-8", "surrogateescape")
        found = None
        for key, owner in self._entries:
            if hmac.compare_digest(key, candidate):
                found = owner
        return found

    def secret_for(self, merchant_id: str, mode: str) -> str:
        for m in self.merchants:
            if m["id"] == merchant_id:
                return m["keys"][mode]["secret"]
        raise KeyError(merchant_id)

    def webhook_secret_for(self, merchant_id: str) -> str:
        for m in self.merchants:
            if m["id"] == merchant_id:
                return m["webhook_secret"]
        raise KeyError(merchant_id)

    def name_of(self, merchant_id: str) -> str:
        for m in self.merchants:
            if m["id"] == merchant_id:
                return m["name"]
        raise KeyError(merchant_id)


def private_dir(path: Path) -> None:
    """Create ``path`` (0700), or make an existing folder of ours private: it holds the
    merchants' keys, card numbers and customers' e-mails."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.stat()
    if info.st_uid == os.geteuid() and info.st_mode & 0o077:
        path.chmod(0o700)


def load_or_create(data_dir: Path) -> list[dict]:
    """Read ``merchants.json``, creating two merchants on first start.

    The file is created 0600 (never readable by others, not even for a moment or after
    a failed write), next to its final name, and linked into place only when complete;
    when two processes start at once on one folder, the first file wins and both use it.
    """
    path = data_dir / "merchants.json"
    private_dir(data_dir)
    if path.exists():
        return _with_webhook_secrets(path)
    merchants = [
        new_merchant("m_" + secrets.token_hex(6), "Sandbox Coffee Ltd"),
        new_merchant("m_" + secrets.token_hex(6), "Sandbox Books Ltd"),
    ]
    tmp = _private_copy(path, merchants)
    try:
        try:
            os.link(tmp, path)  # never replaces a file another process wrote meanwhile
        except FileExistsError:
            return _with_webhook_secrets(path)
    finally:
        tmp.unlink(missing_ok=True)
    return merchants


def _private_copy(path: Path, merchants: list[dict]) -> Path:
    """``merchants`` written, complete and synced, to a new 0600 file beside ``path``."""
    tmp = path.with_name(f".merchants.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(merchants, indent=2))
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _with_webhook_secrets(path: Path) -> list[dict]:
    """The merchants of an existing file; a file from before webhook secrets gets one per
    merchant, written in place (whole, 0600), every key kept. Done under a lock where the
    system has one, so two sandboxes starting at once on one folder agree on them."""
    merchants = json.loads(path.read_text("utf-8"))
    if all("webhook_secret" in m for m in merchants):
        return merchants
    with _locked(path.with_name(".merchants.lock")):
        merchants = json.loads(path.read_text("utf-8"))  # as the lock's last holder left it
        missing = [m for m in merchants if "webhook_secret" not in m]
        if missing:
            for m in missing:
                m["webhook_secret"] = new_webhook_secret()
            tmp = _private_copy(path, merchants)
            try:
                os.replace(tmp, path)
            finally:
                tmp.unlink(missing_ok=True)
    return merchants


@contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            import fcntl
        except ImportError:  # Windows: no advisory locks; the upgrade runs unlocked
            yield
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
