"""Keys in the system keyring, or in memory for this session where there is none.

Only real system backends are used (Secret Service, Keychain, Windows Credential
Locker): never a plaintext file. Every keyring call runs off the caller's thread
with a timeout, so a locked or absent keyring never freezes the window.
``keyring`` itself is imported only where a keyring is looked for or used (not before
the window's first paint).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import keyring.backend

log = logging.getLogger("paydesk.secrets")
SERVICE_NAME = "PayDesk"
T = TypeVar("T")


def system_backend() -> keyring.backend.KeyringBackend | None:
    """The best real system keyring, or None where there is none."""
    import keyring
    import keyring.core

    try:
        keyring.core.init_backend(limit=keyring.core.recommended)
        backend = keyring.get_keyring()
    except Exception:  # noqa: BLE001 - a broken keyring setup is "no keyring"
        return None
    name = type(backend).__module__ + "." + type(backend).__name__
    if "fail" in name.lower() or "null" in name.lower() or "keyrings.alt" in name:
        return None
    return backend


# every key a profile keeps, as (mode, kind): its keys per mode, the business's webhook secret,
# and its SMTP password (desk/bulk/smtp.py)
PROFILE_ENTRIES = tuple((mode, kind) for mode in ("test", "live") for kind in ("secret", "public", "webhook")) + (
    ("any", "smtp"),
)


def entry(profile_id: str, mode: str, kind: str) -> str:
    return f"{profile_id}/{mode}/{kind}"


class KeyStore:
    """Keys by (profile, mode, kind). ``persistent`` says whether they outlive the session.

    A keyring call can take human time (the desktop asks the user to unlock the keyring):
    after ``slow_after`` seconds ``on_waiting(True)`` tells the window, which says so, and
    the call goes on waiting (up to ``timeout``). One slow or refused call fails only
    itself; only a keyring that turns out not to exist sends the session to memory.

    ``find``, when given, looks the backend up (``backend`` is then ignored until it has
    answered): the store is not ``settled`` until then, and the first ``settle()`` (or the
    first key read or written, which waits for it) starts it.
    """

    def __init__(
        self,
        backend: keyring.backend.KeyringBackend | None,
        *,
        timeout: float = 300.0,
        slow_after: float = 1.0,
        on_secret: Callable[[str], None] | None = None,
        find: Callable[[], Awaitable[keyring.backend.KeyringBackend | None]] | None = None,
    ):
        self.backend = backend
        self._find = find
        self._finding: asyncio.Future | None = None
        self.timeout = timeout
        self.slow_after = slow_after
        self._memory: dict[str, str] = {}
        self._lock = threading.Lock()
        self._on_secret = on_secret or (lambda s: None)
        self.on_waiting: Callable[[bool], None] = lambda waiting: None
        # an entry kept or removed (its name, never its value): what depended on it is told
        self.on_changed: Callable[[str], None] = lambda name: None
        self._waiting = 0
        self.problem: str | None = None  # what last went wrong with the keyring, if anything

    @property
    def settled(self) -> bool:
        """Whether the backend is known (False while the keyring is still being looked for)."""
        return self._find is None

    async def settle(self) -> None:
        """Wait until the backend is known (looking for it now if nobody has yet)."""
        if self._find is None:
            return
        if self._finding is None:
            self._finding = asyncio.ensure_future(self._find())
        try:
            backend = await asyncio.shield(self._finding)
        except Exception:
            log.warning("looking for the system keyring failed", exc_info=True)
            backend = None
        if self._find is not None:
            self.backend, self._find, self._finding = backend, None, None

    @property
    def persistent(self) -> bool:
        return self.backend is not None

    @property
    def waiting(self) -> bool:
        return self._waiting > 0

    @property
    def backend_name(self) -> str:
        if self.backend is None:
            return "memory (this session only)"
        return getattr(self.backend, "name", type(self.backend).__name__)

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        result = await self._wait_for(fn, *args)
        self.problem = None  # it answered: an earlier refusal is no longer the story
        return result

    async def _wait_for(self, fn: Callable[..., T], *args: Any) -> T:
        call = asyncio.ensure_future(asyncio.to_thread(fn, *args))
        done, _ = await asyncio.wait({call}, timeout=self.slow_after)
        if done:
            return call.result()
        self._waiting += 1
        if self._waiting == 1:
            self.on_waiting(True)
        try:
            return await asyncio.wait_for(asyncio.shield(call), self.timeout - self.slow_after)
        finally:
            self._waiting -= 1
            if self._waiting == 0:
                self.on_waiting(False)

    def _failed(self, exc: BaseException) -> None:
        import keyring.errors  # a backend was used: keyring is loaded already

        if isinstance(exc, (keyring.errors.NoKeyringError, keyring.errors.InitError)):
            log.warning("no usable system keyring (%s); keys are kept in memory for this session", type(exc).__name__)
            self.backend = None
        elif isinstance(exc, TimeoutError):
            log.warning("the system keyring did not answer within %g s", self.timeout)
        else:
            log.warning("the system keyring refused a call (%s)", type(exc).__name__)
        self.problem = {"KeyringLocked": "the keyring stayed locked", "TimeoutError": "the keyring did not answer"}.get(
            type(exc).__name__, f"the keyring failed ({type(exc).__name__})"
        )

    async def get(self, profile_id: str, mode: str, kind: str) -> str | None:
        return await self.get_secret(entry(profile_id, mode, kind))

    async def get_secret(self, name: str) -> str | None:
        """The secret of entry ``name`` (a profile's key, the shared ledger's password)."""
        await self.settle()
        with self._lock:
            if name in self._memory:
                return self._memory[name]
        if self.backend is None:
            return None
        from keyring.errors import KeyringError

        try:
            value = await self._call(self.backend.get_password, SERVICE_NAME, name)
        except (KeyringError, TimeoutError, OSError) as exc:
            self._failed(exc)
            return None
        if value:
            self._on_secret(value)
            with self._lock:
                self._memory[name] = value
        return value or None

    async def set(self, profile_id: str, mode: str, kind: str, value: str) -> bool:
        """Keep ``value`` (empty: remove it). True when the system keyring has it (or, for a
        removal, no longer has it); False when it is kept for this session only."""
        return await self.set_secret(entry(profile_id, mode, kind), value)

    async def set_secret(self, name: str, value: str) -> bool:
        """``set`` for the entry ``name`` (a profile's key, the shared ledger's password)."""
        value = value.strip()
        if value:
            self._on_secret(value)
        with self._lock:
            if value:
                self._memory[name] = value
            else:
                self._memory.pop(name, None)
        try:  # this session uses it from now, whatever the keyring says below
            self.on_changed(name)
        except Exception:  # a listener's fault is not the key store's
            log.exception("a listener of the key store failed")
        if self.backend is None:
            return False
        from keyring.errors import KeyringError

        try:
            if value:
                await self._call(self.backend.set_password, SERVICE_NAME, name, value)
            else:
                await self._delete(name)
        except (KeyringError, TimeoutError, OSError) as exc:
            self._failed(exc)
            return False
        return True

    async def _delete(self, name: str) -> None:
        from keyring.errors import PasswordDeleteError

        if self.backend is None:
            return
        try:
            await self._call(self.backend.delete_password, SERVICE_NAME, name)
        except PasswordDeleteError:
            pass

    async def delete_profile(self, profile_id: str) -> None:
        for mode, kind in PROFILE_ENTRIES:
            await self.set(profile_id, mode, kind, "")
