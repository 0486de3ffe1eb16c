"""Merchants, their keys, and finding who a key belongs to."""

from __future__ import annotations

import hmac
import json
import os
import secrets
import string
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


def new_merchant(merchant_id: str, name: str) -> dict:
    return {
        "id": merchant_id,
        "name": name,
        "keys": {mode: {kind: new_key(kind, mode) for kind in KINDS} for mode in MODES},
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
                    self._entries.append(
                        (key.encode(), KeyOwner(m["id"], m["name"], mode, kind))
                    )

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
        return json.loads(path.read_text("utf-8"))
    merchants = [
        new_merchant("m_" + secrets.token_hex(6), "Sandbox Coffee Ltd"),
        new_merchant("m_" + secrets.token_hex(6), "Sandbox Books Ltd"),
    ]
    tmp = path.with_name(f".merchants.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(merchants, indent=2))
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(tmp, path)  # never replaces a file another process wrote meanwhile
        except FileExistsError:
            return json.loads(path.read_text("utf-8"))
    finally:
        tmp.unlink(missing_ok=True)
    return merchants
