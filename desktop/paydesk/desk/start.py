"""What a start opens before the desk is built: PayDesk's folders with its log file, and the
key store (its keyring looked for later). Light to import: the window's frame is painted
after these and before the desk (``build.py``) is imported."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import logs
from ..config.paths import Paths, default_paths
from ..config.secrets import KeyStore, system_backend

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

KEYRING_WAIT = 5.0  # s: a system keyring that does not answer by then is not used this session


def open_folders(data_dir: str | Path | None = None, sandbox_dir: str | Path | None = None) -> tuple[Paths, Path]:
    """PayDesk's folders (the platform's, or ``$PAYDESK_HOME``, or these), made when missing,
    and its log file, set up for the whole process (redacted, written by a thread of its own).
    Returns the paths and the log file's path."""
    paths = default_paths(data_dir, sandbox_dir).ensure()
    return paths, logs.setup(paths.logs)


async def _find_keyring() -> KeyringBackend | None:
    try:
        return await asyncio.wait_for(asyncio.to_thread(system_backend), KEYRING_WAIT)
    except TimeoutError:
        return None


def keys_later(use_keyring: bool = True, *, on_secret: Callable[[str], None] | None = None) -> KeyStore:
    """The key store, its keyring not looked for yet: ``await keys.settle()`` looks (off the
    loop's thread), and so does the first key read or written, which waits for it. The
    window is shown before (the keyring and its import are not on the way to the first paint)."""
    return KeyStore(None, on_secret=on_secret, find=_find_keyring if use_keyring else None)


async def open_keys(use_keyring: bool = True, *, on_secret: Callable[[str], None] | None = None) -> KeyStore:
    """The key store: the system keyring when there is one (found off the loop's thread),
    else memory for this session only."""
    keys = keys_later(use_keyring, on_secret=on_secret)
    await keys.settle()
    return keys
